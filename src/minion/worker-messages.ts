// The messages between the job runner and a job worker thread (structured clone, same process).
// A worker runs one call at a time and is reused for the next call after a clean finish.

import type { ExecResult, Grains } from '../modules/index.js';

/** One function call with a snapshot of the minion's context. */
export interface WorkerCall {
  fun: string;
  arg: unknown[];
  kwarg: Record<string, unknown>;
  jid: string;
  minionId: string;
  grains: Grains;
  config: Readonly<Record<string, unknown>>;
}

/** Runner -> worker: run a call, or stop the current one nicely (its AbortSignal fires). */
export type WorkerRequest = { t: 'call'; call: WorkerCall } | { t: 'abort'; code: string; message: string };

/** Worker -> runner: a process the function started, then exactly one result per call. */
export type WorkerReply = { t: 'pid'; pid: number } | { t: 'result'; result: ExecResult };
