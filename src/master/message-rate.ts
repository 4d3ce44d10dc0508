// Per-session message rate limit for authenticated minions (threats.md #26): a token bucket at
// `minion_msg_rate` per second with `minion_msg_burst` on top. Messages over it are dropped
// unread (an unacknowledged return is resent by the minion later) and counted; a minion that
// is still over the limit after `minion_msg_grace` consecutive seconds is disconnected.

import type { Clock } from '../util/clock.js';
import { TokenBucket } from '../util/token-bucket.js';

export interface MessageRateSettings {
  ratePerSecond: number;
  burst: number;
  /** Consecutive seconds with dropped messages tolerated before the disconnect. */
  graceSeconds: number;
}

/** ok: handle it; drop: ignore it (counted); disconnect: the minion kept exceeding the limit. */
export type RateVerdict = 'ok' | 'drop' | 'disconnect';

export class MessageRateLimiter {
  private readonly bucket: TokenBucket;
  private lastDropSecond = -Infinity;
  private overSeconds = 0;
  /** Messages dropped since the session started. */
  dropped = 0;

  constructor(
    private readonly clock: Clock,
    readonly settings: MessageRateSettings,
  ) {
    this.bucket = new TokenBucket(clock, settings.ratePerSecond, settings.burst);
  }

  check(): RateVerdict {
    if (this.bucket.take()) return 'ok';
    this.dropped++;
    const second = Math.floor(this.clock.monotonic() / 1000);
    if (second !== this.lastDropSecond) {
      // a second without drops in between starts the count again
      this.overSeconds = second === this.lastDropSecond + 1 ? this.overSeconds + 1 : 1;
      this.lastDropSecond = second;
    }
    return this.overSeconds > this.settings.graceSeconds ? 'disconnect' : 'drop';
  }

  /** Consecutive seconds (so far) in which messages were dropped. */
  get secondsOver(): number {
    return this.overSeconds;
  }
}
