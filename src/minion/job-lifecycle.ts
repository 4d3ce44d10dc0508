// One published job's lifecycle in the minion's job runner, as an explicit state machine:
// admitting -> [awaiting-state-lock] -> [awaiting-slot] -> running -> ending -> done.
// `ending` means the result is decided (finished, refused, killed, timed out, shut down) while
// the job still holds what it took (lock, slot, its row in saltutil.running); `done` means all of
// it is given back. Done is terminal; the first result wins.

import type { ExecResult } from '../modules/index.js';
import { BrineError } from '../util/errors.js';

export const JOB_PHASES = ['admitting', 'awaiting-state-lock', 'awaiting-slot', 'running', 'ending', 'done'] as const;
export type JobPhase = (typeof JOB_PHASES)[number];

const TRANSITIONS: Readonly<Record<JobPhase, readonly JobPhase[]>> = {
  // a state run asks for the lock first; other jobs go straight to a slot
  admitting: ['awaiting-state-lock', 'awaiting-slot', 'running', 'ending'],
  // refused, or killed while queued (queue=True)
  'awaiting-state-lock': ['awaiting-slot', 'running', 'ending'],
  'awaiting-slot': ['running', 'ending'],
  running: ['ending'],
  ending: ['done'],
  done: [],
};

export function canMove(from: JobPhase, to: JobPhase): boolean {
  return TRANSITIONS[from].includes(to);
}

type WaitingOrRunning = Exclude<JobPhase, 'ending' | 'done'>;
/** The result exists exactly from `ending` on. */
type JobState = { phase: WaitingOrRunning } | { phase: 'ending' | 'done'; result: ExecResult };

export class JobLifecycle {
  private state: JobState = { phase: 'admitting' };
  private ran = false;
  private resolveOutcome: (r: ExecResult) => void = () => undefined;
  /** Resolves with the result once it is decided: what a waiting or running step races against. */
  readonly outcome = new Promise<ExecResult>((resolve) => (this.resolveOutcome = resolve));

  get phase(): JobPhase {
    return this.state.phase;
  }

  /** The decided result (from `ending` on). */
  get result(): ExecResult | undefined {
    return 'result' in this.state ? this.state.result : undefined;
  }

  /** Entered `running`: it took a slot (or, outside the job table, a thread) to give back. */
  get hasRun(): boolean {
    return this.ran;
  }

  /** Moves to a waiting phase or to running. */
  enter(to: 'awaiting-state-lock' | 'awaiting-slot' | 'running'): void {
    this.guard(to);
    this.state = { phase: to };
    if (to === 'running') this.ran = true;
  }

  /** Decides the result; false (and nothing changes) when one was decided before. */
  end(result: ExecResult): boolean {
    if ('result' in this.state) return false;
    this.guard('ending');
    this.state = { phase: 'ending', result };
    this.resolveOutcome(result);
    return true;
  }

  /** Everything the job held is given back; returns its result. */
  close(): ExecResult {
    this.guard('done');
    if (!('result' in this.state)) throw new BrineError('INTERNAL', 'job closed without a result');
    this.state = { phase: 'done', result: this.state.result };
    return this.state.result;
  }

  private guard(to: JobPhase): void {
    if (!canMove(this.state.phase, to)) throw new BrineError('INTERNAL', `illegal job transition ${this.state.phase} -> ${to}`);
  }
}
