// The jobs and returns tables of the job cache: one row per published job, one per minion's
// return (de-duplicated by (jid, minion) because minions resend them), and the statements that
// read, write and age them out. JobCache (job-cache.ts) wraps these calls with its guards and
// storage errors.

import type Database from 'better-sqlite3';

export interface JobRecord {
  jid: string;
  fun: string;
  arg: unknown[];
  kwarg: Record<string, unknown>;
  tgt: string | string[];
  tgtType: string;
  user: string;
  /** The minions expected to return when the job was published. */
  minions: string[];
  /** Milliseconds since the epoch. */
  startedAt: number;
  /** Set for a run the minion's scheduler started: the schedule job's name. */
  schedule?: string;
}

export interface ReturnRecord {
  jid: string;
  minion: string;
  fun: string;
  return: unknown;
  retcode: number;
  success: boolean;
  error?: { code: string; message: string };
  /** Milliseconds since the epoch. */
  receivedAt: number;
}

export const JOBS_SCHEMA = `
CREATE TABLE IF NOT EXISTS jobs (
  jid TEXT PRIMARY KEY,
  fun TEXT NOT NULL,
  arg TEXT NOT NULL,
  kwarg TEXT NOT NULL,
  tgt TEXT NOT NULL,
  tgt_type TEXT NOT NULL,
  user TEXT NOT NULL,
  minions TEXT NOT NULL,
  started_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS jobs_started_at ON jobs (started_at);
CREATE TABLE IF NOT EXISTS returns (
  jid TEXT NOT NULL,
  minion TEXT NOT NULL,
  fun TEXT NOT NULL,
  ret TEXT NOT NULL,
  retcode INTEGER NOT NULL,
  success INTEGER NOT NULL,
  error TEXT,
  received_at INTEGER NOT NULL,
  PRIMARY KEY (jid, minion)
);
CREATE INDEX IF NOT EXISTS returns_received_at ON returns (received_at);
`;

interface JobRow {
  jid: string;
  fun: string;
  arg: string;
  kwarg: string;
  tgt: string;
  tgt_type: string;
  user: string;
  minions: string;
  started_at: number;
  schedule?: string | null;
}

interface ReturnRow {
  jid: string;
  minion: string;
  fun: string;
  ret: string;
  retcode: number;
  success: number;
  error: string | null;
  received_at: number;
}

function parseJson(text: string | null): unknown {
  return text === null ? undefined : (JSON.parse(text) as unknown);
}

function toJson(value: unknown): string {
  // undefined has no JSON form; store it as null so the row is still readable.
  return JSON.stringify(value) ?? 'null';
}

export class JobTable {
  private readonly insertJob: Database.Statement;
  private readonly insertReturn: Database.Statement;
  private readonly selectJob: Database.Statement;
  private readonly selectReturns: Database.Statement;
  private readonly selectJobsSince: Database.Statement;
  private readonly countReturnsOf: Database.Statement;
  private readonly deleteExpiredReturnsStmt: Database.Statement;
  private readonly deleteExpiredJobsStmt: Database.Statement;
  private readonly deleteOrphanReturnsStmt: Database.Statement;

  constructor(db: Database.Database) {
    this.insertJob = db.prepare(
      `INSERT INTO jobs (jid, fun, arg, kwarg, tgt, tgt_type, user, minions, started_at)
       VALUES (@jid, @fun, @arg, @kwarg, @tgt, @tgt_type, @user, @minions, @started_at)`,
    );
    // positional parameters: better-sqlite3 binds them without a row object and a lookup by name
    // per column (issue 27: a 10,000-minion round stores 10,000 returns)
    this.insertReturn = db.prepare('INSERT OR IGNORE INTO returns (jid, minion, fun, ret, retcode, success, error, received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    this.selectJob = db.prepare("SELECT jobs.*, NULLIF(job_schedule.name, '') AS schedule FROM jobs LEFT JOIN job_schedule USING (jid) WHERE jobs.jid = ?");
    this.selectReturns = db.prepare('SELECT * FROM returns WHERE jid = ? ORDER BY received_at, minion');
    this.selectJobsSince = db.prepare(
      "SELECT jobs.*, NULLIF(job_schedule.name, '') AS schedule FROM jobs LEFT JOIN job_schedule USING (jid) WHERE started_at >= ? ORDER BY started_at DESC, jid DESC LIMIT ?",
    );
    this.countReturnsOf = db.prepare('SELECT COUNT(*) AS n FROM returns WHERE jid = ?');
    // Purging goes in steps of at most @n rows (job-cache.ts PURGE_BATCH_ROWS): first the returns of expired
    // jobs, then the jobs themselves (their job_sent and job_schedule rows go with them), then
    // returns whose job is unknown (never saved, or already purged), aged by their own arrival.
    this.deleteExpiredReturnsStmt = db.prepare('DELETE FROM returns WHERE rowid IN (SELECT returns.rowid FROM jobs JOIN returns ON returns.jid = jobs.jid WHERE jobs.started_at < @cutoff LIMIT @n)');
    this.deleteExpiredJobsStmt = db.prepare('DELETE FROM jobs WHERE rowid IN (SELECT rowid FROM jobs WHERE started_at < @cutoff LIMIT @n) RETURNING jid');
    this.deleteOrphanReturnsStmt = db.prepare(
      'DELETE FROM returns WHERE rowid IN (SELECT rowid FROM returns WHERE received_at < @cutoff AND NOT EXISTS (SELECT 1 FROM jobs WHERE jobs.jid = returns.jid) LIMIT @n)',
    );
  }

  /** Stores a job; throws SQLite's SQLITE_CONSTRAINT_PRIMARYKEY if the jid is already stored. */
  saveJob(job: JobRecord): void {
    this.insertJob.run({
      jid: job.jid,
      fun: job.fun,
      arg: toJson(job.arg),
      kwarg: toJson(job.kwarg),
      tgt: toJson(job.tgt),
      tgt_type: job.tgtType,
      user: job.user,
      minions: toJson(job.minions),
      started_at: Math.floor(job.startedAt),
    });
  }

  /** Stores a return; false (and nothing stored) if this minion's return for the jid is already in. */
  saveReturn(ret: ReturnRecord): boolean {
    const error = ret.error === undefined ? null : toJson({ code: ret.error.code, message: ret.error.message });
    return this.insertReturn.run(ret.jid, ret.minion, ret.fun, toJson(ret.return), Math.trunc(ret.retcode), ret.success ? 1 : 0, error, Math.floor(ret.receivedAt)).changes === 1;
  }

  getJob(jid: string): JobRecord | undefined {
    const row = this.selectJob.get(jid) as JobRow | undefined;
    return row === undefined ? undefined : rowToJob(row);
  }

  getReturns(jid: string): ReturnRecord[] {
    return (this.selectReturns.all(jid) as ReturnRow[]).map(rowToReturn);
  }

  /** Jobs started at or after `since` (ms since the epoch), newest first, at most `limit`. */
  listJobs(since: number, limit: number): JobRecord[] {
    return (this.selectJobsSince.all(since, limit) as JobRow[]).map(rowToJob);
  }

  countReturns(jid: string): number {
    return (this.countReturnsOf.get(jid) as { n: number }).n;
  }

  /** Deletes at most `n` returns of jobs started before `cutoff`; the rows deleted. */
  deleteExpiredReturns(cutoff: number, n: number): number {
    return this.deleteExpiredReturnsStmt.run({ cutoff, n }).changes;
  }

  /** Deletes at most `n` jobs started before `cutoff`; their jids. */
  deleteExpiredJobs(cutoff: number, n: number): string[] {
    return (this.deleteExpiredJobsStmt.all({ cutoff, n }) as Array<{ jid: string }>).map((r) => r.jid);
  }

  /** Deletes at most `n` returns received before `cutoff` whose job is unknown; the rows deleted. */
  deleteOrphanReturns(cutoff: number, n: number): number {
    return this.deleteOrphanReturnsStmt.run({ cutoff, n }).changes;
  }
}

function rowToJob(row: JobRow): JobRecord {
  return {
    jid: row.jid,
    fun: row.fun,
    arg: parseJson(row.arg) as unknown[],
    kwarg: parseJson(row.kwarg) as Record<string, unknown>,
    tgt: parseJson(row.tgt) as string | string[],
    tgtType: row.tgt_type,
    user: row.user,
    minions: parseJson(row.minions) as string[],
    startedAt: row.started_at,
    ...(typeof row.schedule === 'string' ? { schedule: row.schedule } : {}),
  };
}

function rowToReturn(row: ReturnRow): ReturnRecord {
  const rec: ReturnRecord = {
    jid: row.jid,
    minion: row.minion,
    fun: row.fun,
    return: parseJson(row.ret),
    retcode: row.retcode,
    success: row.success === 1,
    receivedAt: row.received_at,
  };
  if (row.error !== null) rec.error = parseJson(row.error) as { code: string; message: string };
  return rec;
}
