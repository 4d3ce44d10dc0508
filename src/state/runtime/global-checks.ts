// The global arguments that decide whether a state runs (`onlyif`, `unless`, `creates`) and
// whether it succeeded (`check_cmd`). A check is a shell command (success: exit 0) or, as in
// Salt 3000+, an execution function `{fun: file.file_exists, path: /x}` (success: a truthy
// return). Skips return result True and skip_watch (no mod_watch after a skip), as Salt.

import { existsSync } from 'node:fs';
import type { LowChunk } from '../compiler/high-types.js';
import { errorMessage } from '../../util/errors.js';

/** One onlyif/unless/check_cmd entry: a command, or a function call `{fun, args?, get_return?, ...kwargs}`. */
export type CheckEntry = string | Readonly<Record<string, unknown>>;

/**
 * Runs one check entry for a chunk: true when it succeeded (exit 0, or a truthy return). A check
 * function that raises (unknown, bad arguments, failed) throws: Salt then fails the state with
 * "An exception occurred in this state".
 */
export type CheckRunner = (entry: CheckEntry, chunk: LowChunk) => Promise<boolean>;

export interface CheckSkip {
  result: true;
  comment: string;
  skipWatch: true;
}

function entries(v: unknown): CheckEntry[] {
  const list = Array.isArray(v) ? v : [v];
  // Salt stops at an entry of another type (a boolean in the list: "bad type passed") and runs the state
  const bad = list.findIndex((x) => typeof x !== 'string' && !(typeof x === 'object' && x !== null && !Array.isArray(x)));
  return (bad < 0 ? list : list.slice(0, bad)) as CheckEntry[];
}

/** Python's truth value, which Salt applies to a check function's return. */
export function pythonTruthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return true;
}

/** Whether the state is skipped by onlyif/unless/creates; undefined when it should run. */
export async function runChecks(chunk: LowChunk, run: CheckRunner): Promise<CheckSkip | undefined> {
  if ('onlyif' in chunk) {
    const v = chunk.onlyif;
    if (v === false) return { result: true, comment: 'onlyif condition is false', skipWatch: true };
    if (v !== true) {
      for (const e of entries(v)) if (!(await run(e, chunk))) return { result: true, comment: 'onlyif condition is false', skipWatch: true };
    }
  }
  if ('unless' in chunk) {
    const v = chunk.unless;
    if (v === true) return { result: true, comment: 'unless condition is true', skipWatch: true };
    if (v !== false) {
      // skipped only when every check succeeds
      let all = true;
      for (const e of entries(v)) {
        if (!(await run(e, chunk))) {
          all = false;
          break;
        }
      }
      if (all) return { result: true, comment: 'unless condition is true', skipWatch: true };
    }
  }
  if ('creates' in chunk) {
    const v = chunk.creates;
    const paths = entries(v).filter((p): p is string => typeof p === 'string');
    if (paths.length > 0 && paths.every((p) => existsSync(p))) return { result: true, comment: typeof v === 'string' ? `${v} exists` : 'All files in creates exist', skipWatch: true };
  }
  return undefined;
}

/** check_cmd after the state ran: every command must exit 0, else the state failed. */
export async function runCheckCmd(chunk: LowChunk, run: CheckRunner): Promise<{ result: boolean; comment: string } | undefined> {
  if (!('check_cmd' in chunk)) return undefined;
  for (const e of entries(chunk.check_cmd)) {
    let ok: boolean;
    try {
      ok = await run(e, chunk);
    } catch (err) {
      return { result: false, comment: `An exception occurred in this state: ${errorMessage(err)}` };
    }
    if (!ok) return { result: false, comment: 'check_cmd determined the state failed' };
  }
  return { result: true, comment: 'check_cmd determined the state succeeded' };
}
