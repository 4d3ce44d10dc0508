// git.config_set: a git config key (in a repository, or the user's global config) holds one value
// or, as a multivar, exactly the given values in order. Comments and changes follow Salt's
// salt/states/git.py config_set().

import { defineState } from '../types.js';
import { GitCli, GitFailure } from './git-cli.js';

/** Python's repr of a list of strings, as Salt's comments print a multivar. */
function pyList(values: readonly string[]): string {
  return `[${values.map((v) => `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`).join(', ')}]`;
}

export const gitConfigSet = defineState({
  name: 'git.config_set',
  // Salt's git.config_set takes **kwargs: an argument it does not name is ignored without a warning
  kwargs: true,
  doc: 'Make sure a git config key is set to a value (or a multivar to a list of values).',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'the config key, e.g. user.email' },
    { name: 'value', type: 'any', doc: 'a single value' },
    { name: 'multivar', type: 'any', doc: 'several values (a list, or a comma-separated string), set in this order' },
    { name: 'repo', type: 'string', doc: 'the repository whose config to change (required unless global)' },
    { name: 'user', type: 'string', doc: 'run git as this user (its ~/.gitconfig for global)' },
    { name: 'password', type: 'string', doc: 'Windows only in Salt; ignored here' },
    { name: 'global', type: 'bool', default: false, doc: "set the key in the user's global config" },
  ],
  example: 'mylocalrepo:\n  git.config_set:\n    - name: user.email\n    - value: foo@bar.net\n    - repo: /srv/app',
  run: async (ctx, { named: a }) => {
    const name = a.name;
    const ret = (result: boolean | null, comment: string, changes: Record<string, unknown> = {}) => ({ name, result, comment, changes });
    if (a.value !== undefined && a.value !== null && a.multivar !== undefined && a.multivar !== null) return ret(false, "Only one of 'value' and 'multivar' is permitted");
    const global = a.global;
    if (!global && !a.repo) return ret(false, "Non-global config options require the 'repo' argument to be set");
    let desired: string[] | undefined;
    let valueComment = '';
    let multivar: string[] | undefined;
    if (a.value !== undefined && a.value !== null) {
      const v = typeof a.value === 'string' ? a.value : String(a.value);
      desired = [v];
      valueComment = `'${v}'`;
    }
    if (a.multivar !== undefined && a.multivar !== null) {
      multivar = Array.isArray(a.multivar) ? a.multivar.map((x) => String(x)) : String(a.multivar).split(',');
      desired = multivar;
      valueComment = pyList(multivar);
    }
    const git = await GitCli.open({ fun: 'git.config_set', user: a.user, signal: ctx.exec.signal });
    if (!git) return ret(false, 'git is not installed on this minion; install it first (pkg.installed: git)');
    // As Salt: a repository's value is read from the merged config (system, global, local) and
    // written to the repository's own config; global reads and writes the user's config.
    const scope = global ? ['--global'] : [];
    const cwd = global ? undefined : a.repo;
    const read = async (): Promise<string[] | null> => {
      const out = await git.probe(['config', ...scope, '--get-all', name], cwd);
      return out === undefined ? null : out.split('\n');
    };
    const prefix = global ? 'Global key ' : '';
    const pre = await read();
    if (desired !== undefined && pre !== null && pre.length === desired.length && pre.every((v, i) => v === desired[i])) {
      return ret(true, `${prefix}'${name}' is already set to ${valueComment}`);
    }
    if (ctx.test) return ret(null, `${prefix}'${name}' would be ${pre === null ? 'added as' : 'set to'} ${valueComment}`, { old: pre, new: desired ?? null });
    try {
      if (multivar !== undefined) {
        if (pre !== null) await git.run(['config', ...scope, '--unset-all', name], cwd).catch(() => undefined);
        for (const v of multivar) await git.run(['config', ...scope, '--add', name, v], cwd);
      } else await git.run(['config', ...scope, name, desired?.[0] ?? ''], cwd);
    } catch (err) {
      const why = err instanceof GitFailure ? err.message : String(err);
      return ret(false, `Failed to set ${global ? 'global key ' : ''}'${name}' to ${valueComment}: ${why}`);
    }
    const post = await read();
    const changes: Record<string, unknown> = JSON.stringify(pre) !== JSON.stringify(post) ? { [name]: { old: pre, new: post } } : {};
    if (JSON.stringify(post) !== JSON.stringify(desired)) return ret(false, `Failed to set ${global ? 'global key ' : ''}'${name}' to ${valueComment}`, changes);
    return ret(true, `${prefix}'${name}' was ${pre === null ? 'added as' : 'set to'} ${valueComment}`, changes);
  },
});
