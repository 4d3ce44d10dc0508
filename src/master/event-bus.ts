// The master's internal event bus: typed events fanned out to subscribers (the control
// socket's `brine events` streams). A subscriber that throws is dropped, never the emitter.

import { eventTag, type BrineEvent, type EventKind } from '../protocol/index.js';
import type { Disposable } from '../util/disposable.js';

export type EventListener = (tag: string, event: BrineEvent) => void;

export class EventBus {
  private readonly listeners = new Set<{ fn: EventListener; kinds: ReadonlySet<EventKind> | undefined }>();
  /** Events emitted since start, by kind (for `brine doctor` and tests). */
  readonly counts = new Map<EventKind, number>();

  emit(event: BrineEvent): void {
    this.counts.set(event.kind, (this.counts.get(event.kind) ?? 0) + 1);
    if (this.listeners.size === 0) return;
    const tag = eventTag(event);
    for (const l of [...this.listeners]) {
      if (l.kinds && !l.kinds.has(event.kind)) continue;
      try {
        l.fn(tag, event);
      } catch {
        this.listeners.delete(l);
      }
    }
  }

  subscribe(fn: EventListener, kinds?: readonly EventKind[]): Disposable {
    const entry = { fn, kinds: kinds && kinds.length > 0 ? new Set(kinds) : undefined };
    this.listeners.add(entry);
    return { dispose: () => this.listeners.delete(entry) };
  }

  get subscribers(): number {
    return this.listeners.size;
  }
}
