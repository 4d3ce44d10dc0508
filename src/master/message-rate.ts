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

/** A gap this long without a dropped message ends a period over the limit. */
const CALM_MS = 1000;

export class MessageRateLimiter {
  private readonly bucket: TokenBucket;
  private lastDropAt = -Infinity;
  /** When the current unbroken period of dropped messages began. */
  private overSince = 0;
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
    const now = this.clock.monotonic();
    // measured from the first drop, not in calendar seconds, so the grace is the same whenever
    // within a second the excess starts
    if (now - this.lastDropAt > CALM_MS) this.overSince = now;
    this.lastDropAt = now;
    return now - this.overSince >= this.settings.graceSeconds * 1000 ? 'disconnect' : 'drop';
  }
}
