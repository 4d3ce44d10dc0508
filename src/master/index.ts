// Public surface of the master daemon.
export { Master, AGENT_VERSION } from './master.js';
export { controlSocketPath } from './control-socket-path.js';
export { SessionTable } from './session-table.js';
export { probeAuth, type ProbeVerdict } from './probe.js';
export { readPillarCache, pillarCacheFile, type PillarCacheRecord } from './pillar-service.js';
export { GIT_PILLAR_STATUS_FILE, readGitfsStatus, type GitfsStatusFile } from './gitfs-updater.js';
