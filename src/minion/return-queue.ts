// The minion's queue of job returns not yet acknowledged by a master: one file per return under
// <cachedir>/returns, so a return survives a minion restart and is re-sent after a reconnect.

import * as nodeFs from 'node:fs';
import * as path from 'node:path';
import { BrineError, errorMessage } from '../util/errors.js';
import { ATOMIC_TMP_SUFFIX, writeFileAtomicSync } from '../util/atomic-write.js';
import { silentLogger, type Logger } from '../util/logger.js';
import { isPlainObject, parsePayload, returnSchema, type Return } from '../protocol/index.js';
import { assertJid, isJid } from '../jobs/jid.js';

/** The few fs calls the queue makes, so tests can inject ENOSPC/EACCES without a full disk. */
export type ReturnQueueFs = Pick<
  typeof nodeFs,
  'mkdirSync' | 'chmodSync' | 'readdirSync' | 'readFileSync' | 'openSync' | 'fchmodSync' | 'writeSync' | 'fsyncSync' | 'closeSync' | 'renameSync' | 'unlinkSync'
>;

export interface ReturnQueueOptions {
  /** return_queue_max: the most returns kept; beyond it the oldest (by jid) is dropped. */
  max: number;
  logger?: Logger;
  /** fsync each file and the directory (default true); off only for tests and benchmarks. */
  fsync?: boolean;
  /** For tests: an fs facade to inject disk errors. */
  fs?: ReturnQueueFs;
  /** Wall clock for `queuedAt` (a Clock fits). */
  clock?: { now(): number };
}

/** What a queued file holds: the Return message exactly as sent, plus when it was queued. */
export type QueuedReturn = Return & { queuedAt: number };

const FILE_SUFFIX = '.json';
const BAD_SUFFIX = '.bad';

export class ReturnQueue {
  /** jid -> queued return; `order` holds the same jids sorted, which is also time order. */
  private readonly entries = new Map<string, { ret: Return; queuedAt: number }>();
  private readonly order: string[] = [];
  /** jids held in memory only because the disk refused them; retried on the next add. */
  private readonly unpersisted = new Set<string>();
  private droppedCount = 0;
  private failures = 0;
  private quarantinedCount = 0;
  private diskFailing = false;
  private readonly logger: Logger;
  private readonly fsync: boolean;
  private readonly fs: ReturnQueueFs;
  private readonly clock: { now(): number };

  private constructor(
    readonly dir: string,
    readonly max: number,
    opts: ReturnQueueOptions,
  ) {
    this.logger = opts.logger ?? silentLogger();
    this.fsync = opts.fsync ?? true;
    this.fs = opts.fs ?? nodeFs;
    this.clock = opts.clock ?? { now: () => Date.now() };
  }

  /**
   * Opens (creating 0700) the queue directory and loads the returns left by a previous run, in
   * jid order. Damaged files are renamed to `.bad` and skipped; a directory that cannot be read
   * leaves an empty queue that keeps trying the disk on each add. Throws only for a bad `max`.
   */
  static open(dir: string, opts: ReturnQueueOptions): ReturnQueue {
    if (!Number.isSafeInteger(opts.max) || opts.max < 1) {
      throw new BrineError('CONFIG_VALUE', `return_queue_max must be a whole number of at least 1, not ${String(opts.max)}`);
    }
    const queue = new ReturnQueue(dir, opts.max, opts);
    queue.load();
    return queue;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Returns dropped because the queue was full (since open, including at load). */
  get dropped(): number {
    return this.droppedCount;
  }

  /** Writes the disk refused; the returns concerned were kept in memory. */
  get persistFailures(): number {
    return this.failures;
  }

  /** Damaged files renamed to `.bad` at open. */
  get quarantined(): number {
    return this.quarantinedCount;
  }

  has(jid: string): boolean {
    return this.entries.has(jid);
  }

  /** The queued returns, oldest jid first (the order to re-send them in). */
  pending(): Return[] {
    return this.order.map((jid) => this.entries.get(jid)!.ret);
  }

  /**
   * Queues a return until a master acknowledges it; a jid already queued is replaced. Disk
   * errors never escape: the return stays in memory and the disk is tried again on the next add.
   * Throws INVALID_JID for a jid that is not a real job time (it would become a file name).
   */
  add(ret: Return): void {
    assertJid(ret.jid);
    const jid = ret.jid;
    const queuedAt = this.clock.now();
    let data: string;
    try {
      data = serialise({ ...ret }, queuedAt);
    } catch (err) {
      throw new BrineError('INTERNAL', `the return of job ${jid} cannot be serialised: ${errorMessage(err)}`, { cause: err });
    }
    if (!this.entries.has(jid) && this.entries.size >= this.max) {
      // full: the oldest of the queued returns plus this one goes
      if (jid < this.order[0]!) {
        this.noteDropped(jid);
        return;
      }
      const oldest = this.order[0]!;
      this.remove(oldest);
      this.noteDropped(oldest);
    }
    if (!this.entries.has(jid)) this.order.splice(this.insertionIndex(jid), 0, jid);
    // a copy, so a caller mutating its object later cannot make memory and disk disagree
    this.entries.set(jid, { ret: { ...ret }, queuedAt });
    this.unpersisted.add(jid);
    this.persist(jid, data);
  }

  /** Forgets a return the master has acknowledged; false if the jid was not queued. */
  ack(jid: string): boolean {
    if (!isJid(jid) || !this.entries.has(jid)) return false;
    this.remove(jid);
    return true;
  }

  // ---- internals -------------------------------------------------------------------------

  private noteDropped(jid: string): void {
    this.droppedCount++;
    this.logger.warn(
      { jid, return_queue_max: this.max, dropped: this.droppedCount },
      `return queue full (return_queue_max=${this.max}): dropped the oldest unacknowledged return ${jid}; raise return_queue_max or check why the master does not acknowledge returns`,
    );
  }

  private remove(jid: string): void {
    this.entries.delete(jid);
    this.unpersisted.delete(jid);
    const i = this.indexOf(jid);
    if (i >= 0) this.order.splice(i, 1);
    // No directory fsync: if the unlink is lost in a crash the return is re-sent and the master
    // ignores the duplicate, which is cheaper than a sync per acknowledgement.
    try {
      this.fs.unlinkSync(this.fileOf(jid));
    } catch (err) {
      if (errCode(err) === 'ENOENT') return;
      this.logger.warn(
        { jid, dir: this.dir, code: errCode(err) },
        `could not delete the queued return ${jid} from ${this.dir}; it will be re-sent after a restart and the master ignores the duplicate`,
      );
    }
  }

  /** Writes this return, then any earlier ones the disk refused; stops at the first failure. */
  private persist(jid: string, data: string): void {
    if (!this.tryWrite(jid, data)) return;
    for (const other of [...this.unpersisted]) {
      const entry = this.entries.get(other)!;
      if (!this.tryWrite(other, serialise(entry.ret, entry.queuedAt))) return;
    }
    if (this.diskFailing) {
      this.diskFailing = false;
      this.logger.info({ dir: this.dir }, `return queue is writing to ${this.dir} again; queued returns will survive a restart`);
    }
  }

  private tryWrite(jid: string, data: string): boolean {
    try {
      this.writeAtomic(jid, data);
    } catch (err) {
      if (errCode(err) !== 'ENOENT') return this.writeFailed(err);
      // the directory vanished (cache cleaned by hand): make it again, once
      try {
        this.makeDir();
        this.writeAtomic(jid, data);
      } catch (again) {
        return this.writeFailed(again);
      }
    }
    this.unpersisted.delete(jid);
    return true;
  }

  private writeFailed(err: unknown): false {
    this.failures++;
    // one error per outage, not one per return: a full disk must not also fill with our logs
    if (!this.diskFailing) {
      this.diskFailing = true;
      const code = errCode(err) ?? String(err);
      this.logger.error(
        { dir: this.dir, code, inMemory: this.unpersisted.size },
        `return queue cannot write to ${this.dir} (${code}): returns are kept in memory only and will not survive a restart until disk space is freed or the directory is writable again; brine retries on the next return`,
      );
    }
    return false;
  }

  private writeAtomic(jid: string, data: string): void {
    writeFileAtomicSync(this.fileOf(jid), data, { mode: 0o600, fsync: this.fsync, fs: this.fs });
  }

  private makeDir(): void {
    this.fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    // returns can carry command output: keep them private even if the directory pre-existed
    ignore(() => this.fs.chmodSync(this.dir, 0o700));
  }

  private load(): void {
    let names: string[];
    try {
      this.makeDir();
      names = this.fs.readdirSync(this.dir);
    } catch (err) {
      this.writeFailed(err);
      return;
    }
    const loaded: string[] = [];
    for (const name of names) {
      if (name.endsWith(ATOMIC_TMP_SUFFIX) && name.startsWith('.')) {
        ignore(() => this.fs.unlinkSync(path.join(this.dir, name))); // a write cut short by a crash
        continue;
      }
      if (!name.endsWith(FILE_SUFFIX)) continue;
      const queued = this.readFile(name);
      if (queued === undefined) continue;
      const { queuedAt, ...ret } = queued;
      this.entries.set(ret.jid, { ret, queuedAt });
      loaded.push(ret.jid);
    }
    this.order.push(...loaded.sort()); // each name is its jid, so this is jid (= time) order
    // return_queue_max may have been lowered since the last run
    while (this.entries.size > this.max) {
      const oldest = this.order[0]!;
      this.remove(oldest);
      this.noteDropped(oldest);
    }
    if (this.entries.size > 0) this.logger.info({ dir: this.dir, count: this.entries.size }, `${this.entries.size} unacknowledged return(s) from a previous run will be re-sent`);
  }

  /** Reads and checks one queued file; anything wrong with it sends it to quarantine. */
  private readFile(name: string): QueuedReturn | undefined {
    const jid = name.slice(0, -FILE_SUFFIX.length);
    const file = path.join(this.dir, name);
    let problem: string | undefined;
    let value: unknown;
    if (!isJid(jid)) problem = 'the file name is not <jid>.json';
    else {
      try {
        value = parsePayload(this.fs.readFileSync(file));
        problem = checkQueued(value, jid);
      } catch (err) {
        problem = errorMessage(err);
      }
    }
    if (problem === undefined) return value as QueuedReturn;
    this.quarantinedCount++;
    const bad = `${file}${BAD_SUFFIX}`;
    try {
      this.fs.renameSync(file, bad);
      this.logger.warn({ file, problem }, `skipped a damaged queued return ${file} (${problem}); moved it to ${bad}, which can be inspected and deleted`);
    } catch (err) {
      this.logger.warn({ file, problem, code: errCode(err) }, `skipped a damaged queued return ${file} (${problem}) and could not move it aside; delete it by hand`);
    }
    return undefined;
  }

  private fileOf(jid: string): string {
    return path.join(this.dir, `${jid}${FILE_SUFFIX}`);
  }

  /** Binary search; jids are fixed-width digits, so string order is time order. */
  private insertionIndex(jid: string): number {
    let lo = 0;
    let hi = this.order.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.order[mid]! < jid) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private indexOf(jid: string): number {
    const i = this.insertionIndex(jid);
    return this.order[i] === jid ? i : -1;
  }
}

function serialise(ret: Return, queuedAt: number): string {
  const queued: QueuedReturn = { ...ret, queuedAt };
  return JSON.stringify(queued);
}

function checkQueued(value: unknown, jid: string): string | undefined {
  if (!isPlainObject(value)) return 'not a JSON object';
  const problem = returnSchema.check(value, 'return');
  if (problem) return problem;
  if (value.jid !== jid) return `it holds jid ${String(value.jid)}, not the one in its name`;
  const at = value.queuedAt;
  if (typeof at !== 'number' || !Number.isFinite(at)) return 'queuedAt is missing';
  return undefined;
}

function errCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

function ignore(fn: () => void): void {
  try {
    fn();
  } catch {
    // best effort
  }
}
