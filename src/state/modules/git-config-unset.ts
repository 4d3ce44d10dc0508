// git.config_unset: no config key matching an expression (and, with value_regex, no value
// matching it) is left set. Comments, changes and the multivar guard follow Salt's
// salt/states/git.py config_unset(); keys are read with `git config --get-regexp`, as Salt's
// git.config_get_regexp does.

import { defineState } from '../types.js';
import { GitCli, GitFailure } from './git-cli.js';

type Matches = Record<string, string[]>;

/** `git config --get-regexp` output (one "key value" per line) as key -> values, in git's order. */
function parseRegexp(out: string): Matches {
  const matches: Matches = {};
  for (const line of out.split('\n')) {
    if (line === '') continue;
    const space = line.indexOf(' ');
    const key = space < 0 ? line : line.slice(0, space);
    const values = matches[key] ?? [];
    values.push(space < 0 ? '' : line.slice(space + 1));
    matches[key] = values;
  }
  return matches;
}

export const gitConfigUnset = defineState({
  name: 'git.config_unset',
  // Salt's git.config_unset takes **kwargs: an argument it does not name is ignored without a warning
  kwargs: true,
  doc: 'Make sure no git config key matching name (a regular expression over the whole key) is set, or none of its values matching value_regex.',
  params: [
    { name: 'name', type: 'string', required: true, doc: "the key, or an expression over whole key names (e.g. 'foo\\..+')" },
    { name: 'value_regex', type: 'any', doc: 'only the values matching this expression' },
    { name: 'all', type: 'bool', default: false, doc: 'remove every matching value of a multivar (otherwise a multivar match fails)' },
    { name: 'repo', type: 'string', doc: 'the repository whose config to change (required unless global)' },
    { name: 'user', type: 'string', doc: 'run git as this user (its ~/.gitconfig for global)' },
    { name: 'password', type: 'string', doc: 'Windows only in Salt; ignored here' },
    { name: 'output_encoding', type: 'string', doc: 'accepted for Salt compatibility; git output is read as UTF-8' },
    { name: 'global', type: 'bool', default: false, doc: "change the user's global config" },
  ],
  example: 'mylocalrepo:\n  git.config_unset:\n    - name: foo.bar\n    - value_regex: baz\n    - repo: /srv/app',
  run: async (ctx, { named: a }) => {
    const name = String(a.name);
    const ret = (result: boolean | null, comment: string, changes: Record<string, unknown> = {}) => ({ name, result, comment, changes });
    const global = a.global;
    if (!global && !a.repo) return ret(false, "Non-global config options require the 'repo' argument to be set");
    const valueRegex = a.value_regex === undefined || a.value_regex === null ? undefined : String(a.value_regex);
    const key = `^${name.replace(/^\^+/, '').replace(/\$+$/, '')}$`;
    const git = await GitCli.open({ fun: 'git.config_unset', user: a.user, signal: ctx.exec.signal });
    if (!git) return ret(false, 'git is not installed on this minion; install it first (pkg.installed: git)');
    const scope = global ? ['--global'] : [];
    const cwd = global ? undefined : a.repo;
    // exit 1 = nothing matches: an empty answer, as Salt's ignore_retcode read gives
    const read = async (values?: string): Promise<Matches> => parseRegexp((await git.probe(['config', ...scope, '--get-regexp', key, ...(values === undefined ? [] : [values])], cwd)) ?? '');

    const preMatches = await read(valueRegex);
    if (Object.keys(preMatches).length === 0) return ret(true, 'No matching keys are set');
    if (!a.all) {
      const greedy = Object.entries(preMatches)
        .filter(([, v]) => v.length > 1)
        .map(([k, v]) => `${k} (${v.join(', ')})`);
      if (greedy.length > 0) {
        return valueRegex !== undefined
          ? ret(false, `Multiple values are matched by value_regex for the following keys (set 'all' to True to force removal): ${greedy.join('; ')}`)
          : ret(false, `Multivar(s) matched by the key expression (set 'all' to True to force removal): ${greedy.join('; ')}`);
      }
    }
    if (ctx.test) return ret(null, `${Object.keys(preMatches).length} key(s) would have value(s) unset`, preMatches);

    const pre = valueRegex === undefined ? preMatches : await read();
    const failed: string[] = [];
    // each matching key by its own name: git config --unset takes a key, not an expression
    for (const keyName of Object.keys(preMatches)) {
      try {
        await git.run(['config', ...scope, a.all ? '--unset-all' : '--unset', keyName, ...(valueRegex === undefined ? [] : [valueRegex])], cwd);
      } catch (err) {
        if (!(err instanceof GitFailure)) throw err;
        ctx.exec.log?.('error', `Failed to unset '${keyName}'${valueRegex === undefined ? '' : ` using value_regex '${valueRegex}'`}: ${err.message}`);
        failed.push(keyName);
      }
    }
    if (failed.length > 0) {
      return ret(false, `Error(s) occurred unsetting values for the following keys (see the minion log for details): ${failed.join(', ')}`);
    }
    const post = await read();
    const changes: Record<string, string[]> = {};
    for (const [keyName, values] of Object.entries(pre)) {
      const unset = values.filter((v) => !(post[keyName] ?? []).includes(v));
      if (unset.length > 0) changes[keyName] = unset;
    }
    const postMatches = valueRegex === undefined ? post : await read(valueRegex);
    if (Object.keys(postMatches).length > 0) {
      const left = Object.entries(postMatches).map(([k, v]) => `${k} (${v.join(', ')})`);
      return ret(false, `Failed to unset value(s): ${left.join('; ')}`, changes);
    }
    return ret(true, 'Value(s) successfully unset', changes);
  },
});
