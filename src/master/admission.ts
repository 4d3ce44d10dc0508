// Admission control for sign-ins: a token bucket at `auth_rate` per second, so that thousands of
// minions returning after a master restart are admitted at a bounded rate instead of an auth
// storm. A minion turned away is told to come back after a jittered delay.

import type { Clock } from '../util/clock.js';

export class AuthAdmission {
  private tokens: number;
  private last: number;
  /** Minions turned away in the current second, to size the retry delay. */
  private busyWindowStart = 0;
  private busyInWindow = 0;
  /** Every sign-in turned away since start. */
  turnedAway = 0;

  constructor(
    private readonly clock: Clock,
    private readonly ratePerSecond: number,
    private readonly random: () => number = Math.random,
  ) {
    this.tokens = ratePerSecond;
    this.last = clock.monotonic();
  }

  /** True when a sign-in may proceed now. */
  tryAdmit(): boolean {
    const now = this.clock.monotonic();
    this.tokens = Math.min(this.ratePerSecond, this.tokens + ((now - this.last) / 1000) * this.ratePerSecond);
    this.last = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    if (now - this.busyWindowStart > 1000) {
      this.busyWindowStart = now;
      this.busyInWindow = 0;
    }
    this.busyInWindow++;
    this.turnedAway++;
    return false;
  }

  /**
   * Seconds a turned-away minion should wait: spread over the time the current backlog needs at
   * the admission rate, so the retries do not arrive together.
   */
  retryAfterSeconds(): number {
    const backlogSeconds = Math.min(30, Math.max(1, this.busyInWindow / this.ratePerSecond));
    return Math.round((0.5 + this.random() * backlogSeconds) * 1000) / 1000;
  }
}
