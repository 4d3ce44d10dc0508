// Public surface of jobs: jid grammar and generation, and the SQLite job cache.

export { JidGenerator, isJid, assertJid, formatJid, jidToEpochMs, JID_LENGTH } from './jid.js';
export { JobCache, DEFAULT_KEEP_JOBS_SECONDS } from './job-cache.js';
export type { JobRecord, ReturnRecord, JobCacheOptions } from './job-cache.js';
export type { MinionDataRecord } from './minion-data.js';
