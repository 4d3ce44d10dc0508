// autosign_file / autoreject_file: one glob or regex per line naming minion IDs whose keys the
// master accepts (or rejects) without an operator. The file grants trust, so its mode is checked.

import { readFileSync, statSync, type Stats } from 'node:fs';
import { BrineError, errorMessage, errnoCode } from '../util/errors.js';
import { compileExpr } from './fnmatch.js';

export interface MatchFileOptions {
  /** The option name, for messages: `autosign_file` (default) or `autoreject_file`. */
  option?: string;
  /** Salt's permissive_pki_access: allow a group-writable file. World-writable is never allowed. */
  permissivePkiAccess?: boolean;
  /** Told when a later reload finds the file gone or unsafe (it then matches nothing). */
  onProblem?: (message: string) => void;
}

type Matcher = (id: string) => boolean;

/**
 * Loads a match file and returns a predicate over minion IDs. A missing file matches nothing.
 * An unsafe file (world-writable, or group-writable without permissivePkiAccess) → CONFIG_VALUE.
 * Like Salt, edits take effect without a restart: the predicate reloads when the file changes.
 */
export function loadMatchFile(path: string, opts: MatchFileOptions = {}): Matcher {
  const option = opts.option ?? 'autosign_file';
  let stamp = '';
  let current: Matcher = () => false;

  const reload = (st: Stats | undefined): void => {
    stamp = stampOf(st);
    current = st === undefined ? () => false : parse(readText(path, option));
  };

  reload(checkedStat(path, option, opts.permissivePkiAccess === true));

  return (id: string): boolean => {
    try {
      const st = checkedStat(path, option, opts.permissivePkiAccess === true);
      if (stampOf(st) !== stamp) reload(st);
    } catch (err) {
      // Became unsafe or unreadable after start: grant nothing rather than take the master down.
      stamp = '';
      current = () => false;
      opts.onProblem?.(errorMessage(err));
      return false;
    }
    return current(id);
  };
}

/** The expressions of a match file's text: non-blank lines not starting with `#`, trimmed. */
export function matchFileLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

function parse(text: string): Matcher {
  const matchers = matchFileLines(text).map(compileExpr);
  return (id) => matchers.some((m) => m(id));
}

function readText(path: string, option: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new BrineError('CONFIG_VALUE', `${option} ${path} cannot be read: ${errorMessage(err)}; make it readable by the master's user`, { cause: err, details: { path } });
  }
}

function stampOf(st: Stats | undefined): string {
  return st === undefined ? 'missing' : `${st.ino}:${st.size}:${st.mtimeMs}:${st.mode}`;
}

function checkedStat(path: string, option: string, permissive: boolean): Stats | undefined {
  let st: Stats;
  try {
    st = statSync(path);
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return undefined;
    throw new BrineError('CONFIG_VALUE', `${option} ${path} cannot be read: ${errorMessage(err)}`, { cause: err, details: { path } });
  }
  const mode = (st.mode & 0o777).toString(8).padStart(4, '0');
  if (!st.isFile()) throw new BrineError('CONFIG_VALUE', `${option} ${path} is not a regular file; point ${option} at a file with one glob or regex per line`, { details: { path } });
  if ((st.mode & 0o002) !== 0) {
    throw new BrineError('CONFIG_VALUE', `${option} ${path} is world-writable (mode ${mode}), so any local user could make the master trust their key; run \`chmod o-w ${path}\``, {
      details: { path, mode },
    });
  }
  if ((st.mode & 0o020) !== 0 && !permissive) {
    throw new BrineError('CONFIG_VALUE', `${option} ${path} is group-writable (mode ${mode}); run \`chmod g-w ${path}\`, or set permissive_pki_access: True if that group is trusted`, {
      details: { path, mode },
    });
  }
  return st;
}
