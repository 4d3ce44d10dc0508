// The global arguments that decide whether a state runs (`onlyif`, `unless`, `creates`) and
// whether it succeeded (`check_cmd`), each command run through the minion's cmd.retcode with the
// state's cwd/env. Skips return result True and skip_watch (no mod_watch after a skip), as Salt.

import { existsSync } from 'node:fs';
import type { LowChunk } from '../compiler/high-types.js';

/** Runs one shell command for a check; the exit code (non-zero when it could not start). */
export type CheckRunner = (cmd: string, chunk: LowChunk) => Promise<number>;

export interface CheckSkip {
  result: true;
  comment: string;
  skipWatch: true;
}

const commands = (v: unknown): string[] => (typeof v === 'string' ? [v] : Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** Whether the state is skipped by onlyif/unless/creates; undefined when it should run. */
export async function runChecks(chunk: LowChunk, run: CheckRunner): Promise<CheckSkip | undefined> {
  if ('onlyif' in chunk) {
    const v = chunk.onlyif;
    if (v === false) return { result: true, comment: 'onlyif condition is false', skipWatch: true };
    if (v !== true) {
      for (const cmd of commands(v)) if ((await run(cmd, chunk)) !== 0) return { result: true, comment: 'onlyif condition is false', skipWatch: true };
    }
  }
  if ('unless' in chunk) {
    const v = chunk.unless;
    if (v === true) return { result: true, comment: 'unless condition is true', skipWatch: true };
    if (v !== false) {
      // skipped only when every command succeeds
      let all = true;
      for (const cmd of commands(v)) {
        if ((await run(cmd, chunk)) !== 0) {
          all = false;
          break;
        }
      }
      if (all) return { result: true, comment: 'unless condition is true', skipWatch: true };
    }
  }
  if ('creates' in chunk) {
    const v = chunk.creates;
    const paths = commands(v);
    if (paths.length > 0 && paths.every((p) => existsSync(p))) return { result: true, comment: typeof v === 'string' ? `${v} exists` : 'All files in creates exist', skipWatch: true };
  }
  return undefined;
}

/** check_cmd after the state ran: every command must exit 0, else the state failed. */
export async function runCheckCmd(chunk: LowChunk, run: CheckRunner): Promise<{ result: boolean; comment: string } | undefined> {
  if (!('check_cmd' in chunk)) return undefined;
  for (const cmd of commands(chunk.check_cmd)) {
    if ((await run(cmd, chunk)) !== 0) return { result: false, comment: 'check_cmd determined the state failed' };
  }
  return { result: true, comment: 'check_cmd determined the state succeeded' };
}
