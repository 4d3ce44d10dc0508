// The master's job cache: one SQLite file holding jobs and their per-minion returns
// (job-table.ts), kept for keep_jobs_seconds, and the master's other tables (minion data,
// presence history, sent-to lists, scheduled runs, the mine). It opens and migrates the file,
// guards every call and turns SQLite failures into errors that say what to do.

import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { BrineError, isBrineError, errorMessage } from '../util/errors.js';
import { assertValidMinionId } from '../util/minion-id.js';
import { assertJid } from './jid.js';
import { JOBS_SCHEMA, JobTable, type JobRecord, type ReturnRecord } from './job-table.js';
import { MINION_DATA_SCHEMA, MinionDataTable, type MinionDataRecord } from './minion-data.js';
import { PRESENCE_SCHEMA, PRESENCE_WINDOW_MS, PresenceHistoryTable, type PresenceDrop, type PresenceLast, type PresenceRecord } from './presence-history.js';
import { JOB_SENT_SCHEMA, JobSentTable } from './job-sent.js';
import { JOB_SCHEDULE_SCHEMA, JobScheduleTable } from './job-schedule.js';
import { MINE_DATA_SCHEMA, MineDataTable, type MineRecord } from './mine-data.js';
import { PRESENCE_SAMPLES_SCHEMA, PresenceSampleTable, type PresenceSample } from './presence-samples.js';

const SCHEMA_VERSION = 1;

/**
 * WAL pages after which a commit copies the WAL back into the database (SQLite's default: 1,000).
 * A 10,000-minion round commits its returns in many small transactions whose inserts land all
 * over the (jid, minion) index, so each commit appends ~60 pages to the WAL and the default
 * checkpointed (and fsynced) every ~17 commits, rewriting the same index pages again and again.
 * At 8,192 (32 MiB of 4 KiB pages) a checkpoint copies each page once per ~8 times as many
 * commits: storing a round took ~30% less time here (bench/README.md, "Issue 27: pingflush").
 * The WAL file keeps that size on disk once it has grown to it.
 */
export const WAL_AUTOCHECKPOINT_PAGES = 8192;

/** Salt's master default for keep_jobs_seconds (24 hours). */
export const DEFAULT_KEEP_JOBS_SECONDS = 86_400;

const DEFAULT_LIST_LIMIT = 100;

/**
 * Rows one purge step deletes in its own transaction. better-sqlite3 is synchronous, so a step
 * blocks the master's event loop: ~5,000 rows is a few tens of ms here (bench:jobcache), where
 * one transaction for a day of a large fleet's returns was seconds.
 */
export const PURGE_BATCH_ROWS = 5000;

/** A scheduled run's return, as the master stores it (saveScheduledReturn). */
export interface ScheduledReturn {
  /** The jid to give the run if it is new. */
  jid: string;
  /** The jid the minion gave its run (keys resends). */
  minionJid: string;
  /** The schedule job's name; '' for a `brine call` run through the minion daemon. */
  name: string;
  arg: unknown[];
  kwarg: Record<string, unknown>;
  ret: Omit<ReturnRecord, 'jid'>;
}

export interface JobCacheOptions {
  /** How long a job is kept after it started; 0 keeps jobs forever (as in Salt). */
  keepJobsSeconds?: number;
  clock?: { now(): number };
  /** How long to wait for a lock held by another connection, in ms. */
  busyTimeoutMs?: number;
}

const SCHEMA_VERSION_TABLE = 'CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);';

/** Turns a SQLite failure into a BrineError that tells the operator what to do. */
function storageError(err: unknown, file: string, doing: string): BrineError {
  if (isBrineError(err)) return err;
  const code = typeof (err as { code?: unknown })?.code === 'string' ? (err as { code: string }).code : '';
  const reason = errorMessage(err);
  let advice: string;
  if (code === 'SQLITE_FULL') advice = `the disk holding ${file} is full; free space there (or lower keep_jobs_seconds) and retry`;
  else if (code.startsWith('SQLITE_IOERR')) advice = `the disk holding ${file} reported an I/O error; check the disk and the kernel log`;
  else if (code === 'SQLITE_READONLY' || code === 'SQLITE_CANTOPEN' || code === 'SQLITE_PERM')
    advice = `the job cache ${file} cannot be opened for writing; make its directory writable by the master's user`;
  else if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB') advice = `the job cache ${file} is damaged; stop the master, move the file aside, and a new one is created at the next start`;
  else if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') advice = `the job cache ${file} is locked by another process; make sure only one master uses this cachedir`;
  else advice = `job cache ${file}`;
  return new BrineError('INTERNAL', `job cache: ${doing} failed: ${reason} (${advice})`, { cause: err, details: { sqliteCode: code, file } });
}

export class JobCache {
  private closed = false;
  private readonly keepMs: number;
  private readonly clock: { now(): number };

  private readonly jobs: JobTable;
  private readonly minionData: MinionDataTable;
  private readonly presence: PresenceHistoryTable;
  private readonly sent: JobSentTable;
  private readonly scheduled: JobScheduleTable;
  private readonly mine: MineDataTable;
  private readonly samples: PresenceSampleTable;

  private constructor(
    private readonly db: Database.Database,
    readonly file: string,
    opts: JobCacheOptions,
  ) {
    const keep = opts.keepJobsSeconds ?? DEFAULT_KEEP_JOBS_SECONDS;
    if (!Number.isFinite(keep) || keep < 0) {
      throw new BrineError('CONFIG_VALUE', `keep_jobs_seconds must be a number of seconds >= 0, got ${String(keep)}`);
    }
    this.keepMs = keep * 1000;
    this.clock = opts.clock ?? { now: () => Date.now() };
    this.jobs = new JobTable(db);
    this.minionData = new MinionDataTable(db);
    this.presence = new PresenceHistoryTable(db);
    this.sent = new JobSentTable(db);
    this.scheduled = new JobScheduleTable(db);
    this.mine = new MineDataTable(db);
    this.samples = new PresenceSampleTable(db);
  }

  /** Opens (creating if needed) the job cache at `file`. */
  static open(file: string, opts: JobCacheOptions = {}): JobCache {
    let db: Database.Database | undefined;
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      // Job arguments can hold secrets: create the file private before SQLite opens it.
      fs.closeSync(fs.openSync(file, 'a', 0o600));
      db = new Database(file);
      db.pragma('journal_mode = WAL');
      db.pragma(`busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs ?? 5000))}`);
      db.pragma('synchronous = NORMAL');
      db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
      migrate(db, file);
      return new JobCache(db, file, opts);
    } catch (err) {
      db?.close();
      if (isBrineError(err)) throw err;
      const code = (err as NodeJS.ErrnoException)?.code;
      if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || code === 'ENOSPC') {
        throw new BrineError('INTERNAL', `job cache: cannot create ${file}: ${errorMessage(err)} (make cachedir writable by the master's user, or free disk space)`, {
          cause: err,
          details: { file },
        });
      }
      throw storageError(err, file, 'opening');
    }
  }

  saveJob(job: JobRecord): void {
    this.guard();
    assertJid(job.jid);
    try {
      this.jobs.saveJob(job);
    } catch (err) {
      if ((err as { code?: unknown })?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
        throw new BrineError('INTERNAL', `job cache: job ${job.jid} is already stored; jids must be unique (is a second master using this cachedir?)`, { cause: err });
      }
      throw storageError(err, this.file, `saving job ${job.jid}`);
    }
  }

  /** Stores a return; false (and nothing stored) if this minion's return for the jid is already in. */
  saveReturn(ret: ReturnRecord): boolean {
    this.guard();
    assertJid(ret.jid);
    assertValidMinionId(ret.minion);
    try {
      return this.jobs.saveReturn(ret);
    } catch (err) {
      throw storageError(err, this.file, `saving the return of ${ret.minion} for job ${ret.jid}`);
    }
  }

  /**
   * Stores returns in one transaction (the master batches the returns of one event-loop turn:
   * one commit instead of one per return). Per return: true if stored, false if that minion's
   * return for the jid was already in (also earlier in the same batch). All or nothing: on a
   * throw nothing was stored.
   */
  saveReturns(rets: readonly ReturnRecord[]): boolean[] {
    this.guard();
    // a batch is mostly one job's returns: its jid is checked once
    let checked: string | undefined;
    for (const ret of rets) {
      if (ret.jid !== checked) {
        assertJid(ret.jid);
        checked = ret.jid;
      }
      assertValidMinionId(ret.minion);
    }
    try {
      return this.db.transaction(() => rets.map((ret) => this.jobs.saveReturn(ret)))();
    } catch (err) {
      throw storageError(err, this.file, `saving ${rets.length} returns`);
    }
  }

  /**
   * Stores the return of a run the minion's scheduler started, with its job (target: that
   * minion), in one transaction. Returns the master jid and whether it is new: a resend of a
   * stored run gets the jid it had and stores nothing.
   */
  saveScheduledReturn(minion: string, run: ScheduledReturn): { jid: string; fresh: boolean } {
    this.guard();
    assertJid(run.jid);
    assertValidMinionId(minion);
    try {
      return this.db.transaction(() => {
        const known = this.scheduled.find(minion, run.minionJid);
        if (known !== undefined) return { jid: known, fresh: false };
        this.saveJob({ jid: run.jid, fun: run.ret.fun, arg: run.arg, kwarg: run.kwarg, tgt: minion, tgtType: 'glob', user: 'root', minions: [minion], startedAt: run.ret.receivedAt });
        this.scheduled.save(run.jid, minion, run.minionJid, run.name);
        this.sent.save(run.jid, [minion]);
        this.saveReturn({ ...run.ret, jid: run.jid, minion });
        return { jid: run.jid, fresh: true };
      })();
    } catch (err) {
      throw storageError(err, this.file, `saving the scheduled run ${run.name} of ${minion}`);
    }
  }

  /** Records the minions the job was actually sent to (only their returns are stored). */
  saveSentTo(jid: string, minions: readonly string[]): void {
    this.guard();
    assertJid(jid);
    try {
      this.sent.save(jid, minions);
    } catch (err) {
      throw storageError(err, this.file, `saving the minions job ${jid} was sent to`);
    }
  }

  /** The minions the job was sent to; undefined if unknown (a job from an older brine). */
  getSentTo(jid: string): string[] | undefined {
    this.guard();
    assertJid(jid);
    return this.read(() => this.sent.get(jid), `reading the minions job ${jid} was sent to`);
  }

  getJob(jid: string): JobRecord | undefined {
    this.guard();
    assertJid(jid);
    return this.read(() => this.jobs.getJob(jid), `reading job ${jid}`);
  }

  getReturns(jid: string): ReturnRecord[] {
    this.guard();
    assertJid(jid);
    return this.read(() => this.jobs.getReturns(jid), `reading returns of job ${jid}`);
  }

  /** Jobs newest first; `since` is a start time in ms since the epoch. */
  listJobs(query: { limit?: number; since?: number } = {}): JobRecord[] {
    this.guard();
    const limit = Math.max(0, Math.floor(query.limit ?? DEFAULT_LIST_LIMIT));
    const since = Math.floor(query.since ?? 0);
    return this.read(() => this.jobs.listJobs(since, limit), 'listing jobs');
  }

  /** How many returns are stored for a job (without reading them). */
  countReturns(jid: string): number {
    this.guard();
    assertJid(jid);
    return this.read(() => this.jobs.countReturns(jid), `counting the returns of job ${jid}`);
  }

  /**
   * Deletes jobs (and their returns) older than keep_jobs_seconds, all at once; returns the rows
   * deleted (returns + jobs). For tests and tools: the master uses purgeExpiredInBatches.
   */
  purgeExpired(): number {
    let total = 0;
    for (let step = this.purgeStep(); step > 0; step = this.purgeStep()) total += step;
    return total;
  }

  /**
   * The same as purgeExpired, in steps of at most `batchRows` rows, each its own transaction,
   * yielding to the event loop between them so minions' heartbeats and returns are served while
   * a large cache is purged. Stops early (quietly) when the cache is closed meanwhile.
   */
  async purgeExpiredInBatches(batchRows = PURGE_BATCH_ROWS): Promise<number> {
    let total = 0;
    while (!this.closed) {
      const step = this.purgeStep(batchRows);
      if (step === 0) break;
      total += step;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return total;
  }

  /** One purge step of at most `n` rows; 0 when nothing expired is left. */
  private purgeStep(n = PURGE_BATCH_ROWS): number {
    this.guard();
    if (this.keepMs === 0) return 0;
    const cutoff = this.clock.now() - this.keepMs;
    try {
      return this.db.transaction(() => {
        const returns = this.jobs.deleteExpiredReturns(cutoff, n);
        if (returns > 0) return returns;
        const jids = this.jobs.deleteExpiredJobs(cutoff, n);
        if (jids.length > 0) {
          this.sent.delete(jids);
          this.scheduled.delete(jids);
          return jids.length;
        }
        return this.jobs.deleteOrphanReturns(cutoff, n);
      })();
    } catch (err) {
      throw storageError(err, this.file, 'purging expired jobs');
    }
  }

  /** Stores (replaces) a minion's grains in the minion data cache. */
  saveMinionData(rec: MinionDataRecord): void {
    this.guard();
    try {
      this.minionData.save(rec);
    } catch (err) {
      throw storageError(err, this.file, `saving the grains of ${rec.id}`);
    }
  }

  getMinionData(id: string): MinionDataRecord | undefined {
    this.guard();
    return this.read(() => this.minionData.get(id), `reading the grains of ${id}`);
  }

  /** Every minion's cached data (loaded once when the master starts). */
  listMinionData(): MinionDataRecord[] {
    this.guard();
    return this.read(() => this.minionData.all(), 'reading the minion data cache');
  }

  /** Forgets a minion's cached data; true if there was some. */
  deleteMinionData(id: string): boolean {
    this.guard();
    try {
      return this.minionData.delete(id);
    } catch (err) {
      throw storageError(err, this.file, `deleting the grains of ${id}`);
    }
  }

  /** Stores (replaces) a minion's mine (src/jobs/mine-data.ts). */
  saveMine(rec: MineRecord): void {
    this.guard();
    try {
      this.mine.save(rec);
    } catch (err) {
      throw storageError(err, this.file, `saving the mine of ${rec.id}`);
    }
  }

  /** Every minion's mine (loaded once when the master starts). */
  listMine(): MineRecord[] {
    this.guard();
    return this.read(() => this.mine.all(), 'reading the mine');
  }

  /** Forgets a minion's mine; true if there was one. */
  deleteMine(id: string): boolean {
    this.guard();
    try {
      return this.mine.delete(id);
    } catch (err) {
      throw storageError(err, this.file, `deleting the mine of ${id}`);
    }
  }

  /** Records a minion's connect in the presence history (src/jobs/presence-history.ts). */
  recordConnect(id: string, at: number, last: PresenceLast): void {
    this.guard();
    try {
      this.presence.connect(id, at, last);
    } catch (err) {
      throw storageError(err, this.file, `recording the connect of ${id}`);
    }
  }

  /** Records a disconnect; `drop` is set for an unplanned one. */
  recordDisconnect(id: string, last: PresenceLast, drop: PresenceDrop | undefined): void {
    this.guard();
    try {
      this.presence.disconnect(id, last, drop);
    } catch (err) {
      throw storageError(err, this.file, `recording the disconnect of ${id}`);
    }
  }

  /** The presence history of the last hour, per minion (loaded once when the master starts). */
  /** Runs `fn` (presence writes) in one transaction: one commit for many sign-ins. */
  batch(fn: () => void): void {
    this.guard();
    this.db.transaction(fn)();
  }

  loadPresence(): PresenceRecord[] {
    this.guard();
    const now = this.clock.now();
    return this.read(() => {
      this.presence.prune(now);
      return this.presence.load(now - PRESENCE_WINDOW_MS);
    }, 'reading the presence history');
  }

  /** Records how many minions are connected now (the fleet chart's history). */
  recordPresenceSample(sample: PresenceSample): void {
    this.guard();
    try {
      this.samples.add(sample);
    } catch (err) {
      throw storageError(err, this.file, 'recording a presence sample');
    }
  }

  /** The connected-minion samples taken since `at`, oldest first. */
  presenceSamples(at: number): PresenceSample[] {
    this.guard();
    return this.read(() => this.samples.since(at), 'reading the presence samples');
  }

  /** Forgets a minion's presence history. */
  forgetPresence(id: string): void {
    this.guard();
    try {
      this.presence.forget(id);
    } catch (err) {
      throw storageError(err, this.file, `forgetting the presence history of ${id}`);
    }
  }

  /** Closes the database; safe to call more than once. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }

  private guard(): void {
    if (this.closed) throw new BrineError('INTERNAL', `job cache ${this.file} is closed; this is a bug in the caller`);
  }

  private read<T>(fn: () => T, doing: string): T {
    try {
      return fn();
    } catch (err) {
      throw storageError(err, this.file, doing);
    }
  }
}

function migrate(db: Database.Database, file: string): void {
  db.exec(SCHEMA_VERSION_TABLE);
  db.exec(JOBS_SCHEMA);
  // added without a version bump: CREATE IF NOT EXISTS upgrades older files in place
  db.exec(MINION_DATA_SCHEMA);
  db.exec(PRESENCE_SCHEMA);
  db.exec(JOB_SENT_SCHEMA);
  db.exec(JOB_SCHEDULE_SCHEMA);
  db.exec(MINE_DATA_SCHEMA);
  db.exec(PRESENCE_SAMPLES_SCHEMA);
  const row = db.prepare('SELECT MAX(version) AS version FROM schema_version').get() as { version: number | null };
  if (row.version === null) {
    db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(SCHEMA_VERSION);
  } else if (row.version > SCHEMA_VERSION) {
    throw new BrineError(
      'INTERNAL',
      `job cache ${file} has schema version ${row.version}, newer than this brine understands (${SCHEMA_VERSION}); run the newer brine, or move the file aside to start an empty cache`,
    );
  }
}
