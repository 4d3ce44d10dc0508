// What an orchestration asks of the master (Salt's MasterMinion, `<master id>_master`): publish a
// job and gather its returns through the JobTracker, follow the event bus, call runner and wheel
// functions. An interface, so the salt.* orchestration states are tested over a real master and
// the master's wiring stays in one place.

import type { JobReturn, PublishRequest, SaltEvent } from '../protocol/index.js';
import type { Disposable } from '../util/disposable.js';

/** A published job's outcome: each expected minion's return, or why it has none. */
export interface GatheredJob {
  jid: string;
  /** Minions that returned, in arrival order. */
  returns: JobReturn[];
  /** Expected minions that did not return (not connected, or no answer within the timeout). */
  missing: string[];
}

export type FunctionCall = { arg: unknown[]; kwarg: Record<string, unknown> };

/** Salt's full_return of saltutil.runner / saltutil.wheel: the job's jid, the function's return, whether it succeeded. */
export interface FullReturn {
  jid: string;
  return: unknown;
  success: boolean;
}

export interface OrchestrateHost {
  /** `<master id>_master`: the ID the orchestration's own highstate is returned under. */
  readonly masterId: string;
  /** Publishes and waits for the returns; NO_MINIONS_MATCHED when the target matches no minion. */
  publishAndGather(req: Omit<PublishRequest, 't'>, signal: AbortSignal): Promise<GatheredJob>;
  /** The accepted minions a target matches (salt.state batch splits them). */
  match(tgt: string | string[], tgtType: string): Promise<{ matched: string[] }>;
  /** Fires an event on the master's bus (Salt's salt/run/<jid>/args for each step that publishes). */
  fire(tag: string, data: Record<string, unknown>): void;
  /** Every event on the master's bus, from now on. */
  subscribe(fn: (event: SaltEvent) => void): Disposable;
  /** A runner function run as a runner job of its own (Salt's saltutil.runner); a coded error for an unknown name. */
  runner(fun: string, call: FunctionCall, user: string): Promise<FullReturn>;
  /** A wheel function run as a wheel job (Salt's saltutil.wheel); a coded error for an unknown name. */
  wheel(fun: string, call: FunctionCall, user: string): Promise<FullReturn>;
  /** An execution function run on the master (Salt's MasterMinion `__salt__`: salt.function's fail_function). */
  localCall(fun: string, arg: unknown[]): Promise<unknown>;
}
