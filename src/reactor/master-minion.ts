// `salt[...]` in the master's reactor SLS, as Salt's Reactor gives it: a MasterMinion, the
// execution modules loaded on the master host with the master's options (salt['cmd.run'] runs
// there), its own grains, and an empty pillar (pillar.get gives its default). Each call runs on
// the master's event loop as an asynchronous function (function-replay.ts), never blocking it.

import { collectGrains, createDefaultRegistry, type ExecContext, type Grains, type ModuleRegistry } from '../modules/index.js';
import { BrineError } from '../util/errors.js';
import type { FunctionCaller } from './function-replay.js';

export interface MasterMinionDeps {
  /** The master's ID as a minion (Salt's `<id>_master`). */
  id: string;
  opts: Readonly<Record<string, unknown>>;
  /** Aborted when the master stops: a running cmd.run is ended. */
  signal: AbortSignal;
  /** A jid for each call (the function's `jid`). */
  jid(): string;
}

export function masterMinion(d: MasterMinionDeps): FunctionCaller {
  let registry: ModuleRegistry | undefined;
  let grains: Promise<Grains> | undefined;
  return async (fun, arg, kwarg) => {
    registry ??= createDefaultRegistry();
    // the master host's core grains, collected once on the first call (as MasterMinion loads them)
    grains ??= collectGrains({ id: d.id }).catch(() => ({ id: d.id }));
    const own = await grains;
    const ctx: ExecContext = { minionId: d.id, grains: () => own, config: { ...d.opts, id: d.id }, signal: d.signal, jid: d.jid(), pillar: () => ({}) };
    const r = await registry.call(fun, arg, kwarg, ctx);
    // a function that returned (cmd.run of a failing command) gives its value, as Salt's
    // __salt__ call does; only an error (an unknown function, bad arguments) raises
    if (r.error) throw new BrineError(r.error.code, `salt['${fun.slice(0, 100)}'] on the master: ${r.error.message}`);
    return r.return;
  };
}
