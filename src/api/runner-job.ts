// A runner function run as Salt's RunnerClient runs it: a jid, `salt/run/<jid>/new` with
// {fun: 'runner.<fun>', fun_args, jid, user}, the function, then `salt/run/<jid>/ret` with its
// return and success, and the job stored in the job cache as the master's own return (so
// jobs.lookup_jid <jid> gives {<master id>: <the ret event's data>}, as Salt's job cache does).
// The master is the one place this runs: `brine runner`, the API's runner client and the reactor
// all come here (the control socket's `runner` request, or the master's own ApiBackend).

import { saltStamp } from '../protocol/index.js';
import { BrineError, toBrineError } from '../util/errors.js';
import type { RunnerBackend, RunnerHost } from './backend.js';
import type { RunnerCall, RunnerOutcome, RunnerReply } from './runner-call.js';

import { runnerFunction } from './runners.js';

export interface RunnerJobRequest extends RunnerCall {
  fun: string;
  user: string;
}

/** Runs or starts (`async`) a runner job: the master's ApiBackend.runner. */
export async function runRunner(b: RunnerBackend, host: RunnerHost, req: RunnerJobRequest & { async?: boolean }): Promise<RunnerReply> {
  const { jid, done } = startRunnerJob(b, host, req);
  if (req.async === true) {
    done.catch((err) => b.logger.error({ err, jid }, `runner job ${jid} failed`));
    return { jid, done: false };
  }
  return { ...(await done), done: true };
}

/**
 * Salt's RunnerClient: a return holding `data` (an orchestration's highstate) succeeds when its
 * states did (check_result of `data`, which the orchestrate runner gives as its `retcode`).
 */
function retcodeOf(ret: unknown): number {
  if (typeof ret !== 'object' || ret === null || Array.isArray(ret) || !Object.hasOwn(ret, 'data')) return 0;
  const rc = (ret as { retcode?: unknown }).retcode;
  return typeof rc === 'number' && Number.isInteger(rc) ? rc : 0;
}

/** Throws RUNNER_UNKNOWN with Salt's message for a name that is no runner function. */
export function checkedRunner(host: RunnerHost | undefined, fun: string): NonNullable<ReturnType<typeof runnerFunction>> {
  const fn = runnerFunction(host, fun);
  if (fn === undefined) throw new BrineError('RUNNER_UNKNOWN', `'${fun}' is not available.`, { details: { fun } });
  return fn;
}

/**
 * Starts the runner job: checks the name, fires `new` and stores the job, then runs it; `done`
 * settles once the `ret` event is fired and the return stored. The jid is known at once (--async).
 */
export function startRunnerJob(b: RunnerBackend, host: RunnerHost, req: RunnerJobRequest): { jid: string; done: Promise<RunnerOutcome> } {
  const fn = checkedRunner(host, req.fun);
  const jid = host.newJid();
  const fun = `runner.${req.fun}`;
  const funArgs = Object.keys(req.kwarg).length > 0 ? [...req.arg, { ...req.kwarg }] : [...req.arg];
  const base = { fun, jid, user: req.user, fun_args: funArgs };
  const startedAt = b.clock.now();
  host.jobCache.saveJob({ jid, fun, arg: req.arg, kwarg: req.kwarg, tgt: host.masterId, tgtType: 'glob', user: req.user, minions: [host.masterId], startedAt });
  host.fire(`salt/run/${jid}/new`, { ...base, _stamp: saltStamp(startedAt) });
  const done = (async (): Promise<RunnerOutcome> => {
    let outcome: RunnerOutcome;
    try {
      const ret = await fn(b, { arg: req.arg, kwarg: req.kwarg, user: req.user, jid, ...(req.timeout === undefined ? {} : { timeout: req.timeout }) });
      const retcode = retcodeOf(ret);
      outcome = { jid, return: ret, success: retcode === 0, retcode };
    } catch (err) {
      const e = toBrineError(err);
      if (e.code === 'INTERNAL') b.logger.error({ err, jid, fun: req.fun }, `runner ${req.fun} failed`);
      // Salt's return for a runner that raised (its exit status 1 since 3006.2)
      outcome = { jid, return: `Exception occurred in runner ${req.fun}: ${e.code}: ${e.message}`, success: false, retcode: 1, error: { code: e.code, message: e.message } };
    }
    const data = { ...base, return: outcome.return, success: outcome.success, _stamp: saltStamp(b.clock.now()) };
    try {
      host.jobCache.saveReturn({ jid, minion: host.masterId, fun, return: data, retcode: outcome.retcode, success: outcome.success, receivedAt: b.clock.now() });
    } catch (err) {
      b.logger.error({ err, jid }, `the runner job ${jid} could not be stored in the job cache; its ret event is still fired`);
    }
    host.fire(`salt/run/${jid}/ret`, data);
    return outcome;
  })();
  return { jid, done };
}
