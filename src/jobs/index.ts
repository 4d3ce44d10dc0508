// Public surface of jobs: jid grammar and generation, and the SQLite job cache.

export { JidGenerator, isJid, assertJid, formatJid, jidToEpochMs, JID_LENGTH } from './jid.js';
export { JobCache, DEFAULT_KEEP_JOBS_SECONDS } from './job-cache.js';
export type { JobCacheOptions, ScheduledReturn } from './job-cache.js';
export type { JobRecord, ReturnRecord } from './job-table.js';
export type { MinionDataRecord } from './minion-data.js';
export { PRESENCE_MAX_PER_MINION, PRESENCE_MAX_ROWS, PRESENCE_WINDOW_MS } from './presence-history.js';
export type { PresenceDrop, PresenceLast, PresenceRecord } from './presence-history.js';
export type { MineRecord, StoredMineEntry } from './mine-data.js';
export { PRESENCE_SAMPLE_WINDOW_MS } from './presence-samples.js';
export type { PresenceSample } from './presence-samples.js';
