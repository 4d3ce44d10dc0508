// cmd.run, cmd.wait and cmd.script: run a command (through the shell, as Salt's states do) or a
// script from the file server, and report {pid, retcode, stdout, stderr} as the changes. cmd.wait
// runs only from a watch (mod_watch). unless/onlyif/creates are the runtime's, not handled here.

import { chmod, chown, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { resolveRunas, splitShellWords } from '../../modules/index.js';
import { BrineError, isBrineError, errorMessage } from '../../util/errors.js';
import { defineState, type StateContext, type StateFunction, type StateResult } from '../types.js';
import { reinterpretStateful } from './cmd-stateful.js';
import { stateResult } from './state-result.js';

const COMMON = [
  { name: 'cwd', type: 'string', doc: "working directory (default: the minion's, or the runas user's home)" },
  { name: 'runas', type: 'string', doc: 'run as this user (the minion must run as root)' },
  { name: 'shell', type: 'string', doc: 'the shell that runs the command (default /bin/sh)' },
  { name: 'env', type: 'any', doc: 'environment variables: a mapping, or a list of one-key mappings' },
  { name: 'stateful', type: 'bool', default: false, doc: 'the command reports its own outcome (JSON, or a last line \'changed=yes comment="..."\')' },
  { name: 'timeout', type: 'number', doc: 'seconds before the command is stopped (the state fails)' },
  { name: 'success_retcodes', type: 'list', doc: 'exit codes other than 0 that count as success' },
  { name: 'hide_output', type: 'bool', default: false, doc: 'leave stdout and stderr out of the result' },
  { name: 'stdin', type: 'string', doc: 'text written to the standard input' },
  { name: 'umask', type: 'string', doc: "the umask the command runs with, e.g. '077'" },
  { name: 'prepend_path', type: 'string', doc: 'a directory put in front of PATH' },
  { name: 'bg', type: 'bool', default: false, doc: 'start the command in the background and do not wait for it (changes: its pid)' },
] as const;

interface RunOpts {
  cwd?: string;
  runas?: string;
  shell?: string;
  env?: unknown;
  stateful: boolean;
  timeout?: number;
  success_retcodes?: unknown[];
  hide_output: boolean;
  stdin?: string;
  umask?: string;
  prepend_path?: string;
  bg?: boolean;
}

/**
 * Runs argv under a umask without building a command line: the shell gets a fixed script and
 * the umask and the command as its positional parameters ("$1", then "$@").
 */
export function withUmask(argv: readonly string[], umask: string): string[] {
  return ['/bin/sh', '-c', 'umask "$1" && shift && exec "$@"', 'sh', umask, ...argv];
}

/** Salt takes env as a mapping or as a list of one-key mappings. */
export function envMapping(env: unknown): Record<string, unknown> | undefined {
  if (env === undefined || env === null) return undefined;
  if (Array.isArray(env)) {
    const out: Record<string, unknown> = {};
    for (const item of env) {
      if (typeof item !== 'object' || item === null || Array.isArray(item))
        throw new BrineError('BAD_ARGUMENTS', `env must be a mapping or a list of mappings, got ${JSON.stringify(item)} in the list`);
      Object.assign(out, item);
    }
    return out;
  }
  if (typeof env === 'object') return { ...env };
  throw new BrineError('BAD_ARGUMENTS', `env must be a mapping (NAME: value), got ${typeof env}`);
}

/** Runs through cmd.run_all and shapes Salt's cmd state result. */
async function runCommand(ctx: StateContext, name: string, cmd: string | string[], o: RunOpts, pythonShell: boolean, ranComment = `Command "${name}" run`): Promise<StateResult> {
  let env: Record<string, unknown> | undefined;
  try {
    env = envMapping(o.env);
  } catch (err) {
    return stateResult(name, false, errorMessage(err));
  }
  if (o.cwd !== undefined && !(await stat(o.cwd).catch(() => undefined))?.isDirectory()) return stateResult(name, false, `Desired working directory "${o.cwd}" is not available`);
  if (o.umask !== undefined && !/^[0-7]{3,4}$/.test(String(o.umask))) return stateResult(name, false, `umask must be 3 or 4 octal digits such as '077', got '${String(o.umask)}'`);
  if (o.prepend_path !== undefined) env = { ...env, PATH: `${o.prepend_path}:${String(env?.PATH ?? process.env.PATH ?? '/usr/bin:/bin')}` };
  let argv: string | string[] = cmd;
  let shell = o.shell;
  if (o.umask !== undefined) {
    argv = withUmask(typeof cmd === 'string' ? [shell ?? '/bin/sh', '-c', cmd] : cmd, String(o.umask));
    shell = undefined;
  }
  const kwarg: Record<string, unknown> = { python_shell: typeof argv === 'string' ? pythonShell : false };
  for (const [k, v] of Object.entries({ cwd: o.cwd, runas: o.runas, shell, env, timeout: o.timeout, stdin: o.stdin })) if (v !== undefined && v !== null) kwarg[k] = v;
  if (o.bg) {
    // Salt does not wait: the changes carry the pid, no exit code and no output.
    const bg = await ctx.call('cmd.run_bg', [argv], Object.fromEntries(Object.entries(kwarg).filter(([k]) => !['timeout', 'stdin'].includes(k))));
    if (bg.error) return stateResult(name, false, bg.error.message);
    return stateResult(name, true, `Command "${name}" run`, { pid: (bg.return as { pid: number }).pid, retcode: null, stdout: '', stderr: '' });
  }
  const r = await ctx.call('cmd.run_all', [argv], kwarg);
  // A non-zero exit is a return with retcode (success false but no error); an error is a failure to run.
  if (r.error) return stateResult(name, false, r.error.message);
  const out = r.return as { pid: number; retcode: number; stdout: string; stderr: string };
  const ok = (o.success_retcodes ?? []).map(Number).concat(0).includes(out.retcode);
  const changes = o.hide_output ? { ...out, stdout: '', stderr: '' } : { ...out };
  const ret = stateResult(name, ok, ranComment, changes);
  if (!o.stateful) return ret;
  const re = reinterpretStateful({ ...ret, changes: { ...out } });
  // The exit code still decides failure; the command's report decides changes and comment.
  return { ...re, result: ok ? re.result : false, changes: o.hide_output && Object.keys(re.changes).length ? { ...re.changes, stdout: '', stderr: '' } : re.changes };
}

/**
 * Salt's test=True report of cmd.run (and of cmd.wait through mod_watch, which calls run):
 * changes {cmd: <command>} since 3006 (salt/states/cmd.py run, saltstack/salt#64150); a
 * stateful command is reinterpreted as in Salt, which leaves no changes and an empty comment.
 */
function wouldRun(name: string, stateful: boolean): StateResult {
  const ret = stateResult(name, null, `Command "${name}" would have been executed`, { cmd: name });
  return stateful ? reinterpretStateful(ret) : ret;
}

/** cmd.script's own wording (salt/states/cmd.py script): single quotes, and no changes in test mode. */
function scriptWouldRun(name: string, stateful: boolean): StateResult {
  const ret = stateResult(name, null, `Command '${name}' would have been executed`);
  return stateful ? reinterpretStateful(ret) : ret;
}

const run = defineState({
  name: 'cmd.run',
  // Salt's cmd.run takes **kwargs: an argument it does not name is ignored without a warning
  kwargs: true,
  doc: 'Run a command through the shell; fails when it exits non-zero.',
  params: [{ name: 'name', type: 'string', required: true, doc: 'the command line' }, ...COMMON],
  example: 'reload-sysctl:\n  cmd.run:\n    - name: sysctl --system\n    - unless: test -f /etc/sysctl.d/99-brine.conf\n    - cwd: /\n    - umask: "022"\n    - env:\n      - LC_ALL: C',
  run: async (ctx, a) => (ctx.test ? wouldRun(a.named.name, a.named.stateful) : runCommand(ctx, a.named.name, a.named.name, a.named, true)),
  modWatch: async (ctx, a) => (ctx.test ? wouldRun(a.named.name, a.named.stateful) : runCommand(ctx, a.named.name, a.named.name, a.named, true)),
});

const wait = defineState({
  name: 'cmd.wait',
  // Salt's cmd.wait takes **kwargs: an argument it does not name is ignored without a warning
  kwargs: true,
  doc: 'Run a command only when a watched state reports changes (watch / watch_in).',
  params: [{ name: 'name', type: 'string', required: true, doc: 'the command line' }, ...COMMON],
  example:
    '/srv/data/catalog.json:\n  file.managed:\n    - source: salt://data/catalog.json\n\nrebuild-index:\n  cmd.wait:\n    - name: /usr/local/bin/rebuild-index\n    - watch:\n      - file: /srv/data/catalog.json',
  // Without a triggering watch, nothing runs and nothing changes (Salt's cmd.wait).
  run: async (_ctx, a) => stateResult(a.named.name, true, ''),
  modWatch: async (ctx, a) => (ctx.test ? wouldRun(a.named.name, a.named.stateful) : runCommand(ctx, a.named.name, a.named.name, a.named, true)),
});

/** The script's text: from the file server (salt://) or a local absolute path. */
async function scriptText(ctx: StateContext, source: string): Promise<string> {
  if (source.startsWith('salt://')) {
    if (!ctx.exec.files)
      throw new BrineError(
        'FILESERVER_UNAVAILABLE',
        `cmd.script: ${source} cannot be fetched: no file server is reachable from here (set file_client: local with file_roots, or run through a master)`,
      );
    const { localPath } = await ctx.exec.files.cacheFile(source, ctx.saltenv);
    return readFile(localPath, 'utf8');
  }
  if (path.isAbsolute(source)) {
    return readFile(source, 'utf8').catch((err: NodeJS.ErrnoException) => {
      throw new BrineError('FILE_NOT_FOUND', `cmd.script: cannot read ${source} (${err.code ?? err.message}); give a salt:// URL or an existing local path`);
    });
  }
  throw new BrineError('BAD_ARGUMENTS', `cmd.script: source '${source}' must be a salt:// URL or an absolute local path`);
}

function scriptArgs(args: unknown): string[] {
  if (args === undefined || args === null || args === '') return [];
  if (Array.isArray(args)) return args.map(String);
  return splitShellWords(String(args));
}

async function runScript(
  ctx: StateContext,
  a: { named: RunOpts & { name: string; source?: string; args?: unknown; template?: string; defaults?: Record<string, unknown>; context?: Record<string, unknown> } },
): Promise<StateResult> {
  const n = a.named;
  if (ctx.test) return scriptWouldRun(n.name, n.stateful);
  const source = n.source ?? n.name;
  let dir: string | undefined;
  try {
    let text = await scriptText(ctx, source);
    if (n.template) text = await ctx.renderTemplate(text, { engine: n.template, source, context: { ...(n.defaults ?? {}), ...(n.context ?? {}) } });
    const args = scriptArgs(n.args);
    // A private directory per run: nobody else can swap the script between writing and running.
    dir = await mkdtemp(path.join(os.tmpdir(), 'brine-script-'));
    // A fixed name (keeping a plain extension): nothing in the source can point outside dir.
    const ext = path.extname(source.replace(/\?.*$/, ''));
    const file = path.join(dir, `script${/^\.[A-Za-z0-9]{1,8}$/.test(ext) ? ext : ''}`);
    await writeFile(file, text, { mode: 0o700 });
    const runas = n.runas ? await resolveRunas('cmd.script', n.runas) : undefined;
    if (runas) {
      await chmod(dir, 0o711);
      await chown(file, runas.uid, runas.gid);
    }
    // A script without a #! line runs under the shell (an exec of it would fail with ENOEXEC).
    const shell = n.shell ?? (text.startsWith('#!') ? undefined : '/bin/sh');
    const argv = shell ? [shell, file, ...args] : [file, ...args];
    return await runCommand(ctx, n.name, argv, { ...n, shell: undefined }, false, `Command '${n.name}' run`);
  } catch (err) {
    if (isBrineError(err) || err instanceof Error) return stateResult(n.name, false, err.message);
    throw err;
  } finally {
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}

const SCRIPT_PARAMS = [
  { name: 'name', type: 'string', required: true, doc: 'the script (its source when source is not given)' },
  { name: 'source', type: 'string', doc: 'salt:// URL or absolute local path of the script' },
  { name: 'args', type: 'any', doc: 'arguments: a string (split like a shell, without expansion) or a list' },
  { name: 'template', type: 'string', doc: "render the script first ('jinja')" },
  { name: 'defaults', type: 'map', doc: 'template variables' },
  { name: 'context', type: 'map', doc: 'template variables, overriding defaults' },
  ...COMMON,
] as const;

const script = defineState({
  name: 'cmd.script',
  // Salt's cmd.script takes **kwargs: an argument it does not name is ignored without a warning
  kwargs: true,
  doc: 'Download a script from the file server (optionally rendered as a template) and run it.',
  params: SCRIPT_PARAMS,
  example: 'bootstrap:\n  cmd.script:\n    - source: salt://scripts/bootstrap.sh\n    - args: --fast "two words"\n    - template: jinja\n    - runas: deploy\n    - cwd: /srv/app',
  run: (ctx, a) => runScript(ctx, a),
  modWatch: (ctx, a) => runScript(ctx, a),
});

// Salt aliases cmd.watch to cmd.wait, "a common misconfiguration" (salt/states/cmd.py); trees use it
const watchAlias = defineState({
  name: 'cmd.watch',
  // Salt's cmd.watch takes **kwargs: an argument it does not name is ignored without a warning
  kwargs: true,
  doc: 'The same as cmd.wait: run a command only when a watched state reports changes (Salt keeps the name as an alias).',
  params: [{ name: 'name', type: 'string', required: true, doc: 'the command line' }, ...COMMON],
  example: '/etc/app/app.conf:\n  file.managed:\n    - source: salt://app/app.conf\n\nrestart-app:\n  cmd.watch:\n    - name: systemctl restart app\n    - watch:\n      - file: /etc/app/app.conf',
  run: async (_ctx, a) => stateResult(a.named.name, true, ''),
  modWatch: async (ctx, a) => (ctx.test ? wouldRun(a.named.name, a.named.stateful) : runCommand(ctx, a.named.name, a.named.name, a.named, true)),
});

export const cmdStates: readonly StateFunction[] = [run, wait, watchAlias, script];
