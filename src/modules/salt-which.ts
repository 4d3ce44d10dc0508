// salt.utils.path.which, shared by cmd.which and the init grain (a file of its own so the grains
// load without the cmd module).

import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

/**
 * salt.utils.path.which: an executable file on PATH, where Salt also looks in the usual system
 * directories a minion started by init may not have on PATH; a name with a '/' is checked as is.
 */
export function whichExecutable(cmd: string): string | null {
  const isExe = (p: string): boolean => {
    try {
      accessSync(p, constants.X_OK);
      return statSync(p).isFile();
    } catch {
      return false;
    }
  };
  if (cmd.includes('/')) return isExe(cmd) ? cmd : null;
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter((d) => d !== '');
  for (const extra of ['/bin', '/sbin', '/usr/bin', '/usr/sbin', '/usr/local/bin']) if (!dirs.includes(extra)) dirs.push(extra);
  for (const dir of dirs) {
    const candidate = path.join(dir, cmd);
    if (isExe(candidate)) return candidate;
  }
  return null;
}
