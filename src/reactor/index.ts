// Public surface of src/reactor: the master's reactor engine (docs/reactor.md).

export { Reactor, REACTOR_USER, type ReactorClients, type ReactorDeps } from './engine.js';
export { parseReactorMap, reactorsFor, type ReactorEntry } from './reactor-map.js';
export { compileReactions, type Reaction, type ReactionClient } from './reactions.js';
export { LoopGuard, LOOP_DEFAULTS, type Chain, type LoopGuardOptions, type Verdict } from './loop-guard.js';
export { WorkQueue } from './work-queue.js';
export { RecentReactions, type ReactionOutcome, type ReactionRecord } from './recent.js';
