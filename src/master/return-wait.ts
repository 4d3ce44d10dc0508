// How long the master waits for each minion's return (salt-reference §5.4, asked over the session
// instead of broadcast): when `timeout` runs out, every minion still missing is asked whether it
// still runs the job; "running" extends that minion's wait by `timeout`, "not running" or no
// answer within `gather_job_timeout` gives up on it ([No response]).

import type { Clock, TimerHandle } from '../util/clock.js';

export interface ReturnWaitHost {
  /** Sends find_job to the minion; false when it has no live session to ask over. */
  askStatus(minion: string): boolean;
  /** Called once: every minion returned or was given up on (those are listed, sorted). */
  onDone(noResponse: string[]): void;
}

export interface ReturnWaitOptions {
  /** The job's `timeout`: the first wait, and each extension while a minion says it runs the job. */
  timeoutMs: number;
  /** `gather_job_timeout`: how long a minion has to answer find_job. */
  gatherMs: number;
}

interface Pending {
  /** Asked and not yet answered. */
  asking: boolean;
  /** This minion's own deadline or answer window, once it differs from the shared first one. */
  timer: TimerHandle | undefined;
}

export class ReturnWait {
  private readonly pending = new Map<string, Pending>();
  private readonly gaveUp: string[] = [];
  private firstTimer: TimerHandle | undefined;
  private done = false;

  constructor(
    private readonly clock: Clock,
    minions: Iterable<string>,
    private readonly opts: ReturnWaitOptions,
    private readonly host: ReturnWaitHost,
  ) {
    for (const m of minions) this.pending.set(m, { asking: false, timer: undefined });
  }

  /** Starts the clock; with nobody to wait for, ends at once. */
  start(): void {
    if (this.pending.size === 0) {
      this.finish();
      return;
    }
    // one shared timer for the first deadline: a 10k-minion job does not need 10k timers
    this.firstTimer = this.clock.setTimeout(() => {
      this.firstTimer = undefined;
      for (const m of [...this.pending.keys()]) this.ask(m);
    }, this.opts.timeoutMs);
  }

  /** Still waited for (neither returned nor given up on). */
  has(minion: string): boolean {
    return this.pending.has(minion);
  }

  get waiting(): string[] {
    return [...this.pending.keys()];
  }

  /** The minion's return arrived; true if it was still waited for. */
  returned(minion: string): boolean {
    const p = this.pending.get(minion);
    if (!p) return false;
    p.timer?.cancel();
    this.pending.delete(minion);
    this.checkDone();
    return true;
  }

  /** The minion's answer to find_job. Unasked answers are ignored. */
  status(minion: string, running: boolean): void {
    const p = this.pending.get(minion);
    if (!p?.asking) return;
    p.asking = false;
    p.timer?.cancel();
    if (!running) {
      // it is not running the job and its return, sent before this answer, is not here: none will come
      this.giveUp(minion);
      return;
    }
    p.timer = this.clock.setTimeout(() => this.ask(minion), this.opts.timeoutMs);
  }

  /**
   * The minion's session closed. One that was being asked cannot answer over it: ask again over
   * its new session if it reconnected already, else give up now rather than at the window's end.
   */
  lost(minion: string): void {
    const p = this.pending.get(minion);
    if (!p?.asking) return;
    p.timer?.cancel();
    p.asking = false;
    this.ask(minion);
  }

  /** Ends the wait now, giving up on everyone still missing (master shutdown, cancel). */
  cancel(): void {
    this.firstTimer?.cancel();
    for (const m of [...this.pending.keys()]) this.giveUp(m, false);
    this.checkDone();
  }

  private ask(minion: string): void {
    const p = this.pending.get(minion);
    if (!p || this.done) return;
    if (!this.host.askStatus(minion)) {
      // disconnected since the job was sent: its return may come after a reconnect (jobs show)
      this.giveUp(minion);
      return;
    }
    p.asking = true;
    p.timer = this.clock.setTimeout(() => this.giveUp(minion), this.opts.gatherMs);
  }

  private giveUp(minion: string, check = true): void {
    const p = this.pending.get(minion);
    if (!p) return;
    p.timer?.cancel();
    this.pending.delete(minion);
    this.gaveUp.push(minion);
    if (check) this.checkDone();
  }

  private checkDone(): void {
    if (this.pending.size === 0) this.finish();
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.firstTimer?.cancel();
    this.host.onDone([...this.gaveUp].sort());
  }
}
