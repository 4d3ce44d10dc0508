// Publishing jobs and gathering their returns: computes the expected minions from accepted
// keys, reports the unconnected ones at once, sends the job to the connected ones, streams
// returns to whoever waits, stores everything in the job cache and ends the wait on time.

import type { Clock } from '../util/clock.js';
import { BrineError, toBrineError, errorMessage } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import {
  prepareMessage,
  type BrineEvent,
  type Job,
  type JobDone,
  type JobReturn,
  type JobStatus,
  type Published,
  type PublishRequest,
  type Return,
  saltArgs,
  saltOutputterOf,
} from '../protocol/index.js';
import type { JidGenerator, JobCache, JobRecord, ReturnRecord } from '../jobs/index.js';
import { matchTarget, targetForMinions, type MatchOptions } from '../targeting/index.js';
import type { MinionSession } from './minion-session.js';
import { ReturnWait } from './return-wait.js';

/** Milliseconds of storing, acknowledging and streaming the deferred flush does per turn (see deferFlush). */
export const FLUSH_BUDGET_MS = 15;
/** Most returns in the first turn of a burst; each later turn may at most double the last. */
export const FIRST_FLUSH_SLICE = 32;
/** Most returns in one turn (one transaction), however cheap they were. */
export const MAX_FLUSH_SLICE = 4096;
export interface JobSink {
  onReturn(ret: JobReturn): void;
  onDone(done: JobDone): void;
}

export interface JobTrackerDeps {
  clock: Clock;
  logger: Logger;
  cache: JobCache;
  jids: JidGenerator;
  acceptedIds(): string[];
  session(id: string): MinionSession | undefined;
  /** Seconds to wait when the request names no timeout (master `timeout`). */
  defaultTimeoutS: number;
  /** Seconds a minion has to answer find_job (master `gather_job_timeout`). */
  gatherJobTimeoutS?: number;
  emit?(event: BrineEvent): void;
  /** Cached grains, minion_data_cache and nodegroups for grain, compound and nodegroup targets. */
  targeting?: Pick<MatchOptions, 'grains' | 'pillar' | 'dataCache' | 'nodegroups'>;
  /**
   * Runs the store of the returns received so far once the current I/O is handled (default
   * setImmediate: after the poll phase, so every return read in one turn shares a transaction).
   */
  defer?(fn: () => void): void;
  /** A job was sent (NATS: its record goes to the stream, so every master keeps it). */
  onPublished?(record: JobRecord & { sentTo: string[] }): void;
}

/**
 * Where a return came from: a minion's session on the built-in transport, or a message of the
 * returns stream on NATS (acknowledged to JetStream). The minion ID is the transport's, never the
 * return's.
 */
export interface ReturnSource {
  readonly id: string;
  readonly remoteAddress: string;
  sendAck(jid: string): void;
  close(reason: 'internal_error', error: Error): void;
  /** NATS: the return's job record may still be on its way; true when it will be delivered again. */
  retryLater?(): boolean;
  /** NATS: a fast copy of a return whose durable copy follows; a refusal is the durable copy's to log. */
  readonly transient?: boolean;
}

/** A return that passed the checks and waits for the batch's commit before it is acknowledged. */
interface PendingReturn {
  session: ReturnSource;
  ret: Return;
  record: ReturnRecord;
}

interface ActiveJob {
  jid: string;
  /** Who is still waited for, and for how long (find_job extends a running minion's wait). */
  wait: ReturnWait;
  sinks: Set<JobSink>;
}

const DEFAULT_GATHER_JOB_TIMEOUT_S = 10;

/** Recent jobs whose expected minions are kept in memory, so a return is checked without SQLite. */
const RECENT_JOBS = 256;

/** Why a return is dropped instead of stored; the text goes into the log line. */
const RETURN_REFUSALS = {
  unknown_job: 'which was never sent to it (no such job in the job cache: expired, or not published by this master)',
  not_sent: 'which was never sent to it (it was not connected when the job was published, or not targeted)',
  fun_mismatch: "whose function does not match the job's",
} as const;
export type ReturnRefusal = keyof typeof RETURN_REFUSALS;

/** A dropped return is logged at most this often per minion and reason, with the count in between. */
const DROP_LOG_INTERVAL_MS = 10_000;
/** Minion/reason pairs whose drop logging is remembered at most (IDs are accepted keys, but bounded all the same). */
const DROP_LOG_KEYS = 10_000;

const FUN_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$/;

export class JobTracker {
  private readonly active = new Map<string, ActiveJob>();
  /** minion + reason -> when a drop was last logged and how many were dropped since, unlogged */
  private readonly dropLog = new Map<string, { loggedAt: number; unlogged: number }>();
  /** Every dropped return, by why it was dropped. */
  readonly droppedReturns: Record<ReturnRefusal, number> = { unknown_job: 0, not_sent: 0, fun_mismatch: 0 };
  /** Returns received since the last flush, in arrival order. */
  private pending: PendingReturn[] = [];
  /** The deferred flush's last measured cost per return (0: none yet) and its last slice. */
  private msPerReturn = 0;
  private lastSlice = FIRST_FLUSH_SLICE;
  /** Set by stop(): the waits it ends say so in their `done`. */
  private stopping = false;

  constructor(private readonly deps: JobTrackerDeps) {}

  publish(req: PublishRequest, sink: JobSink): Published {
    if (!FUN_PATTERN.test(req.fun)) {
      throw new BrineError('UNKNOWN_FUNCTION', `'${req.fun.slice(0, 100)}' is not a function name of the form module.function`);
    }
    // TARGET_INVALID (malformed compound, unknown nodegroup, loop) is thrown before any jid exists
    // `within` (a target-restricted user's minions): the target is evaluated among them alone,
    // and a list entry outside them is not reported as missing (threats.md #43)
    const within = req.within === undefined ? undefined : new Set(req.within);
    const ids = within === undefined ? this.deps.acceptedIds() : this.deps.acceptedIds().filter((id) => within.has(id));
    const found = matchTarget(req.tgt, req.tgtType, ids, { ...this.deps.targeting, ...(req.delimiter ? { delimiter: req.delimiter } : {}) });
    const matched = found.matched;
    const missing = within === undefined ? found.missing : [];
    // minions get nodegroups expanded into compound expressions, as Salt's client does
    const sendTarget = targetForMinions(req.tgt, req.tgtType, this.deps.targeting?.nodegroups ?? {});
    if (matched.length === 0) {
      throw new BrineError('NO_MINIONS_MATCHED', 'No minions matched the target. No command was sent, no jid was assigned.', { details: { missing } });
    }
    const jid = this.deps.jids.next();
    const timeoutS = req.timeout && req.timeout > 0 ? req.timeout : this.deps.defaultTimeoutS;
    const jobRecord: JobRecord = {
      jid,
      fun: req.fun,
      arg: req.arg,
      kwarg: req.kwarg,
      tgt: req.tgt,
      tgtType: req.tgtType,
      user: req.user ?? 'root',
      minions: [...matched, ...missing],
      startedAt: this.deps.clock.now(),
    };
    this.deps.cache.saveJob(jobRecord);
    const notConnected: string[] = [];
    const sentTo: string[] = [];
    // the same bytes go to every session: encoded once, not once per minion
    const message: Job = prepareMessage({
      t: 'job',
      jid,
      fun: req.fun,
      arg: req.arg,
      kwarg: req.kwarg,
      tgt: sendTarget.tgt as string | string[],
      tgtType: sendTarget.tgtType,
      ...(req.delimiter ? { delimiter: req.delimiter } : {}),
      ...(req.ret ? { ret: req.ret } : {}),
      ...(req.retConfig ? { retConfig: req.retConfig } : {}),
      ...(req.retKwargs ? { retKwargs: req.retKwargs } : {}),
    });
    const sessions = matched.map((id) => this.deps.session(id));
    const reachable = matched.filter((_id, i) => sessions[i]?.ready === true);
    // the record reaches the stream before the job reaches the minions, so other masters know
    // the job before its returns (a return that still comes first is delivered again)
    this.deps.onPublished?.({ ...jobRecord, sentTo: reachable });
    for (let i = 0; i < matched.length; i++) {
      const id = matched[i] as string;
      const sent = sessions[i]?.sendJob(message) ?? false;
      if (sent) sentTo.push(id);
      else notConnected.push(id);
    }
    // only these may return for the jid (threats.md #36); a minion offline now was never asked
    this.remember(jid, req.fun, sentTo, saltArgs(req.arg, req.kwarg), jobRecord.user);
    try {
      this.deps.cache.saveSentTo(jid, sentTo);
    } catch (err) {
      // the job already reached the minions, so the CLI must still get its jid and returns; the
      // in-memory set guards returns while the job is recent, only a master restart loses it
      this.deps.logger.error(
        { jid, err: errorMessage(err) },
        `job ${jid} was sent, but the minions it was sent to could not be stored: ${errorMessage(err)}. Returns are still checked in memory until the master restarts; free disk space or fix cachedir`,
      );
    }
    this.deps.logger.info({ jid, fun: req.fun, tgt: req.tgt, tgtType: req.tgtType, sent: sentTo.length, notConnected: notConnected.length, missing: missing.length }, `published job ${jid}`);
    const published: Published = { t: 'published', jid, minions: matched, notConnected, missing };
    this.deps.emit?.({
      kind: 'job_published',
      jid,
      fun: req.fun,
      arg: req.arg,
      kwarg: req.kwarg,
      tgt: req.tgt,
      tgtType: req.tgtType,
      user: jobRecord.user,
      minions: matched,
      missing,
      notConnected,
      at: this.deps.clock.now(),
    });
    if (sentTo.length === 0) {
      queueMicrotask(() => sink.onDone({ t: 'done', jid, noResponse: [] }));
      return published;
    }
    const gatherS = this.deps.gatherJobTimeoutS ?? DEFAULT_GATHER_JOB_TIMEOUT_S;
    // the wait's onDone needs the job and the job holds the wait
    let job: ActiveJob | undefined;
    const wait = new ReturnWait(
      this.deps.clock,
      sentTo,
      { timeoutMs: timeoutS * 1000, gatherMs: gatherS * 1000 },
      {
        askStatus: (id) => {
          const asked = this.deps.session(id)?.sendFindJob(jid) ?? false;
          this.deps.logger.debug({ jid, minion: id, asked }, `asking ${id} whether it still runs job ${jid}`);
          return asked;
        },
        onDone: (noResponse) => {
          if (job) this.finish(job, noResponse);
        },
      },
    );
    job = { jid, sinks: new Set([sink]), wait };
    this.active.set(jid, job);
    wait.start();
    return published;
  }

  /**
   * An authenticated minion may send stray returns at minion_msg_rate: one warning per minion and
   * reason per DROP_LOG_INTERVAL_MS, saying how many were dropped without a line since the last.
   */
  private logDrop(session: ReturnSource, ret: Return, refusal: ReturnRefusal): void {
    const minion = session.id;
    const key = `${refusal} ${minion}`;
    const now = this.deps.clock.monotonic();
    const seen = this.dropLog.get(key);
    if (seen && now - seen.loggedAt < DROP_LOG_INTERVAL_MS) {
      seen.unlogged++;
      return;
    }
    if (!seen && this.dropLog.size >= DROP_LOG_KEYS) this.dropLog.clear();
    const since = seen?.unlogged ?? 0;
    this.dropLog.set(key, { loggedAt: now, unlogged: 0 });
    const more = since > 0 ? ` (${since} more like it were dropped in the last ${Math.round((now - seen!.loggedAt) / 1000)} s without a log line)` : '';
    this.deps.logger.warn(
      { jid: ret.jid, minion, remote: session.remoteAddress, fun: ret.fun.slice(0, 100), reason: refusal, dropped: this.droppedReturns[refusal], unlogged: since },
      `dropped a return from ${minion} for job ${ret.jid}, ${RETURN_REFUSALS[refusal]}; nothing was stored${more} (if this repeats, check that minion's host)`,
    );
  }

  /** A sink that went away (the CLI exited) stops receiving; the job itself carries on. */
  unsubscribe(sink: JobSink): void {
    for (const job of this.active.values()) job.sinks.delete(sink);
  }

  /**
   * A return from an authenticated session; the minion ID comes from the session. It is checked
   * now and stored with the others of this event-loop turn in one transaction (flushReturns);
   * the minion's ack goes out only after that commit, so an acknowledged return is on disk.
   */
  handleReturn(session: ReturnSource, ret: Return): void {
    if (ret.schedule !== undefined) {
      this.handleScheduledReturn(session, ret, ret.schedule);
      return;
    }
    if (ret.call !== undefined) {
      // brine call through the minion daemon: a run the minion started, as a scheduled one is
      this.handleScheduledReturn(session, ret, { name: '', ...ret.call });
      return;
    }
    const minion = session.id;
    const refusal = this.checkReturn(minion, ret);
    if (refusal === 'unknown_job' && session.retryLater?.() === true) return;
    if (refusal && session.transient === true) return;
    if (refusal) {
      this.droppedReturns[refusal]++;
      this.logDrop(session, ret, refusal);
      // acknowledged all the same, so the minion stops resending a return that is never stored
      session.sendAck(ret.jid);
      return;
    }
    const record: ReturnRecord = { jid: ret.jid, minion, fun: ret.fun, return: ret.ret, retcode: ret.retcode, success: ret.success, receivedAt: this.deps.clock.now() };
    if (ret.error) record.error = ret.error;
    this.pending.push({ session, ret, record });
    if (this.pending.length === 1) this.deferFlush();
  }

  /**
   * The deferred flush does about FLUSH_BUDGET_MS of work per turn, then yields to the event loop
   * for the rest: 1,000 state returns of ~40 KB stored, acknowledged and streamed in one turn
   * held the master's loop for 300-400 ms (bench:fleet-states), heartbeats included, and a fixed
   * count cannot fit both a 40 KB state return (~0.8 ms) and a ping (~0.03 ms). The slice is the
   * budget over the time per return the last turns measured, starting at FIRST_FLUSH_SLICE and at
   * most doubling per turn, so a burst of big returns after small ones overshoots one turn only
   * a little. Each slice is one transaction, acknowledged after its commit, in arrival order.
   */
  private deferFlush(first = true): void {
    (this.deps.defer ?? setImmediate)(() => {
      const cap = first ? FIRST_FLUSH_SLICE : this.lastSlice * 2;
      const bySpeed = this.msPerReturn > 0 ? Math.floor(FLUSH_BUDGET_MS / this.msPerReturn) : cap;
      const most = Math.max(1, Math.min(cap, bySpeed, MAX_FLUSH_SLICE));
      const clock = this.deps.clock;
      const t0 = clock.monotonic();
      const n = this.flushSome(most);
      // a dear turn (a GC, bigger returns) shrinks the next slice at once; a cheap one lets it grow back gradually
      if (n > 0) this.msPerReturn = Math.max((clock.monotonic() - t0) / n, this.msPerReturn * 0.75);
      this.lastSlice = most;
      if (this.pending.length > 0) this.deferFlush(false);
    });
  }

  /**
   * Stores the pending returns in one transaction, then acknowledges and streams each. Called
   * by the deferred flush, and before anything whose outcome depends on returns already read
   * (a session's close, a find_job answer, shutdown), so their order is the order of arrival.
   */
  flushReturns(): void {
    this.flushSome(Number.POSITIVE_INFINITY);
  }

  /** Stores (in one transaction), acknowledges and streams the oldest `most` pending returns; how many it took. */
  private flushSome(most: number): number {
    if (this.pending.length === 0) return 0;
    const batch = this.pending.length <= most ? this.pending : this.pending.slice(0, most);
    this.pending = batch === this.pending ? [] : this.pending.slice(most);
    let fresh: Array<boolean | undefined>;
    try {
      fresh = this.deps.cache.saveReturns(batch.map((p) => p.record));
    } catch {
      // one by one, as before batching: a return that cannot be stored costs only its session
      fresh = batch.map((p) => {
        try {
          return this.deps.cache.saveReturn(p.record);
        } catch (err) {
          const e = toBrineError(err);
          this.deps.logger.error({ err: e, remote: p.session.remoteAddress, id: p.session.id }, `closing a minion connection after an internal error: ${e.message}`);
          p.session.close('internal_error', e);
          return undefined;
        }
      });
    }
    for (let i = 0; i < batch.length; i++) {
      const stored = fresh[i];
      if (stored !== undefined) this.afterStore(batch[i]!, stored);
    }
    return batch.length;
  }

  /** A committed (or already stored) return: the ack, then the log line, event and streaming. */
  private afterStore({ session, ret, record }: PendingReturn, fresh: boolean): void {
    session.sendAck(ret.jid);
    if (!fresh) return;
    const minion = record.minion;
    this.deps.logger.info({ jid: ret.jid, minion }, `Got return from ${minion} for job ${ret.jid}`);
    const recent = this.recent.get(ret.jid);
    this.deps.emit?.({
      kind: 'job_return',
      jid: ret.jid,
      minion,
      fun: ret.fun,
      funArgs: recent?.funArgs ?? [],
      user: recent?.user ?? 'root',
      ret: ret.ret,
      retcode: ret.retcode,
      success: ret.success,
      ...outOf(ret),
      at: record.receivedAt,
    });
    const job = this.active.get(ret.jid);
    if (!job?.wait.has(minion)) return;
    const out: JobReturn = { t: 'ret', jid: ret.jid, minion, fun: ret.fun, ret: ret.ret, retcode: ret.retcode, success: ret.success };
    if (ret.error) out.error = ret.error;
    for (const sink of job.sinks) sink.onReturn(out);
    // after the sinks saw the return: the last one ends the wait, and `done` must come last
    job.wait.returned(minion);
  }

  /**
   * The return of a run the minion started itself (its scheduler's, or `brine call`'s, whose
   * name is ''): stored under a fresh jid with its job (target: that minion only, so it cannot
   * write into another minion's jobs), once per minion jid.
   */
  private handleScheduledReturn(session: ReturnSource, ret: Return, run: NonNullable<Return['schedule']>): void {
    const minion = session.id;
    if (!FUN_PATTERN.test(ret.fun)) {
      // it would become a job row; a function name that cannot exist is not stored
      this.deps.logger.warn({ minion, schedule: run.name.slice(0, 100) }, `dropped a scheduled return from ${minion}: '${ret.fun.slice(0, 100)}' is not a function name; nothing was stored`);
      session.sendAck(ret.jid);
      return;
    }
    const receivedAt = this.deps.clock.now();
    const record = { minion, fun: ret.fun, return: ret.ret, retcode: ret.retcode, success: ret.success, receivedAt, ...(ret.error ? { error: ret.error } : {}) };
    const { jid, fresh } = this.deps.cache.saveScheduledReturn(minion, { jid: this.deps.jids.next(), minionJid: ret.jid, name: run.name, arg: run.arg, kwarg: run.kwarg, ret: record });
    session.sendAck(ret.jid);
    if (!fresh) return;
    const what = run.name === '' ? `brine call ${ret.fun}` : `scheduled job ${run.name}`;
    this.deps.logger.info({ jid, minion, ...(run.name === '' ? {} : { schedule: run.name }) }, `Got return from ${minion} for ${what} (stored as job ${jid})`);
    this.deps.emit?.({ kind: 'job_return', jid, minion, fun: ret.fun, funArgs: saltArgs(run.arg, run.kwarg), ret: ret.ret, retcode: ret.retcode, success: ret.success, ...outOf(ret), at: receivedAt });
  }

  /**
   * A job another master published (NATS: read from the stream): kept in this job cache, so its
   * returns are stored here too and `brine jobs` answers the same on every master.
   */
  adoptJob(record: JobRecord & { sentTo: string[] }): void {
    if (this.recent.has(record.jid) || this.deps.cache.getJob(record.jid) !== undefined) return;
    const { sentTo, ...job } = record;
    this.deps.cache.saveJob(job);
    this.deps.cache.saveSentTo(record.jid, sentTo);
    this.remember(record.jid, record.fun, sentTo, saltArgs(record.arg, record.kwarg), record.user);
  }

  /** A minion's session closed: waits that were asking it move on (see ReturnWait.lost). */
  handleSessionClosed(minion: string): void {
    this.flushReturns();
    for (const job of [...this.active.values()]) job.wait.lost(minion);
  }

  /** A minion's answer to find_job, from its authenticated session. */
  handleJobStatus(session: MinionSession, status: JobStatus): void {
    // a return read before this answer counts first (it ends the wait for that minion)
    this.flushReturns();
    const job = this.active.get(status.jid);
    if (!job) return;
    if (status.running) this.deps.logger.debug({ jid: status.jid, minion: session.id }, `${session.id} still runs job ${status.jid}; waiting longer`);
    job.wait.status(session.id, status.running);
  }

  /** Recent jobs: their function and the minions they were sent to, so a return is checked without SQLite. */
  private readonly recent = new Map<string, { fun: string; sentTo: Set<string>; funArgs: unknown[]; user: string }>();

  private remember(jid: string, fun: string, sentTo: string[], funArgs: unknown[], user: string): void {
    this.recent.set(jid, { fun, sentTo: new Set(sentTo), funArgs, user });
    if (this.recent.size > RECENT_JOBS) this.recent.delete(this.recent.keys().next().value as string);
  }

  /** Why a return must not be stored, or undefined when it may. */
  private checkReturn(minion: string, ret: Return): ReturnRefusal | undefined {
    // the set of a recent job is in memory; parsing the stored list for every return of a
    // 10k-minion job would be quadratic
    let job = this.recent.get(ret.jid);
    if (!job) {
      const stored = this.deps.cache.getJob(ret.jid);
      if (!stored) return 'unknown_job';
      // a job saved by an older brine has no sent list: its targeted minions are the best bound
      job = { fun: stored.fun, sentTo: new Set(this.deps.cache.getSentTo(ret.jid) ?? stored.minions), funArgs: saltArgs(stored.arg, stored.kwarg), user: stored.user };
      this.remember(ret.jid, job.fun, [...job.sentTo], job.funArgs, job.user);
    }
    if (!job.sentTo.has(minion)) return 'not_sent';
    if (job.fun !== ret.fun) return 'fun_mismatch';
    return undefined;
  }

  /** Jobs whose returns are still awaited (the API's jobs.active). */
  activeJids(): string[] {
    return [...this.active.keys()];
  }

  /** Ends every wait now (master shutdown). */
  stop(): void {
    // the waits end now: the CLI says the master went away instead of blaming the minions
    this.stopping = true;
    this.flushReturns();
    for (const job of [...this.active.values()]) job.wait.cancel();
  }

  private finish(job: ActiveJob, noResponse: string[]): void {
    if (!this.active.delete(job.jid)) return;
    if (noResponse.length > 0) this.deps.logger.info({ jid: job.jid, noResponse: noResponse.length }, `job ${job.jid}: ${noResponse.length} connected minion(s) did not return in time`);
    const done: JobDone = this.stopping ? { t: 'done', jid: job.jid, noResponse, reason: 'master_shutdown' } : { t: 'done', jid: job.jid, noResponse };
    for (const sink of job.sinks) sink.onDone(done);
    job.sinks.clear();
  }
}

/** Salt's `out` of a return: the function's outputter, or `nested` when it failed to run. */
function outOf(ret: Pick<Return, 'fun' | 'error'>): { out?: string } {
  const out = saltOutputterOf(ret.fun, ret.error !== undefined);
  return out === undefined ? {} : { out };
}
