// Time enters brine only through a Clock, so that state machines and heartbeats can be driven
// by a fake clock in unit tests and by the real one everywhere else.

export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  /** Wall-clock milliseconds since the epoch (for timestamps shown to people). */
  now(): number;
  /** Monotonic milliseconds (for measuring intervals); never goes backwards. */
  monotonic(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  setInterval(fn: () => void, ms: number): TimerHandle;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  // ms since the process started, as performance.now() counts, without touching the
  // \`performance\` global: its first use loads perf_hooks (timerify, histograms, observers;
  // +0.7-1.4 MiB in a fresh process), which an idle minion otherwise never needs (issue 27, thinmin)
  monotonic: () => process.uptime() * 1000,
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    return { cancel: () => clearTimeout(t) };
  },
  setInterval(fn, ms) {
    const t = setInterval(fn, ms);
    return { cancel: () => clearInterval(t) };
  },
};

interface FakeTimer {
  at: number;
  seq: number;
  every: number | undefined;
  fn: () => void;
  cancelled: boolean;
}

/** A clock that only moves when told to; timers fire in time order during advance(). */
export class FakeClock implements Clock {
  private t: number;
  private seq = 0;
  private timers: FakeTimer[] = [];

  constructor(start = 1_700_000_000_000) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  monotonic(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    return this.add(fn, ms, undefined);
  }

  setInterval(fn: () => void, ms: number): TimerHandle {
    return this.add(fn, ms, Math.max(1, ms));
  }

  /** Number of timers still scheduled. */
  get pending(): number {
    return this.timers.filter((x) => !x.cancelled).length;
  }

  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      const next = this.timers.filter((x) => !x.cancelled && x.at <= end).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!next) break;
      this.t = next.at;
      if (next.every !== undefined) next.at += next.every;
      else next.cancelled = true;
      next.fn();
      this.timers = this.timers.filter((x) => !x.cancelled);
    }
    this.t = end;
  }

  private add(fn: () => void, ms: number, every: number | undefined): TimerHandle {
    const timer: FakeTimer = { at: this.t + Math.max(0, ms), seq: this.seq++, every, fn, cancelled: false };
    this.timers.push(timer);
    return {
      cancel: () => {
        timer.cancelled = true;
      },
    };
  }
}
