// One state run at a time on this machine (Salt's "The function state.apply is running as PID
// ..."), written once for the minion's job runner and for `brine call`: first the lock of this
// process (the runs it knows), then <cachedir>/state-run.lock shared with other processes. A
// refused run gets the holder; queue=True waits in arrival order, and for another process's run
// looks at the file again every STATE_LOCK_POLL_MS on the injected clock.

import type { Clock } from '../util/clock.js';
import type { RunningJobInfo } from '../modules/index.js';
import { StateLockFile, holderInfo, type StateLockHolder } from '../state/state-lock-file.js';

/** How often a queued state run looks at a lock file held by another process. */
export const STATE_LOCK_POLL_MS = 250;

/** A state run asking for the lock. */
export interface StateLockClaim {
  jid: string;
  fun: string;
  /** ISO 8601. */
  started: string;
  /** What a refused run is told about this holder (saltutil.running's view: the live pid). */
  describe(): RunningJobInfo;
}

export type StateLockOutcome =
  | { held: true }
  /** `aborted`: the waiter gave up (killed, interrupted); else refused (no queue=True). */
  | { held: false; holder: RunningJobInfo; aborted: boolean };

export interface StateRunLockOptions {
  clock: Clock;
  /** Where the lock file shared with other processes lives; absent = this process only. */
  cachedir?: string;
  /**
   * A lock file that cannot be written or removed is reported here, and the run goes on with
   * the lock of this process only; without it the error is thrown (and nothing stays held).
   */
  onFileError?: (err: unknown, doing: 'take' | 'release', claim: StateLockClaim) => void;
  pollMs?: number;
}

interface Waiter {
  claim: StateLockClaim;
  wake: () => void;
}

export class StateRunLock {
  private holderValue: StateLockClaim | undefined;
  private readonly waiters: Waiter[] = [];
  private file: StateLockFile | undefined;
  /** The claim whose run wrote the lock file (the in-process holder, or nobody). */
  private fileHolder: StateLockClaim | undefined;

  constructor(private readonly opts: StateRunLockOptions) {}

  /** The run holding the lock in this process: a query, it takes nothing. */
  get holder(): StateLockClaim | undefined {
    return this.holderValue;
  }

  /** Runs waiting (queue=True) in this process for the lock, in arrival order. */
  get waiting(): number {
    return this.waiters.length;
  }

  /**
   * Takes the lock for `claim`, or tells who holds it. When this process holds no lock the
   * in-process part is taken before the first await, so runs keep the order they arrived in.
   * All or nothing: an outcome other than `held` leaves nothing held.
   */
  async acquire(claim: StateLockClaim, o: { queue: boolean; signal?: AbortSignal }): Promise<StateLockOutcome> {
    const current = this.holderValue;
    const inProcess = current === undefined ? this.take(claim) : await this.waitInProcess(current, claim, o.queue, o.signal);
    if (inProcess !== undefined) return inProcess;
    let fromFile: StateLockOutcome;
    try {
      fromFile = await this.takeFile(claim, o.queue, o.signal);
    } catch (err) {
      this.handOver(claim);
      throw err;
    }
    if (!fromFile.held) this.handOver(claim);
    return fromFile;
  }

  /** Gives the lock up if `claim` holds it; the next waiter of this process gets it. */
  release(claim: StateLockClaim): void {
    try {
      if (this.fileHolder === claim) {
        this.fileHolder = undefined;
        this.fileError('release', claim, () => this.file?.release({ jid: claim.jid, pid: process.pid }));
      }
    } finally {
      this.handOver(claim);
    }
  }

  private take(claim: StateLockClaim): undefined {
    this.holderValue = claim;
    return undefined;
  }

  /** Refused without queue=True; else waits for its turn, undefined once handed the lock. */
  private async waitInProcess(holder: StateLockClaim, claim: StateLockClaim, queue: boolean, signal: AbortSignal | undefined): Promise<StateLockOutcome | undefined> {
    if (!queue) return { held: false, holder: holder.describe(), aborted: false };
    const waiter: Waiter = { claim, wake: () => undefined };
    await new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const onAbort = (): void => resolve();
      waiter.wake = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
    if (this.holderValue === claim && !signal?.aborted) return undefined;
    // gave up: out of the line, or handed the lock in the same tick and passing it on
    const i = this.waiters.indexOf(waiter);
    if (i >= 0) this.waiters.splice(i, 1);
    this.handOver(claim);
    return { held: false, holder: (this.holderValue ?? holder).describe(), aborted: true };
  }

  private async takeFile(claim: StateLockClaim, queue: boolean, signal: AbortSignal | undefined): Promise<StateLockOutcome> {
    const { cachedir } = this.opts;
    if (cachedir === undefined) return { held: true };
    const me: StateLockHolder = { jid: claim.jid, pid: process.pid, fun: claim.fun, started: claim.started };
    for (;;) {
      let holder: StateLockHolder | undefined;
      const failed = this.fileError('take', claim, () => {
        this.file ??= new StateLockFile(cachedir);
        holder = this.file.tryAcquire(me);
      });
      // an unwritable cachedir must not stop state runs: the lock of this process still holds
      if (failed) return { held: true };
      if (holder === undefined) {
        this.fileHolder = claim;
        return { held: true };
      }
      if (!queue) return { held: false, holder: holderInfo(holder), aborted: false };
      if (!(await this.pause(signal))) return { held: false, holder: holderInfo(holder), aborted: true };
    }
  }

  /** Runs `fn`; a failure goes to onFileError (true returned) or is thrown. */
  private fileError(doing: 'take' | 'release', claim: StateLockClaim, fn: () => void): boolean {
    try {
      fn();
      return false;
    } catch (err) {
      if (!this.opts.onFileError) throw err;
      this.opts.onFileError(err, doing, claim);
      return true;
    }
  }

  /** One poll interval on the clock; false when the waiter gave up meanwhile. */
  private pause(signal: AbortSignal | undefined): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      if (signal?.aborted) return resolve(false);
      const onAbort = (): void => {
        timer.cancel();
        resolve(false);
      };
      const timer = this.opts.clock.setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve(true);
      }, this.opts.pollMs ?? STATE_LOCK_POLL_MS);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** If `claim` holds the lock of this process, the first waiter gets it. */
  private handOver(claim: StateLockClaim): void {
    if (this.holderValue !== claim) return;
    const next = this.waiters.shift();
    this.holderValue = next?.claim;
    next?.wake();
  }
}
