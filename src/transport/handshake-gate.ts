// Pacing of TLS handshakes on the master's port (issue 12, the reconnect storm). At most
// `concurrency` handshakes run at once. A brine dialer asks before TLS (the door, see
// door-protocol.ts); it is let in at once when a slot is free, held briefly when one will be free
// soon, and otherwise told to come back at a time reserved for it, so a mass reconnect spreads
// itself over what the master can actually do instead of collapsing into handshake timeouts.
// Turning a minion away costs an accept, a dozen bytes and a close, not a handshake.
//
// Pure bookkeeping driven by a Clock: the listener owns the sockets and calls in.

import type { Clock } from '../util/clock.js';

export interface HandshakeGateOptions {
  /**
   * Handshakes in flight at most; 0 turns pacing off (everything goes at once). The gate starts
   * lower and adapts between a few and this: down on failed sign-ins and on slow ones while the
   * master is busy, up while it has time to spare.
   */
  concurrency: number;
  /**
   * Handshakes slower than this on average shrink the limit while the master itself is busy
   * (see `loadSample`), ms.
   */
  targetHandshakeMs?: number;
  /**
   * The master's event-loop utilisation (0..1) since the previous call, sampled once a window.
   * Slow sign-ins on a master with time to spare are the peers' or the network's doing: more at
   * once does not slow the master, and fewer would not speed them up, so then only failed
   * sign-ins shrink the limit. Without it every slow window counts as the master's.
   */
  loadSample?: () => number;
  /**
   * The most handshakes started per second (the master's auth_rate: sign-ins beyond it would be
   * turned away after TLS anyway), with a second's worth as burst; also the rate assumed before
   * any were measured, and the most ever planned with.
   */
  maxRatePerSecond: number;
  /** Longest a brine dialer is held waiting for a slot before it is told to come back, ms. */
  maxHoldMs: number;
  /** Longest a dialer that cannot be told to come back (plain TLS) waits for a slot, ms. */
  legacyWaitMs: number;
}

/** What the gate tells the listener to do with a waiting connection. */
export interface GateCallbacks<T> {
  /** Start this connection's handshake now (it holds a slot until `done`). */
  grant(item: T): void;
  /** Tell this brine dialer to come back in `retryAfterMs` and let it go. */
  turnAway(item: T, retryAfterMs: number): void;
  /** A plain TLS dialer waited `legacyWaitMs` without a slot: drop it. */
  expire(item: T): void;
}

interface Waiter<T> {
  item: T;
  /** Monotonic ms after which it is answered another way. */
  deadline: number;
  /** A brine dialer (can be turned away) or plain TLS (can only wait or be dropped). */
  door: boolean;
  gone: boolean;
}

export interface GateTicket {
  /** The connection closed while waiting: forget it. No effect once granted. */
  cancel(): void;
}

/** The request was granted at once, queued (answer later through the callbacks) or turned away. */
export type GateAnswer = { kind: 'go' } | { kind: 'queued'; ticket: GateTicket } | { kind: 'busy'; retryAfterMs: number };

/** Sweeps shorter than this measure nothing useful about the rate. */
const RATE_WINDOW_MS = 1000;
/** The adaptive limit starts here (or at the configured concurrency, if lower) and never goes below MIN_LIMIT. */
const START_LIMIT = 32;
const MIN_LIMIT = 4;
const DEFAULT_TARGET_MS = 1000;
/** A master whose event loop was busy at least this share of a window is the bottleneck. */
const BUSY_LOAD = 0.85;
/** Below this, a full gate with sign-ins that still finish in time may grow. */
const SPARE_LOAD = 0.6;
/** The rate is never assumed below this (a master that does less is broken, not busy). */
const MIN_RATE = 20;

export class HandshakeGate<T> {
  private inFlight = 0;
  private readonly queue: Waiter<T>[] = [];
  private head = 0;
  /** Handshakes per second the master managed while saturated (EWMA). */
  private rate: number;
  /** Sign-in time, grant to signed in (EWMA of completed ones), ms; 0 before the first. */
  private latencyMs = 0;
  /** The master's event loop had time to spare in the last window (see `loadSample`). */
  private spare = false;
  /** Monotonic ms up to which come-back times have been handed out. */
  private reservedUntil = 0;
  private windowStart: number;
  private windowDone = 0;
  private windowSweeps = 0;
  private windowSaturated = 0;
  private windowDurationSum = 0;
  private windowDurations = 0;
  /** Granted sign-ins that failed (the dialer gave up, TLS broke) in this window. */
  private windowFailed = 0;
  /** Handshakes allowed in flight now (adapted within [MIN_LIMIT, concurrency]). */
  private limit: number;
  /** Dialers turned away since start. */
  turnedAway = 0;
  /** Handshakes that may start now under maxRatePerSecond (a token bucket, a second's worth deep). */
  private tokens: number;
  private tokensAt: number;

  constructor(
    private readonly clock: Clock,
    private readonly opts: HandshakeGateOptions,
    private readonly callbacks: GateCallbacks<T>,
    private readonly random: () => number = Math.random,
  ) {
    this.rate = opts.maxRatePerSecond;
    this.tokens = Math.max(1, opts.maxRatePerSecond);
    this.tokensAt = clock.monotonic();
    this.windowStart = clock.monotonic();
    this.limit = Math.min(opts.concurrency, START_LIMIT);
  }

  /** Handshakes the gate lets run at once now. */
  get currentLimit(): number {
    return this.limit;
  }

  get handshakesInFlight(): number {
    return this.inFlight;
  }

  get waiting(): number {
    return this.queue.length - this.head;
  }

  /**
   * The handshake rate the gate plans with, per second: what it managed while saturated, or, on
   * a master with time to spare, what its current limit allows at the sign-in time it measures
   * (Little's law: slots / time a slot is held), whichever is more. The second follows the limit
   * up: a rate learned while the peers were slow must not keep spreading come-back times out
   * after the limit has grown, leaving the gate empty while minions wait for their turn.
   */
  get plannedRate(): number {
    if (!this.spare || this.latencyMs <= 0) return this.rate;
    const capacity = (this.limit * 1000) / this.latencyMs;
    return Math.min(this.opts.maxRatePerSecond, Math.max(this.rate, capacity));
  }

  /**
   * A connection asks to start its handshake. `door` marks a brine dialer that said how long it
   * waits (`patienceMs`); plain TLS dialers cannot be told anything, so they only queue.
   */
  request(item: T, door: boolean, patienceMs = Number.POSITIVE_INFINITY): GateAnswer {
    if (this.opts.concurrency <= 0) {
      this.inFlight++;
      return { kind: 'go' };
    }
    const now = this.clock.monotonic();
    if (this.inFlight < this.limit && this.waiting === 0 && this.takeToken(now)) {
      this.inFlight++;
      return { kind: 'go' };
    }
    // held at most a quarter of its patience: the rest is for TLS and the sign-in on a slow day
    const hold = door ? Math.min(this.opts.maxHoldMs, patienceMs / 4) : this.opts.legacyWaitMs;
    // expected wait: everyone ahead, at the rate the master manages
    const expectedMs = ((this.waiting + 1) * 1000) / this.plannedRate;
    if (door && expectedMs > hold) return { kind: 'busy', retryAfterMs: this.reserve(now) };
    const waiter: Waiter<T> = { item, deadline: now + hold, door, gone: false };
    this.queue.push(waiter);
    return {
      kind: 'queued',
      ticket: {
        cancel: () => {
          waiter.gone = true;
        },
      },
    };
  }

  /**
   * A granted handshake ended (up, failed or closed) after `durationMs`: its slot goes to the next
   * in line. Only handshakes that came up count towards the rate and the adaptive limit.
   */
  done(durationMs?: number): void {
    if (this.inFlight > 0) this.inFlight--;
    if (durationMs !== undefined) {
      this.latencyMs = this.latencyMs > 0 ? 0.9 * this.latencyMs + 0.1 * durationMs : durationMs;
      this.windowDone++;
      this.windowDurationSum += durationMs;
      this.windowDurations++;
    }
    this.grantWaiting();
  }

  /**
   * A granted sign-in failed (typically: the dialer gave up waiting for it, its work thrown
   * away). More than a few of those in a window shrink the limit like slow ones do.
   */
  failed(): void {
    if (this.inFlight > 0) this.inFlight--;
    this.windowFailed++;
    this.grantWaiting();
  }

  /**
   * Called every ~100 ms: answers waiters past their deadline and measures the rate. A waiter
   * held past its deadline means the estimate was too hopeful, so it gets a reserved time.
   */
  sweep(): void {
    const now = this.clock.monotonic();
    // waiters held back by the rate alone go as the bucket refills
    this.grantWaiting();
    this.windowSweeps++;
    if (this.opts.concurrency > 0 && this.inFlight >= this.limit) this.windowSaturated++;
    if (now - this.windowStart >= RATE_WINDOW_MS) this.measure(now);
    this.compact();
    for (let i = this.head; i < this.queue.length; i++) {
      const w = this.queue[i]!;
      if (w.gone || w.deadline > now) continue;
      w.gone = true;
      if (w.door) {
        this.callbacks.turnAway(w.item, this.reserve(now));
      } else this.callbacks.expire(w.item);
    }
  }

  /** A come-back time for one dialer: after everything already promised, one slot's worth apart. */
  private reserve(now: number): number {
    const slotMs = 1000 / this.plannedRate;
    // those waiting and in flight come first
    const backlogMs = (this.waiting + this.inFlight) * slotMs;
    this.reservedUntil = Math.max(this.reservedUntil, now + backlogMs) + slotMs;
    this.turnedAway++;
    // a little jitter so that clock skew between minions does not line them up again
    const ms = (this.reservedUntil - now) * (0.95 + 0.1 * this.random());
    return Math.max(50, Math.round(ms));
  }

  /** One start under maxRatePerSecond, if the bucket has one. */
  private takeToken(now: number): boolean {
    const most = Math.max(1, this.opts.maxRatePerSecond);
    this.tokens = Math.min(most, this.tokens + ((now - this.tokensAt) * this.opts.maxRatePerSecond) / 1000);
    this.tokensAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  private grantWaiting(): void {
    const now = this.clock.monotonic();
    while (this.head < this.queue.length && (this.opts.concurrency <= 0 || this.inFlight < this.limit)) {
      const w = this.queue[this.head]!;
      if (w.gone) {
        this.head++;
        continue;
      }
      if (this.opts.concurrency > 0 && !this.takeToken(now)) break;
      this.head++;
      w.gone = true;
      this.inFlight++;
      this.callbacks.grant(w.item);
    }
    this.compact();
  }

  /** Drops answered waiters from the front so the array does not grow without bound. */
  private compact(): void {
    while (this.head < this.queue.length && this.queue[this.head]!.gone) this.head++;
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
  }

  /**
   * Once a window: the handshake rate, learned only from windows in which the gate was mostly
   * full, and the limit. Failed sign-ins (dialers giving up, their work thrown away) always
   * shrink it. Slow ones shrink it only while the master's event loop is busy: then more at once
   * only makes each slower. Slow sign-ins on a master with time to spare are the peers' doing
   * (a starved client, a long path), so there the limit may grow while they still finish well
   * within a dialer's patience; fast ones while the gate is full always let it grow.
   */
  private measure(now: number): void {
    const elapsed = now - this.windowStart;
    const saturated = this.windowSweeps > 0 && this.windowSaturated / this.windowSweeps >= 0.8;
    if (saturated && this.windowDone > 0) {
      const sample = (this.windowDone * 1000) / elapsed;
      const next = 0.5 * this.rate + 0.5 * sample;
      this.rate = Math.min(this.opts.maxRatePerSecond, Math.max(MIN_RATE, next));
    }
    const load = this.opts.loadSample?.();
    this.spare = load !== undefined && load < SPARE_LOAD;
    if ((this.windowDurations > 0 || this.windowFailed > 0) && this.opts.concurrency > 0) {
      const mean = this.windowDurations > 0 ? this.windowDurationSum / this.windowDurations : 0;
      const target = this.opts.targetHandshakeMs ?? DEFAULT_TARGET_MS;
      const floor = Math.min(MIN_LIMIT, this.opts.concurrency);
      const failing = this.windowFailed > 0.1 * (this.windowDurations + this.windowFailed);
      const masterBusy = load === undefined || load >= BUSY_LOAD;
      const spare = this.spare;
      if (failing || (mean > target && masterBusy)) this.limit = Math.max(floor, Math.floor(this.limit * 0.7));
      else if (saturated && (mean < target / 3 || (spare && mean < 2 * target))) {
        this.limit = Math.min(this.opts.concurrency, this.limit + Math.max(1, Math.floor(this.limit / (spare ? 4 : 8))));
      }
    }
    this.windowStart = now;
    this.windowDone = 0;
    this.windowSweeps = 0;
    this.windowSaturated = 0;
    this.windowDurationSum = 0;
    this.windowDurations = 0;
    this.windowFailed = 0;
  }
}
