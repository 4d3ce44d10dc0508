// One state run per minion at a time (Salt's state.running check): the decision is pure and
// made by the minion's job runner, which knows every running job; jobs run in separate worker
// threads, so the lock cannot live inside the state functions.

import type { ExecResult, RunningJobInfo } from '../modules/index.js';

/** The functions that run states and take the lock; state.show_* never do. */
export const STATE_RUN_FUNCTIONS: ReadonlySet<string> = new Set(['state.apply', 'state.sls', 'state.highstate', 'state.single', 'state.sls_id', 'state.test', 'state.top']);

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Salt's jid_to_time format: `2026, Dec 03 13:44:17.123000`. */
function saltTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  return `${d.getFullYear()}, ${MONTHS[d.getMonth()]} ${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds() * 1000, 6)}`;
}

/** Salt's message for the state run that holds the lock. */
export function runningMessage(holder: RunningJobInfo): string {
  return `The function "${holder.fun}" is running as PID ${holder.pid} and was started at ${saltTime(holder.started)} with jid ${holder.jid}`;
}

const truthy = (v: unknown): boolean => v === true || (typeof v === 'string' && v.toLowerCase() === 'true');

/** queue=True: wait for a running state run instead of being refused. */
export function wantsQueue(kwarg: Readonly<Record<string, unknown>>): boolean {
  return truthy(kwarg.queue);
}

/** concurrent=True: Salt's opt-out of the lock (the run neither waits nor blocks others). */
export function wantsConcurrent(kwarg: Readonly<Record<string, unknown>>): boolean {
  return truthy(kwarg.concurrent);
}

/** STATE_RUN_IN_PROGRESS for `fun` while `holder` runs: Salt's list-of-strings return, retcode 1. */
export function stateRunConflict(fun: string, holder: RunningJobInfo): ExecResult {
  const message = runningMessage(holder);
  return {
    return: [message],
    retcode: 1,
    success: false,
    error: { code: 'STATE_RUN_IN_PROGRESS', message: `${fun}: ${message}; wait for it (saltutil.find_job ${holder.jid}) or pass queue=True` },
  };
}
