// Public surface of the minion daemon.
export { Minion, parseMasterEndpoint, type MinionRuntime } from './minion.js';
export { resolveMinionId, type ResolvedId, type IdSource, type IdSources } from './minion-id.js';
export { MasterPin, MASTER_PIN_FILE } from './master-pin.js';
export { ReturnQueue, type ReturnQueueOptions, type ReturnQueueFs, type QueuedReturn } from './return-queue.js';
