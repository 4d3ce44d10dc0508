// Salt's state return shapes for the file and archive states: one helper per outcome, the note
// Salt appends to test=True reports, and the absolute-path rule every file state starts with.

import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BrineError } from '../../util/errors.js';
import type { StateResult } from '../types.js';

/** Salt's suffix on a test=True file report: other states may still change the outcome. */
export const TEST_NOTE = '\nNote: No changes made, actual changes may\nbe different due to other states.';

export function succeed(name: string, comment: string, changes: Record<string, unknown> = {}): StateResult {
  return { name, result: true, changes, comment };
}

export function failed(name: string, comment: string, changes: Record<string, unknown> = {}): StateResult {
  return { name, result: false, changes, comment };
}

/** test=True with changes pending: result null, the would-be changes, nothing done. */
export function pending(name: string, comment: string, changes: Record<string, unknown>): StateResult {
  return { name, result: null, changes, comment };
}

/** The comment of a caught error: a BrineError's own message, or the error text. */
export function errorText(err: unknown): string {
  if (err instanceof BrineError) return err.message;
  const e = err as NodeJS.ErrnoException;
  if (e?.code === 'EACCES' || e?.code === 'EPERM') return `permission denied: ${e.message}; run the minion as a user allowed to change this path`;
  return e?.message ?? String(err);
}

/**
 * Salt requires absolute paths for file states (a state never depends on the minion's cwd).
 * Returns the normalised path, or a failed result saying what to give instead.
 */
export function checkAbsolute(given: string, what = 'file'): { path: string } | { error: string } {
  if (given.includes('\0')) return { error: `The ${what} path contains a NUL character` };
  // Salt's file states start with os.path.expanduser(name) (mysql-formula's ~/.my.cnf)
  const raw = expandUser(given);
  if (!path.isAbsolute(raw)) return { error: `Specified ${what} ${raw} is not an absolute path; give the full path starting with '/'` };
  return { path: path.normalize(raw).replace(/(.)\/$/, '$1') };
}

/** Python's os.path.expanduser: `~` is $HOME (else the passwd home), `~user` that user's home; else unchanged. */
export function expandUser(p: string): string {
  const m = /^~([^/]*)(\/.*)?$/s.exec(p);
  if (!m) return p;
  if (m[1] === '') return os.homedir() + (m[2] ?? '');
  let passwd = '';
  try {
    passwd = readFileSync('/etc/passwd', 'utf8');
  } catch {
    return p;
  }
  const home = passwd
    .split('\n')
    .find((l) => l.split(':')[0] === m[1])
    ?.split(':')[5];
  return home ? home.replace(/(.)\/$/, '$1') + (m[2] ?? '') : p;
}
