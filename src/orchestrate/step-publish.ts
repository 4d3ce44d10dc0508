// What salt.state and salt.function share (saltmod.py state() and function()): the target
// parameters, Salt's `salt/run/<orchestration jid>/args` event (_fire_args with the step's
// cmd_kw), the publish through the host, and the step's return carrying the job's jid.

import type { StateResult } from '../state/index.js';
import type { OrchestrateHost } from './host.js';
import { publishStep, type StepJob } from './publish-step.js';

/** What a step knows about the orchestration it belongs to. */
export interface OrchestrationRun {
  host: OrchestrateHost;
  /** The user the orchestration runs for: every job it publishes is recorded under this user. */
  user: string;
  /** The orchestration's runner jid (Salt's __orchestration_jid__). */
  jid: string;
  signal: AbortSignal;
}

export const TARGET = [
  { name: 'tgt', type: 'any', required: true, doc: 'the target expression' },
  { name: 'tgt_type', type: 'string', default: 'glob', doc: 'glob, pcre, list, grain, compound, nodegroup, ...' },
  { name: 'ssh', type: 'bool', default: false, doc: 'salt-ssh is not available in brine: only false' },
  { name: 'timeout', type: 'number', doc: "seconds to wait for the minions' returns (the master's timeout by default)" },
  { name: 'batch', type: 'any', doc: "run on this many minions at a time: 2 or '25%'" },
  { name: 'subset', type: 'int', doc: 'run on this many minions, chosen at random among those the target matches that have the function' },
  { name: 'ret', type: 'any', default: '', doc: 'returners the minions also send their returns to: a name, "a,b" or a list' },
  { name: 'ret_config', type: 'string', doc: "the returners' alternative configuration (returner options under this prefix)" },
  { name: 'ret_kwargs', type: 'any', doc: 'a mapping overriding single returner options' },
  { name: 'fail_minions', type: 'any', doc: 'minions whose failure does not fail the step: a list or "a,b"' },
  { name: 'expect_minions', type: 'bool', doc: 'a minion that does not return fails the step (default true for salt.state, false for salt.function)' },
] as const;

/** The target arguments of a step, as declared above. */
export interface TargetArgs {
  tgt: unknown;
  tgt_type: string;
  timeout?: number | undefined;
  batch?: unknown;
  subset?: number | undefined;
  ret: unknown;
  ret_config?: string | undefined;
  ret_kwargs?: unknown;
}

const given = (v: unknown): boolean => v !== undefined && v !== null;

/** Salt's `ret`: one name, "a,b" or a list, sent to the minions as "a,b". */
function returnersOf(ret: unknown): string {
  if (Array.isArray(ret)) return ret.map(String).join(',');
  return typeof ret === 'string' ? ret : '';
}

/**
 * Fires the args event (Salt's cmd_kw: arg, kwarg, ret, timeout, tgt_type, and batch, subset,
 * ret_config, ret_kwargs when given), then publishes `fun` to the target; `jid` is the first job's.
 */
export async function publishFor(run: OrchestrationRun, type: 'state' | 'function', name: string, a: TargetArgs, fun: string, arg: unknown[], kwarg: Record<string, unknown>): Promise<StepJob> {
  const ret = returnersOf(a.ret);
  const batch = given(a.batch) ? String(a.batch) : undefined;
  // Salt: a batch wins over a subset (saltutil's _exec), and a subset of 0 is none
  const subset = batch === undefined && a.subset ? a.subset : undefined;
  const retKwargs = typeof a.ret_kwargs === 'object' && a.ret_kwargs !== null && !Array.isArray(a.ret_kwargs) ? (a.ret_kwargs as Record<string, unknown>) : undefined;
  const args: Record<string, unknown> = {
    arg,
    kwarg,
    ret,
    timeout: a.timeout ?? null,
    tgt_type: a.tgt_type,
    ...(batch !== undefined ? { batch } : {}),
    ...(given(a.subset) ? { subset: a.subset } : {}),
    ...(a.ret_config ? { ret_config: a.ret_config } : {}),
    ...(retKwargs ? { ret_kwargs: retKwargs } : {}),
  };
  run.host.fire(`salt/run/${run.jid}/args`, { type, tgt: a.tgt, name, args });
  return publishStep(
    run.host,
    {
      tgt: a.tgt as string | string[],
      tgtType: a.tgt_type,
      fun,
      arg,
      kwarg,
      user: run.user,
      ...(a.timeout ? { timeout: a.timeout } : {}),
      ...(batch !== undefined ? { batch } : {}),
      ...(subset !== undefined ? { subset } : {}),
      ...(ret !== '' ? { ret } : {}),
      ...(a.ret_config ? { retConfig: a.ret_config } : {}),
      ...(retKwargs ? { retKwargs } : {}),
    },
    run.signal,
  );
}

/** The step's return with Salt's `__jid__`: the job it published. */
export const withJid = (ret: StateResult, job: StepJob): StateResult => (job.jid ? { ...ret, __jid__: job.jid } : ret);

export function sshRefused(name: string): StateResult {
  return { name, result: false, changes: {}, comment: 'salt-ssh is not available in brine; remove ssh: True (brine reaches minions through the master only)' };
}
