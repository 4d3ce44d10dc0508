// Path and mode rules shared by the `file` module's functions: absolute paths only (as Salt
// requires), `~` expanded, octal modes written as Salt prints them ('0644').

import os from 'node:os';
import path from 'node:path';
import { BrineError } from '../util/errors.js';

/** Expands `~` and insists on an absolute path, so a job never depends on the minion's cwd. */
export function absPath(fun: string, raw: string): string {
  let p = raw;
  if (p === '~' || p.startsWith('~/')) p = path.join(os.homedir(), p.slice(1));
  if (p.includes('\0')) throw new BrineError('BAD_ARGUMENTS', `${fun}: the path contains a NUL character`);
  if (!path.isAbsolute(p)) throw new BrineError('BAD_ARGUMENTS', `${fun}: file path must be absolute, got '${raw}'; give the full path starting with '/'`);
  return p;
}

/** Turns a Node fs error into EXEC_FAILED naming the path and what to check. */
export function fsError(fun: string, p: string, err: unknown): BrineError {
  const e = err as NodeJS.ErrnoException;
  const code = e?.code;
  const why =
    code === 'ENOENT'
      ? `'${p}' does not exist; check the path`
      : code === 'EACCES' || code === 'EPERM'
        ? `permission denied on '${p}'; check the owner and mode, or run the minion as a user allowed to do this`
        : code === 'EISDIR'
          ? `'${p}' is a directory, not a file`
          : code === 'ENOTDIR'
            ? `a component of '${p}' is not a directory`
            : `'${p}': ${e?.message ?? String(err)}`;
  return new BrineError('EXEC_FAILED', `${fun}: ${why}`, { cause: err, details: { path: p, errno: code } });
}

/** Salt's normalize_mode: octal digits without `0o`, zero-padded to four ('0644', '4755'). */
export function formatMode(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, '0');
}

/** Reads a mode given as '644', '0644', '0o644' or the YAML number 644 (Salt: int(str(mode), 8)). */
export function parseMode(fun: string, raw: unknown): number {
  const text = String(raw).trim().replace(/^0o/i, '');
  if (!/^[0-7]{1,4}$/.test(text)) {
    throw new BrineError('BAD_ARGUMENTS', `${fun}: invalid mode '${String(raw)}'; give octal digits such as 644 or 0755`);
  }
  return parseInt(text, 8);
}
