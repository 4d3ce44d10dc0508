// Application-level liveness for one connection. The side that pings sends one whenever it has
// sent nothing for `intervalMs`; either side declares the peer dead after `timeoutMs` with
// nothing received. Only application bytes reset middlebox idle timers, so this is the
// guarantee; kernel keepalive is a backstop.

import type { Clock, TimerHandle } from '../util/clock.js';

export interface HeartbeatHost {
  sendPing(seq: number, lastRttMs: number | undefined): void;
  /** Called once when nothing arrived for the timeout; the host closes the connection. */
  onTimeout(silentForMs: number): void;
}

export interface HeartbeatOptions {
  intervalMs: number;
  timeoutMs: number;
  /** The minion pings; the master only watches and answers. */
  sendPings: boolean;
}

export class HeartbeatMonitor {
  private lastSent: number;
  private lastReceived: number;
  private timer: TimerHandle | undefined;
  private seq = 0;
  /** Pings awaiting their pong (pinging side only; made at the first ping, the master has none). */
  private outstanding: Map<number, number> | undefined;
  private rtt: number | undefined;
  private stopped = false;

  constructor(
    private readonly host: HeartbeatHost,
    private readonly clock: Clock,
    private readonly opts: HeartbeatOptions,
    /** Where the next check is scheduled: the clock, or a wheel shared by many monitors (the master's). */
    private readonly timers: Pick<Clock, 'setTimeout'> = clock,
  ) {
    const now = clock.monotonic();
    this.lastSent = now;
    this.lastReceived = now;
  }

  /** Last measured round trip in ms (pinging side), or what the peer reported. */
  get rttMs(): number | undefined {
    return this.rtt;
  }

  get lastReceivedAt(): number {
    return this.lastReceived;
  }

  start(): void {
    if (this.stopped || this.timer) return;
    this.schedule();
  }

  noteSent(): void {
    this.lastSent = this.clock.monotonic();
  }

  noteReceived(): void {
    this.lastReceived = this.clock.monotonic();
  }

  /** A pong for one of our pings: measures the round trip. */
  handlePong(seq: number): void {
    const outstanding = this.outstanding;
    const sentAt = outstanding?.get(seq);
    if (!outstanding || sentAt === undefined) return;
    outstanding.delete(seq);
    this.rtt = this.clock.monotonic() - sentAt;
  }

  /** The peer told us its own measurement (the master learns RTT this way). */
  recordPeerRtt(rttMs: number): void {
    this.rtt = rttMs;
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
    this.outstanding?.clear();
  }

  private schedule(): void {
    const now = this.clock.monotonic();
    const dueTimeout = this.lastReceived + this.opts.timeoutMs;
    const duePing = this.opts.sendPings ? this.lastSent + this.opts.intervalMs : Infinity;
    const due = Math.min(dueTimeout, duePing);
    this.timer = this.timers.setTimeout(() => this.tick(), Math.max(0, due - now));
  }

  private tick(): void {
    this.timer = undefined;
    if (this.stopped) return;
    const now = this.clock.monotonic();
    const silent = now - this.lastReceived;
    if (silent >= this.opts.timeoutMs) {
      this.stop();
      this.host.onTimeout(silent);
      return;
    }
    if (this.opts.sendPings && now - this.lastSent >= this.opts.intervalMs) {
      const seq = this.seq++;
      this.outstanding ??= new Map();
      const outstanding = this.outstanding;
      outstanding.set(seq, now);
      // forget pings that can no longer be answered in time, so the map stays small
      for (const [s, at] of outstanding) if (now - at > this.opts.timeoutMs) outstanding.delete(s);
      this.lastSent = now;
      this.host.sendPing(seq, this.rtt);
    }
    if (!this.stopped) this.schedule();
  }
}
