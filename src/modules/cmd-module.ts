// The `cmd` module: run commands on the minion (cmd.run, cmd.shell, cmd.run_all, cmd.retcode)
// and find programs (cmd.which, cmd.has_exec). A command string runs in a shell only when
// python_shell is true; everything else is an argv array.

import { stat } from 'node:fs/promises';
import { BrineError, isBrineError } from '../util/errors.js';
import { runProcess, type ProcessResult } from './process-runner.js';
import { withRetcode } from './retcode.js';
import { splitShellWords } from './shell-words.js';
import { defineFunction, defineParams, type TypedArgs } from './define-function.js';
import type { ExecContext, ModuleFunction } from './types.js';
import { findUser, readPasswd } from './user-db.js';
import { whichExecutable } from './salt-which.js';

// Salt's parameter order for the subset brine supports, so positional calls mean the same.
const PARAMS = defineParams([
  { name: 'cmd', type: 'any', required: true, doc: 'a command string, or a list of argv strings (never run through a shell)' },
  { name: 'cwd', type: 'string', doc: 'working directory (default: the minion working directory)' },
  { name: 'stdin', type: 'string', doc: 'text written to the standard input of the command' },
  { name: 'shell', type: 'string', default: '/bin/sh', doc: 'the shell used when python_shell is true' },
  { name: 'python_shell', type: 'bool', default: true, doc: 'run a command string with `<shell> -c`; false splits it into argv without any expansion' },
  { name: 'env', type: 'map', doc: 'environment variables added to the minion environment' },
  { name: 'rstrip', type: 'bool', default: true, doc: 'strip trailing whitespace from the output' },
  { name: 'timeout', type: 'number', doc: 'seconds before the command and everything it started are stopped' },
  { name: 'runas', type: 'string', keywordOnly: true, doc: "run as this user (the minion must run as root); HOME, USER, LOGNAME and the default cwd are the user's" },
]);

function bad(fun: string, what: string): BrineError {
  return new BrineError('BAD_ARGUMENTS', `${fun}: ${what}`);
}

/** Builds the argv: a list as given, a string through the shell or through the word splitter. */
export function commandArgv(fun: string, cmd: unknown, pythonShell: boolean, shell: string): string[] {
  if (Array.isArray(cmd)) {
    if (cmd.length === 0) throw bad(fun, 'cmd is an empty list; give the program and its arguments');
    return cmd.map((part, i) => {
      if (typeof part === 'string') return part;
      if (typeof part === 'number' && Number.isFinite(part)) return String(part);
      throw bad(fun, `cmd[${i}] must be a string, got ${part === null ? 'null' : typeof part}`);
    });
  }
  if (typeof cmd !== 'string') throw bad(fun, `cmd must be a string or a list of strings, got ${cmd === null ? 'null' : typeof cmd}`);
  if (cmd.trim() === '') throw bad(fun, 'cmd is empty; give a command to run');
  // Asking for a command string with python_shell=true is asking for a shell, as in Salt: the
  // string is one argv element, never concatenated into another command line.
  if (pythonShell) return [shell, '-c', cmd];
  try {
    return splitShellWords(cmd);
  } catch (err) {
    if (isBrineError(err)) throw bad(fun, `${err.message} (or pass python_shell=true to let a shell parse it)`);
    throw err;
  }
}

function envStrings(fun: string, env: Record<string, unknown> | undefined): Record<string, string> | undefined {
  if (env === undefined) return undefined;
  const entries = Object.keys(env).map((key): [string, string] => {
    const v = env[key];
    if (key === '' || key.includes('=') || key.includes('\0')) throw bad(fun, `env name '${key}' is not a valid variable name`);
    if (typeof v === 'string') return [key, v];
    if (typeof v === 'number' || typeof v === 'boolean') return [key, String(v)];
    throw bad(fun, `env value for '${key}' must be a string, number or boolean`);
  });
  // fromEntries defines own properties, so a key named `__proto__` stays a plain variable.
  return Object.fromEntries(entries);
}

async function execute(fun: string, ctx: ExecContext, a: TypedArgs<typeof PARAMS>, mergeStderr: boolean, discardOutput = false): Promise<ProcessResult> {
  const n = a.named;
  const argv = commandArgv(fun, n.cmd, n.python_shell, n.shell);
  const runas = n.runas === undefined || n.runas === '' ? undefined : await resolveRunas(fun, n.runas);
  const cwd = n.cwd ?? runas?.cwd;
  if (cwd !== undefined) {
    const st = await stat(cwd).catch(() => undefined);
    if (!st?.isDirectory()) throw new BrineError('EXEC_FAILED', `${fun}: cwd '${cwd}' does not exist or is not a directory; create it or pass another cwd=`);
  }
  const timeout = n.timeout;
  if (timeout !== undefined && timeout < 0) throw bad(fun, `timeout must be a positive number of seconds, got ${timeout}`);
  return runProcess({
    argv,
    cwd,
    env: runas ? { HOME: runas.home, USER: runas.name, LOGNAME: runas.name, ...envStrings(fun, n.env) } : envStrings(fun, n.env),
    ...(runas ? { uid: runas.uid, gid: runas.gid } : {}),
    stdin: n.stdin,
    // Salt treats timeout=0 as "no timeout".
    timeoutMs: timeout ? timeout * 1000 : undefined,
    signal: ctx.signal,
    mergeStderr,
    ...(discardOutput ? { discardOutput } : {}),
    rstrip: n.rstrip,
    label: fun,
    ...(ctx.trackProcess ? { onSpawn: (pid: number) => ctx.trackProcess?.(pid) } : {}),
  });
}

export interface RunasUser {
  name: string;
  uid: number;
  gid: number;
  home: string;
  /** The default working directory: home when it exists, else '/'. */
  cwd: string;
}

/** The account a command runs as: it must exist, and only root can switch to another one. */
export async function resolveRunas(fun: string, name: string): Promise<RunasUser | undefined> {
  const u = findUser(await readPasswd(fun), name);
  if (!u || (u.name !== name && String(u.uid) !== name)) throw new BrineError('EXEC_FAILED', `${fun}: runas user '${name}' does not exist on this host; create it (user.present) or fix the name`);
  const me = process.getuid?.();
  if (me === u.uid) return undefined;
  if (me !== 0) throw new BrineError('EXEC_FAILED', `${fun}: runas=${name} needs the minion to run as root (it runs as uid ${me}); run the command without runas or run the minion as root`);
  // The default cwd is the user's home when it exists, as Salt's runas does.
  const cwd = (await stat(u.home).catch(() => undefined))?.isDirectory() ? u.home : '/';
  return { name: u.name, uid: u.uid, gid: u.gid, home: u.home, cwd };
}

export const cmdFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'cmd.run',
    doc: 'Run a command and return its output (stderr merged into stdout); the job retcode is the exit code.',
    params: PARAMS,
    run: async (ctx, a) => {
      const r = await execute('cmd.run', ctx, a, true);
      return withRetcode(r.stdout, r.retcode);
    },
  }),
  defineFunction({
    name: 'cmd.shell',
    doc: 'cmd.run through the shell (python_shell defaults to true, as in Salt); returns the output.',
    params: PARAMS,
    run: async (ctx, a) => {
      const r = await execute('cmd.shell', ctx, a, true);
      return withRetcode(r.stdout, r.retcode);
    },
  }),
  defineFunction({
    name: 'cmd.which',
    doc: 'The path of an executable on PATH (and /bin, /sbin, /usr/bin, /usr/sbin, /usr/local/bin), or None.',
    params: [{ name: 'cmd', type: 'string', required: true }],
    run: (_ctx, a) => whichExecutable(a.named.cmd),
  }),
  defineFunction({
    name: 'cmd.has_exec',
    doc: 'True when cmd.which finds the executable.',
    params: [{ name: 'cmd', type: 'string', required: true }],
    run: (_ctx, a) => whichExecutable(a.named.cmd) !== null,
  }),
  defineFunction({
    name: 'cmd.run_all',
    doc: 'Run a command and return {pid, retcode, stdout, stderr}.',
    params: PARAMS,
    run: async (ctx, a) => {
      const r = await execute('cmd.run_all', ctx, a, false);
      return withRetcode({ pid: r.pid, retcode: r.retcode, stdout: r.stdout, stderr: r.stderr }, r.retcode);
    },
  }),
  defineFunction({
    name: 'cmd.retcode',
    doc: 'Run a command and return only its exit code.',
    params: PARAMS,
    run: async (ctx, a) => {
      // only the exit code is returned: no pipes to read (state guards run through here)
      const r = await execute('cmd.retcode', ctx, a, false, true);
      return withRetcode(r.retcode, r.retcode);
    },
  }),
];
