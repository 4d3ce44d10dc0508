// Many coarse deadlines on one timer. The master watches every session's silence (10,000 at
// fleet scale); a setTimeout each, re-armed every heartbeat timeout, costs a Node timer object
// per session and a timer-list operation per re-arm. Here a deadline is a slot number: it runs
// no earlier than asked and at most one tick later.

import type { Clock, TimerHandle } from './clock.js';

interface Entry {
  fn: () => void;
}

export class TimerWheel {
  /** slot (ticks from `origin` to the deadline, rounded up) -> what runs then */
  private readonly slots = new Map<number, Set<Entry>>();
  /** When the ticker started: slot k runs at its k-th tick. */
  private origin = 0;
  /** The last slot run; only later slots are scheduled. */
  private cursor = 0;
  private ticker: TimerHandle | undefined;
  private closed = false;

  constructor(
    private readonly clock: Clock,
    readonly tickMs: number,
    /** A callback threw; by default rethrown as from a timer (uncaught), after the rest of its slot ran. */
    private readonly onError: (err: unknown) => void = (err) =>
      queueMicrotask(() => {
        throw err;
      }),
  ) {
    if (!(tickMs > 0)) throw new RangeError(`TimerWheel tick must be > 0 ms, got ${tickMs}`);
  }

  /** Entries still scheduled. */
  get size(): number {
    let n = 0;
    for (const s of this.slots.values()) n += s.size;
    return n;
  }

  /** Runs fn once, at least `ms` from now (Clock.setTimeout's shape, so callers can take either). */
  setTimeout(fn: () => void, ms: number): TimerHandle {
    if (this.closed) return { cancel: () => undefined };
    const now = this.clock.monotonic();
    if (!this.ticker) {
      // the wheel sleeps while empty: resume counting from now
      this.origin = now;
      this.cursor = 0;
      this.ticker = this.clock.setInterval(() => this.tick(), this.tickMs);
    }
    const slot = Math.max(Math.ceil((now - this.origin + Math.max(0, ms)) / this.tickMs), this.cursor + 1);
    let set = this.slots.get(slot);
    if (!set) {
      set = new Set();
      this.slots.set(slot, set);
    }
    const entry: Entry = { fn };
    set.add(entry);
    const owner = set;
    return {
      cancel: () => {
        if (owner.delete(entry) && owner.size === 0 && this.slots.get(slot) === owner) this.slots.delete(slot);
      },
    };
  }

  /** Drops everything scheduled and stops the timer; later setTimeout calls do nothing. */
  close(): void {
    this.closed = true;
    this.slots.clear();
    this.ticker?.cancel();
    this.ticker = undefined;
  }

  private tick(): void {
    const due = Math.floor((this.clock.monotonic() - this.origin) / this.tickMs);
    // after a blocked event loop several slots are due; an empty stretch is skipped by lookup
    while (this.cursor < due && this.slots.size > 0) {
      this.cursor++;
      const set = this.slots.get(this.cursor);
      if (!set) continue;
      this.slots.delete(this.cursor);
      for (const entry of set) {
        try {
          entry.fn();
        } catch (err) {
          this.onError(err);
        }
      }
    }
    this.cursor = Math.max(this.cursor, due);
    if (this.slots.size === 0) {
      this.ticker?.cancel();
      this.ticker = undefined;
    }
  }
}
