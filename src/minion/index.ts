// Public surface of the minion daemon.
export { Minion, type MinionRuntime } from './minion.js';
export { parseMasterEndpoint } from './minion-link.js';
export { resolveMinionId, idOptionsFrom, removeDomain, appendDomain, isIpv4, type ResolvedId, type IdResolution, type IdSource, type IdCacheState, type ResolveIdOptions } from './minion-id.js';
export { systemIdSources, pythonGetfqdn, sortIpv4, type IdSources, type FqdnAnswer, type FqdnResolver } from './id-sources.js';
export { generateCandidates, type IdCandidate, type CandidateSource, type CandidateVerdict, type CandidateList } from './id-candidates.js';
export { readIdCache, writeIdCache, MINION_ID_FILE, type CachedId } from './id-cache.js';
export { checkIdResolution, reportIdAtStart, describeSource, type IdCheck, type CheckLevel, type CheckTopic, type CheckOptions } from './id-checks.js';
export { formatIdReport, type IdReport } from './id-report.js';
export { parseHostsFile, type HostsEntry } from './hosts-file.js';
export { MasterPins, MASTER_PIN_FILE, MASTER_PIN_DIR, masterFingers, masterKeyDecision, pinFileName, type MasterKeyDecision, type MasterTrust } from './master-pin.js';
export { ReturnQueue, type ReturnQueueOptions, type ReturnQueueFs, type QueuedReturn } from './return-queue.js';
export { startMinionControl, minionSocketPath, MINION_SOCKET_FILE, type MinionControlDeps } from './control-server.js';
export { JobRunner, DEFAULT_MAX_CONCURRENT_JOBS, DEFAULT_MAX_RETURN_BYTES, type JobRunnerDeps } from './job-runner.js';
export { WorkerExecutor, type JobExecutor, type IsolatedRun } from './worker-executor.js';
export { capReturn, type CappedReturn } from './return-cap.js';
export { MasterFileSource, FILE_REQUEST_TIMEOUT_MS, type FileLink } from './master-files.js';
export type { HostServices } from './worker-host.js';
export { runLocalCall, type LocalCallOptions } from './local-call.js';
