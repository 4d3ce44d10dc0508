// Pre-auth refusals in summary (issue 8 point 4): a peer that hammers the port must not turn
// the master's log into one line per attempt. Each source address gets a few full lines per
// interval (and the first refusal of each reason its own line); after that its refusals are
// counted and reported as one summary line when the count reaches 10, 100, 1000, ... and once
// more when the interval ends, always naming the address.

import type { Clock, TimerHandle } from '../util/clock.js';
import type { Logger } from '../util/logger.js';

export interface RefusalLogOptions {
  intervalMs: number;
  /** Full lines per source address and interval before counting starts. */
  fullLinesPerSource: number;
  /** Full lines per interval over all sources (a spray of addresses). */
  fullLinesTotal: number;
  /** Sources tracked per interval; the rest are counted under "other addresses". */
  maxSources: number;
}

const DEFAULTS: RefusalLogOptions = { intervalMs: 60_000, fullLinesPerSource: 20, fullLinesTotal: 200, maxSources: 1000 };
const OTHER = 'other addresses';
/** Below this many counted refusals an address shares one summary line with the others. */
const FEW = 10;

interface SourceTally {
  logged: number;
  suppressed: number;
  reported: number;
  nextReport: number;
  reasons: Map<string, number>;
  /** Reasons that had a full line this interval. */
  fullReasons: Set<string>;
}

export class RefusalLog {
  /** Its name in the master's feature list (stopped there, after the servers that note refusals). */
  readonly name = 'refusals';
  private readonly opts: RefusalLogOptions;
  private tallies = new Map<string, SourceTally>();
  private loggedTotal = 0;
  private windowStart: number;
  private readonly timer: TimerHandle;

  constructor(
    private readonly logger: Logger,
    private readonly clock: Clock,
    opts: Partial<RefusalLogOptions> = {},
  ) {
    this.opts = { ...DEFAULTS, ...opts };
    this.windowStart = clock.monotonic();
    this.timer = clock.setInterval(() => this.endInterval(), this.opts.intervalMs);
  }

  /** A refusal of a connection from `source` for `reason`; `logFull` writes its own full line. */
  note(source: string, reason: string, logFull: () => void): void {
    let tally = this.tallies.get(source);
    if (!tally) {
      const key = this.tallies.size >= this.opts.maxSources ? OTHER : source;
      tally = this.tallies.get(key) ?? { logged: 0, suppressed: 0, reported: 0, nextReport: 10, reasons: new Map(), fullReasons: new Set() };
      this.tallies.set(key, tally);
      source = key;
    }
    // the first refusal of each reason gets its full line even past the per-source budget: a
    // noisy reason (pending minions retrying from one NAT address) must not hide a rare one (a
    // second machine presenting an accepted ID) for the rest of the interval
    const firstOfReason = !tally.reasons.has(reason) && !tally.fullReasons.has(reason);
    if ((tally.logged < this.opts.fullLinesPerSource || firstOfReason) && this.loggedTotal < this.opts.fullLinesTotal && source !== OTHER) {
      tally.fullReasons.add(reason);
      tally.logged++;
      this.loggedTotal++;
      logFull();
      return;
    }
    tally.suppressed++;
    tally.reasons.set(reason, (tally.reasons.get(reason) ?? 0) + 1);
    if (tally.suppressed >= tally.nextReport) {
      tally.nextReport *= 10;
      this.report(source, tally);
    }
  }

  /** Reports what is still unreported and stops the interval timer. */
  stop(): void {
    this.timer.cancel();
    this.endInterval();
  }

  private endInterval(): void {
    // a few refusals each from many addresses (a fleet told busy after a master restart) make
    // one line together; an address with its own flood keeps its own line
    const few = { sources: 0, refused: 0, reasons: new Map<string, number>() };
    for (const [source, tally] of this.tallies) {
      if (tally.suppressed <= tally.reported) continue;
      if (tally.suppressed >= FEW || source === OTHER) {
        this.report(source, tally);
        continue;
      }
      few.sources++;
      few.refused += tally.suppressed;
      for (const [r, n] of tally.reasons) few.reasons.set(r, (few.reasons.get(r) ?? 0) + n);
    }
    if (few.sources > 0) {
      const seconds = Math.max(1, Math.round((this.clock.monotonic() - this.windowStart) / 1000));
      this.logger.warn(
        { sources: few.sources, refused: few.refused, reasons: Object.fromEntries(few.reasons), seconds },
        `refused ${few.refused} more connection attempts from ${few.sources} addresses (fewer than ${FEW} each) before authentication in the last ${seconds} s (${[...few.reasons].map(([r, n]) => `${r} ${n}`).join(', ')})`,
      );
    }
    this.tallies = new Map();
    this.loggedTotal = 0;
    this.windowStart = this.clock.monotonic();
  }

  private report(source: string, tally: SourceTally): void {
    tally.reported = tally.suppressed;
    const seconds = Math.max(1, Math.round((this.clock.monotonic() - this.windowStart) / 1000));
    const reasons = Object.fromEntries(tally.reasons);
    const list = [...tally.reasons].map(([r, n]) => `${r} ${n}`).join(', ');
    const advice =
      source === OTHER
        ? `more than ${this.opts.maxSources} addresses were refused in this interval; see the lines above for the busiest`
        : `logged in summary from now on. If ${source} is not one of your minions, block it in the firewall`;
    this.logger.warn(
      { source, refused: tally.suppressed, reasons, seconds },
      `refused ${tally.suppressed} more connection attempts from ${source} before authentication in the last ${seconds} s (${list}); ${advice}`,
    );
  }
}
