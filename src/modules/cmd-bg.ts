// cmd.run_bg: start a command in the background, detached in its own session with no output
// kept, and return its pid at once (Salt's cmd.run_bg, and cmd.run's bg: True in states).

import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { BrineError } from '../util/errors.js';
import { commandArgv, resolveRunas } from './cmd-module.js';
import { defineFunction } from './define-function.js';
import type { ModuleFunction } from './types.js';

export const cmdBgFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'cmd.run_bg',
    doc: 'Start a command in the background (its own session, output discarded) and return {pid} without waiting.',
    params: [
      { name: 'cmd', type: 'any', required: true, doc: 'a command string (run by the shell) or a list of argv strings' },
      { name: 'cwd', type: 'string', doc: 'working directory' },
      { name: 'shell', type: 'string', default: '/bin/sh', doc: 'the shell for a command string' },
      { name: 'python_shell', type: 'bool', default: true, doc: 'run a command string with `<shell> -c`' },
      { name: 'env', type: 'map', doc: 'environment variables added to the minion environment' },
      { name: 'runas', type: 'string', keywordOnly: true, doc: 'run as this user (the minion must run as root)' },
    ],
    run: async (_ctx, a) => {
      const fun = 'cmd.run_bg';
      const n = a.named;
      const argv = commandArgv(fun, n.cmd, n.python_shell, n.shell);
      const runas = n.runas ? await resolveRunas(fun, n.runas) : undefined;
      const cwd = n.cwd ?? runas?.cwd;
      if (cwd !== undefined && !(await stat(cwd).catch(() => undefined))?.isDirectory()) throw new BrineError('EXEC_FAILED', `${fun}: cwd '${cwd}' does not exist or is not a directory`);
      const env = { ...process.env, ...(runas ? { HOME: runas.home, USER: runas.name, LOGNAME: runas.name } : {}), ...Object.fromEntries(Object.entries(n.env ?? {}).map(([k, v]) => [k, String(v)])) };
      // Detached and unreferenced: the job (and the minion) may end while the command runs on.
      const child = spawn(argv[0]!, argv.slice(1), { cwd, env, detached: true, stdio: 'ignore', ...(runas ? { uid: runas.uid, gid: runas.gid } : {}) });
      const pid = await new Promise<number>((resolve, reject) => {
        child.once('spawn', () => resolve(child.pid!));
        child.once('error', (err) => reject(new BrineError('EXEC_FAILED', `${fun}: could not start '${argv[0]}': ${err.message}`)));
      });
      child.unref();
      return { pid };
    },
  }),
];
