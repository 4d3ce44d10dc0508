// Turns a job's AbortSignal into the coded error a stopped function reports.

import { BrineError, isBrineError } from '../util/errors.js';

/** The error for an aborted job: the abort reason if it is already coded, else JOB_TIMEOUT. */
export function abortError(signal: AbortSignal, what: string): BrineError {
  if (isBrineError(signal.reason)) return signal.reason;
  return new BrineError('JOB_TIMEOUT', `${what} was stopped because its job was cancelled or timed out`, { cause: signal.reason });
}
