// Public surface of src/reactor: the reactor engine of the master and of minions (docs/reactor.md).

export { Reactor, REACTOR_USER, type FunctionCall, type ReactorClients, type ReactorDeps, type ReactorRole } from './engine.js';
export { renderWithCalls, MAX_CALLS, type FunctionCaller } from './function-replay.js';
export { masterMinion, type MasterMinionDeps } from './master-minion.js';
export { parseReactorMap, reactorsFor, type ReactorEntry } from './reactor-map.js';
export { reactorEngineSettings, type ReactorEngineSettings } from './engine-option.js';
export { compileReactions, type Reaction, type ReactionClient } from './reactions.js';
export { LoopGuard, LOOP_DEFAULTS, type Chain, type LoopGuardOptions, type Verdict } from './loop-guard.js';
export { WorkQueue } from './work-queue.js';
export { RecentReactions, type ReactionOutcome, type ReactionRecord } from './recent.js';
