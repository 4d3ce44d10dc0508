// A wheel function run as Salt's WheelClient runs it: salt/wheel/<jid>/new, the function, then
// salt/wheel/<jid>/ret with its return and success. The API's wheel client and orchestration's
// salt.wheel steps (the master calling its own wheel functions, no API token involved) come here.

import { formatJid } from '../jobs/index.js';
import { saltStamp } from '../protocol/index.js';
import { BrineError, toBrineError } from '../util/errors.js';
import { WHEELS, type WheelBackend, type WheelCall } from './wheel.js';

export interface WheelJobRequest extends WheelCall {
  fun: string;
  user: string;
}

/** Salt's full return of a wheel call; `error` when the function failed (its return is Salt's message then). */
export interface WheelJob {
  tag: string;
  data: { fun: string; jid: string; tag: string; user: string; _stamp: string; return: unknown; success: boolean };
  error?: BrineError;
}

/** Throws UNKNOWN_FUNCTION for a name no wheel function has; a failing function is `success: false`, never a throw. */
export async function runWheelJob(b: WheelBackend, req: WheelJobRequest): Promise<WheelJob> {
  const fn = WHEELS.get(req.fun);
  if (!fn) throw new BrineError('UNKNOWN_FUNCTION', `wheel function '${req.fun.slice(0, 100)}' is not one brine has; use ${[...WHEELS.keys()].join(', ')}`);
  const jid = formatJid(b.clock.now() * 1000);
  const tag = `salt/wheel/${jid}`;
  const base = { fun: `wheel.${req.fun}`, fun_args: Object.keys(req.kwarg).length > 0 ? [...req.arg, { ...req.kwarg }] : [...req.arg], jid, user: req.user };
  await fireQuietly(b, `${tag}/new`, base);
  let ret: unknown;
  let error: BrineError | undefined;
  try {
    ret = await fn(b, { arg: req.arg, kwarg: req.kwarg });
  } catch (err) {
    error = toBrineError(err);
    // Salt's WheelClient answers a raising function with this text as its return
    ret = `Exception occurred in wheel ${req.fun}: ${error.code}: ${error.message}`;
  }
  const success = error === undefined;
  await fireQuietly(b, `${tag}/ret`, { ...base, return: ret, success });
  return { tag, data: { fun: base.fun, jid, tag, user: req.user, _stamp: saltStamp(b.clock.now()), return: ret, success }, ...(error ? { error } : {}) };
}

/** A wheel event the master could not be told of (it is down, for `brine api`) does not fail the call. */
async function fireQuietly(b: WheelBackend, tag: string, data: Record<string, unknown>): Promise<void> {
  try {
    await b.fire(tag, data);
  } catch (err) {
    b.logger.warn({ err: toBrineError(err).message, tag }, `could not fire ${tag} on the master's bus; the wheel call itself goes on`);
  }
}
