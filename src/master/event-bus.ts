// The master's event bus, in Salt's shapes (src/protocol/events.ts). Code emits typed events
// (`emit`) or fires a tag with its data (`fire`: user events, runners, beacons); subscribers get
// Salt's `{tag, data}` with `_stamp`, in the order fired. Typed observers (metrics) see the typed
// events. A subscriber that throws is dropped, never the emitter.

import type { Clock } from '../util/clock.js';
import { type BrineEvent, type EventKind, type SaltEvent, saltEventsOf, saltStamp } from '../protocol/index.js';
import type { Disposable } from '../util/disposable.js';

export type EventListener = (event: SaltEvent) => void;
export type TypedListener = (event: BrineEvent) => void;

interface Subscriber {
  fn: EventListener;
  kinds: ReadonlySet<EventKind> | undefined;
}

export class EventBus {
  private readonly listeners = new Set<Subscriber>();
  private readonly observers = new Set<TypedListener>();
  /** Typed events emitted since start, by kind (for `brine doctor` and tests). */
  readonly counts = new Map<EventKind, number>();
  /** Events fired since start, typed or not. */
  fired = 0;

  constructor(private readonly clock: Pick<Clock, 'now'> = { now: () => Date.now() }) {}

  /** A typed event: its observers, then the Salt events it stands for. */
  emit(event: BrineEvent): void {
    this.counts.set(event.kind, (this.counts.get(event.kind) ?? 0) + 1);
    for (const o of [...this.observers]) {
      try {
        o(event);
      } catch {
        this.observers.delete(o);
      }
    }
    if (this.listeners.size === 0) {
      // nobody on the bus (no reactor, event stream, API or web view): the Salt events are not
      // built (issue 27: a fleet round's returns each made a tag, a data dict and a stamp that
      // nobody read); a job return stands for exactly one
      this.fired += event.kind === 'job_return' ? 1 : saltEventsOf(event).length;
      return;
    }
    for (const { tag, data } of saltEventsOf(event)) this.deliver({ tag, data: { ...data, _stamp: saltStamp(event.at) }, kind: event.kind });
  }

  /** A Salt event by tag: `data` gets `_stamp` (kept when the caller set one). Returns what was fired. */
  fire(tag: string, data: Readonly<Record<string, unknown>>): SaltEvent {
    const event: SaltEvent = { tag, data: { ...data, _stamp: typeof data._stamp === 'string' ? data._stamp : saltStamp(this.clock.now()) } };
    this.deliver(event);
    return event;
  }

  /** Every Salt event; with `kinds`, only those that came from typed events of these kinds. */
  subscribe(fn: EventListener, kinds?: readonly EventKind[]): Disposable {
    const entry: Subscriber = { fn, kinds: kinds && kinds.length > 0 ? new Set(kinds) : undefined };
    this.listeners.add(entry);
    return { dispose: () => this.listeners.delete(entry) };
  }

  /** The typed events (metrics count by kind). */
  observe(fn: TypedListener): Disposable {
    this.observers.add(fn);
    return { dispose: () => this.observers.delete(fn) };
  }

  get subscribers(): number {
    return this.listeners.size;
  }

  private deliver(event: SaltEvent): void {
    this.fired++;
    if (this.listeners.size === 0) return;
    for (const l of [...this.listeners]) {
      if (l.kinds && (event.kind === undefined || !l.kinds.has(event.kind))) continue;
      try {
        l.fn(event);
      } catch {
        this.listeners.delete(l);
      }
    }
  }
}
