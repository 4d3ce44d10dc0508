// Admission control for sign-ins: a token bucket at `auth_rate` per second, so that thousands of
// minions returning after a master restart are admitted at a bounded rate instead of an auth
// storm, and one bucket per source address at `auth_rate_per_source`, so that one peer flooding
// hellos (valid or not) cannot spend the whole `auth_rate` (threats.md #25). A minion turned
// away is told to come back after a jittered delay.

import type { Clock } from '../util/clock.js';
import { TokenBucket } from '../util/token-bucket.js';

/** Why a sign-in was turned away: its source is over its own rate, or the master over auth_rate. */
export type AdmissionRefusal = 'source' | 'global';

/** Source buckets remembered at most; full (idle) ones are forgotten first. */
const MAX_SOURCES = 10_000;

export class AuthAdmission {
  private readonly global: TokenBucket;
  private readonly sources = new Map<string, TokenBucket>();
  /** Minions turned away in the current second, to size the retry delay. */
  private busyWindowStart = 0;
  private busyInWindow = 0;
  /** Every sign-in turned away since start. */
  turnedAway = 0;

  constructor(
    private readonly clock: Clock,
    private readonly ratePerSecond: number,
    private readonly random: () => number = Math.random,
    private readonly perSourceRate: number = Infinity,
  ) {
    this.global = new TokenBucket(clock, ratePerSecond, ratePerSecond);
  }

  /** True when a sign-in (from `source`, if given) may proceed now. */
  tryAdmit(source?: string): boolean {
    return this.admit(source) === undefined;
  }

  /** undefined when a sign-in may proceed now; otherwise which limit turned it away. */
  admit(source?: string): AdmissionRefusal | undefined {
    const now = this.clock.monotonic();
    const bucket = source === undefined ? undefined : this.sourceBucket(source);
    if (bucket && bucket.available() < 1) {
      this.noteBusy(now);
      return 'source';
    }
    if (this.global.take()) {
      bucket?.take();
      return undefined;
    }
    this.noteBusy(now);
    return 'global';
  }

  /**
   * Counts a failed attempt from `source` that never reached admission (a malformed or
   * unexpected first message): it spends that source's sign-in budget all the same.
   */
  charge(source: string): void {
    this.sourceBucket(source)?.charge();
  }

  /**
   * Seconds a turned-away minion should wait: spread over the time the current backlog needs at
   * the admission rate, so the retries do not arrive together.
   */
  retryAfterSeconds(): number {
    const backlogSeconds = Math.min(30, Math.max(1, this.busyInWindow / this.ratePerSecond));
    return Math.round((0.5 + this.random() * backlogSeconds) * 1000) / 1000;
  }

  /** Seconds a source over its own rate should wait: until it has a token, plus jitter. */
  sourceRetryAfterSeconds(source: string): number {
    const wait = this.sources.get(source)?.secondsUntilToken() ?? 0;
    return Math.round((wait + 0.5 + this.random()) * 1000) / 1000;
  }

  private noteBusy(now: number): void {
    if (now - this.busyWindowStart > 1000) {
      this.busyWindowStart = now;
      this.busyInWindow = 0;
    }
    this.busyInWindow++;
    this.turnedAway++;
  }

  private sourceBucket(source: string): TokenBucket | undefined {
    if (!Number.isFinite(this.perSourceRate)) return undefined;
    let bucket = this.sources.get(source);
    if (!bucket) {
      if (this.sources.size >= MAX_SOURCES) this.forgetIdle();
      bucket = new TokenBucket(this.clock, this.perSourceRate, Math.max(1, this.perSourceRate));
      this.sources.set(source, bucket);
    }
    return bucket;
  }

  /** Drops buckets that are full again; if none is, the oldest half (a spray of addresses). */
  private forgetIdle(): void {
    for (const [source, bucket] of this.sources) if (bucket.full) this.sources.delete(source);
    if (this.sources.size < MAX_SOURCES) return;
    let drop = this.sources.size / 2;
    for (const source of this.sources.keys()) {
      if (drop-- <= 0) break;
      this.sources.delete(source);
    }
  }
}
