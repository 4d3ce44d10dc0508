// Salt's batch mode (salt-reference §5.6, salt/cli/batch.py): a sliding window of at most N
// minions running the job; `--batch-wait` keeps a finished minion's slot closed for S seconds;
// `--failhard` stops starting minions after the first non-zero retcode.

import { BrineError } from '../../util/errors.js';

export type BatchSpec = { count: number } | { percent: number };

/** `-b N` or `-b N%`: a count of at least 1, or a percentage in (0, 100]. */
export function parseBatch(text: string): BatchSpec {
  const t = text.trim();
  const bad = (why: string): BrineError => new BrineError('INVALID_BATCH', `-b/--batch '${text.slice(0, 40)}': ${why}; give a count such as 2 or a percentage such as 25%`);
  const pct = /^(\d+(?:\.\d+)?)%$/.exec(t);
  if (pct) {
    const percent = Number(pct[1]);
    if (!(percent > 0 && percent <= 100)) throw bad('a percentage must be more than 0% and at most 100%');
    return { percent };
  }
  if (!/^\d+$/.test(t)) throw bad('not a number or a percentage');
  const count = Number(t);
  if (count < 1 || !Number.isSafeInteger(count)) throw bad('the batch size must be at least 1');
  return { count };
}

export function parseBatchWait(text: string | undefined): number {
  if (text === undefined) return 0;
  const s = Number(text);
  if (text.trim() === '' || !Number.isFinite(s) || s < 0) throw new BrineError('INVALID_BATCH', `--batch-wait '${text.slice(0, 40)}' is not a number of seconds >= 0`);
  return s;
}

/** Salt: N% of the responders, rounded down but at least 1; a count larger than them is all of them. */
export function batchSize(spec: BatchSpec, responders: number): number {
  if (responders <= 0) return 0;
  if ('count' in spec) return Math.min(spec.count, responders);
  return Math.min(responders, Math.max(1, Math.floor((spec.percent / 100) * responders)));
}

export interface BatchDeps {
  /** Minions to run on, in the order they are started. */
  minions: readonly string[];
  size: number;
  /** Seconds a finished minion's slot stays closed (--batch-wait). */
  waitS: number;
  failhard: boolean;
  /** Called before each group starts (prints `Executing run on [...]`). */
  announce(group: string[]): void;
  /** Runs the job on a group; calls done(id, retcode) once for every minion of the group. */
  runGroup(group: string[], done: (id: string, retcode: number) => void): Promise<void>;
  /** Timers, injectable for tests. */
  sleep?(ms: number): Promise<void>;
  now?(): number;
}

export interface BatchResult {
  /** Highest retcode seen (Salt's exit code for batches). */
  retcode: number;
  /** The minion whose non-zero retcode stopped a --failhard run. */
  failedHard?: string;
}

export async function runBatch(deps: BatchDeps): Promise<BatchResult> {
  const now = deps.now ?? (() => Date.now());
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const queue = [...deps.minions];
  const active = new Set<string>();
  let closedUntil: number[] = [];
  let retcode = 0;
  let failedHard: string | undefined;
  let wake: (() => void) | undefined;
  const groups: Promise<void>[] = [];

  while (failedHard === undefined && (queue.length > 0 || active.size > 0)) {
    const t = now();
    closedUntil = closedUntil.filter((until) => until > t);
    const free = deps.size - active.size - closedUntil.length;
    if (free > 0 && queue.length > 0) {
      const group = queue.splice(0, free);
      for (const id of group) active.add(id);
      deps.announce([...group].sort());
      groups.push(
        deps.runGroup(group, (id, rc) => {
          if (!active.delete(id)) return;
          retcode = Math.max(retcode, rc);
          if (deps.waitS > 0) closedUntil.push(now() + deps.waitS * 1000);
          if (deps.failhard && rc !== 0 && failedHard === undefined) failedHard = id;
          wake?.();
        }),
      );
      continue;
    }
    // nothing to start: wait for a minion to finish, or for a closed slot to open
    const woken = new Promise<void>((r) => (wake = r));
    const waits: Promise<void>[] = [woken];
    if (closedUntil.length > 0 && queue.length > 0) waits.push(sleep(Math.max(0, Math.min(...closedUntil) - t)));
    await Promise.race(waits);
    wake = undefined;
  }
  if (failedHard === undefined) await Promise.all(groups);
  return failedHard === undefined ? { retcode } : { retcode, failedHard };
}
