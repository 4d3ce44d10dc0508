// Many coarse deadlines on one timer. The master watches every session's silence (10,000 at
// fleet scale); a setTimeout each, re-armed every heartbeat timeout, costs a Node timer object
// per session and a timer-list operation per re-arm. Here a deadline is a slot number: it runs
// no earlier than asked and at most one tick later.

import type { Clock, TimerHandle } from './clock.js';

/**
 * One scheduled callback, and its own handle: cancel() only clears `fn` (no closure per entry, no
 * set to delete from); the slot drops cleared entries when it runs. The carried acks of a
 * 10,000-minion round schedule and cancel 10,000 deadlines per round (issue 27, pingflush).
 */
class Entry implements TimerHandle {
  constructor(
    public fn: (() => void) | undefined,
    private readonly wheel: TimerWheel,
  ) {}

  cancel(): void {
    if (this.fn === undefined) return;
    this.fn = undefined;
    this.wheel.cancelled();
  }
}

/** Cancelled entries kept in their slots before the wheel sweeps them out (when they also outnumber the live ones). */
const SWEEP_AT = 65_536;

export class TimerWheel {
  /** slot (ticks from `origin` to the deadline, rounded up) -> what runs then (cancelled entries included) */
  private readonly slots = new Map<number, Entry[]>();
  /** When the ticker started: slot k runs at its k-th tick. */
  private origin = 0;
  /** The last slot run; only later slots are scheduled. */
  private cursor = 0;
  private ticker: TimerHandle | undefined;
  private closed = false;
  /** Entries scheduled and neither run nor cancelled. */
  private live = 0;
  /** Cancelled entries still held in a slot. */
  private dead = 0;

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
    return this.live;
  }

  /** Entries held in slots, cancelled ones not yet dropped included (tests: they do not pile up). */
  get held(): number {
    let n = 0;
    for (const list of this.slots.values()) n += list.length;
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
    const entry = new Entry(fn, this);
    const list = this.slots.get(slot);
    if (list === undefined) this.slots.set(slot, [entry]);
    else list.push(entry);
    this.live++;
    return entry;
  }

  /** Drops everything scheduled and stops the timer; later setTimeout calls do nothing. */
  close(): void {
    this.closed = true;
    for (const list of this.slots.values()) for (const entry of list) entry.fn = undefined;
    this.slots.clear();
    this.live = 0;
    this.dead = 0;
    this.ticker?.cancel();
    this.ticker = undefined;
  }

  /** An entry was cancelled (Entry.cancel). */
  cancelled(): void {
    this.live--;
    this.dead++;
    if (this.dead >= SWEEP_AT && this.dead > this.live) this.sweep();
  }

  /** Drops cancelled entries from every slot (many deadlines set far ahead and cancelled early). */
  private sweep(): void {
    for (const [slot, list] of this.slots) {
      const kept = list.filter((e) => e.fn !== undefined);
      if (kept.length === 0) this.slots.delete(slot);
      else this.slots.set(slot, kept);
    }
    this.dead = 0;
  }

  private tick(): void {
    const due = Math.floor((this.clock.monotonic() - this.origin) / this.tickMs);
    // after a blocked event loop several slots are due; an empty stretch is skipped by lookup
    while (this.cursor < due && this.slots.size > 0 && this.live > 0) {
      this.cursor++;
      const list = this.slots.get(this.cursor);
      if (!list) continue;
      this.slots.delete(this.cursor);
      for (const entry of list) {
        const fn = entry.fn;
        if (fn === undefined) {
          // a sweep during a callback of this slot may have counted it already
          if (this.dead > 0) this.dead--;
          continue;
        }
        entry.fn = undefined;
        this.live--;
        try {
          fn();
        } catch (err) {
          this.onError(err);
        }
      }
    }
    this.cursor = Math.max(this.cursor, due);
    if (this.live === 0) {
      // only cancelled entries are left (or none): drop them and sleep
      this.slots.clear();
      this.dead = 0;
      this.ticker?.cancel();
      this.ticker = undefined;
    }
  }
}
