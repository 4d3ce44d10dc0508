// The publishing half of salt.state and salt.function: one job (or one per batch) through the
// JobTracker, each expected minion's return in Salt's saltutil.cmd shape ({ret, retcode} or
// {failed: true} for a minion that did not return).

import { batchSize } from '../api/index.js';
import type { PublishRequest } from '../protocol/index.js';
import { isBrineError } from '../util/errors.js';
import type { OrchestrateHost } from './host.js';

export interface MinionOutcome {
  ret: unknown;
  retcode: number;
  /** No return: not connected, or no answer within the timeout (Salt's `failed: True`). */
  failed: boolean;
}

export interface StepJob {
  /** The first job's jid (Salt's `__jid__` of the step); undefined when no job was published. */
  jid: string | undefined;
  byMinion: Map<string, MinionOutcome>;
}

export interface StepPublish {
  tgt: string | string[];
  tgtType: string;
  fun: string;
  arg: unknown[];
  kwarg: Record<string, unknown>;
  timeout?: number;
  batch?: string;
  /** Salt's cmd_subset: this many minions, at random, of those matched that have `fun`. */
  subset?: number;
  /** Returners the minions also send their returns to ("a,b"), with their config prefix and overrides. */
  ret?: string;
  retConfig?: string;
  retKwargs?: Record<string, unknown>;
  user: string;
}

/**
 * Salt's cmd_subset: asks the target for sys.list_functions and picks, in random order, up to
 * `size` of the minions that answered with `fun` among their functions.
 */
async function pickSubset(host: OrchestrateHost, p: StepPublish, size: number, signal: AbortSignal): Promise<string[]> {
  const listed = await host.publishAndGather({ tgt: p.tgt, tgtType: p.tgtType as PublishRequest['tgtType'], fun: 'sys.list_functions', arg: [], kwarg: {}, user: p.user }, signal);
  const having = listed.returns.filter((r) => Array.isArray(r.ret) && r.ret.includes(p.fun)).map((r) => r.minion);
  for (let i = having.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [having[i], having[j]] = [having[j]!, having[i]!];
  }
  return having.slice(0, size);
}

async function gatherInto(host: OrchestrateHost, req: Omit<PublishRequest, 't'>, signal: AbortSignal, out: StepJob): Promise<void> {
  const job = await host.publishAndGather(req, signal);
  out.jid ??= job.jid;
  // an error return carries the error's message as its value, as Salt's minion returns a traceback string
  for (const r of job.returns) out.byMinion.set(r.minion, { ret: r.error && r.ret === null ? r.error.message : r.ret, retcode: r.retcode, failed: false });
  for (const m of job.missing) out.byMinion.set(m, { ret: false, retcode: 1, failed: true });
}

/** Publishes a step's job; an empty map when the target matches no accepted minion. */
export async function publishStep(host: OrchestrateHost, p: StepPublish, signal: AbortSignal): Promise<StepJob> {
  const out: StepJob = { jid: undefined, byMinion: new Map() };
  const base = {
    tgtType: p.tgtType as PublishRequest['tgtType'],
    fun: p.fun,
    arg: p.arg as PublishRequest['arg'],
    kwarg: p.kwarg as PublishRequest['kwarg'],
    user: p.user,
    ...(p.timeout ? { timeout: p.timeout } : {}),
    ...(p.ret ? { ret: p.ret } : {}),
    ...(p.retConfig ? { retConfig: p.retConfig } : {}),
    ...(p.retKwargs ? { retKwargs: p.retKwargs as PublishRequest['retKwargs'] } : {}),
  };
  try {
    if (p.batch === undefined && p.subset !== undefined) {
      const chosen = await pickSubset(host, p, p.subset, signal);
      if (chosen.length > 0) await gatherInto(host, { ...base, tgt: chosen, tgtType: 'list' }, signal, out);
      return out;
    }
    if (p.batch === undefined) {
      await gatherInto(host, { ...base, tgt: p.tgt }, signal, out);
      return out;
    }
    const { matched } = await host.match(p.tgt, p.tgtType);
    const size = batchSize(p.batch, matched.length);
    for (let i = 0; i < matched.length; i += size) {
      signal.throwIfAborted();
      await gatherInto(host, { ...base, tgt: matched.slice(i, i + size), tgtType: 'list' }, signal, out);
    }
    return out;
  } catch (err) {
    if (isBrineError(err, 'NO_MINIONS_MATCHED')) return out;
    throw err;
  }
}
