// A token bucket on an injected clock: `rate` tokens per second up to `capacity`. Used for
// sign-ins per source address and messages per minion session.

import type { Clock } from './clock.js';

export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly clock: Clock,
    readonly rate: number,
    readonly capacity: number,
  ) {
    this.tokens = capacity;
    this.last = clock.monotonic();
  }

  /** Tokens available now (refilled for the time since the last call). */
  available(): number {
    const now = this.clock.monotonic();
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.last) / 1000) * this.rate);
    this.last = now;
    return this.tokens;
  }

  /** Takes one token if there is one. */
  take(): boolean {
    if (this.available() < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Takes one token even when empty, down to -capacity: a penalty the peer must wait out. */
  charge(): void {
    this.tokens = Math.max(-this.capacity, this.available() - 1);
  }

  /** True when the bucket is full again (nothing to remember about its owner). */
  get full(): boolean {
    return this.available() >= this.capacity;
  }

  /** Seconds until one token is available. */
  secondsUntilToken(): number {
    const missing = 1 - this.available();
    return missing <= 0 ? 0 : missing / this.rate;
  }
}
