// The minion's own event bus (event.fire): in-process listeners only. Salt's minion has an IPC bus
// that beacons, the scheduler and salt-call listen on; brine's minion has no local IPC bus, so
// what hears event.fire is what registered here (today: the beacons' own log line and tests).

import type { Disposable } from '../../util/disposable.js';

export interface LocalEvent {
  readonly tag: string;
  readonly data: Readonly<Record<string, unknown>>;
}

export class LocalEventBus {
  private readonly listeners = new Set<(e: LocalEvent) => void>();
  /** Events fired since start. */
  fired = 0;

  fire(event: LocalEvent): void {
    this.fired++;
    for (const l of [...this.listeners]) {
      try {
        l(event);
      } catch {
        // a listener that throws is dropped, never the firer
        this.listeners.delete(l);
      }
    }
  }

  subscribe(fn: (e: LocalEvent) => void): Disposable {
    this.listeners.add(fn);
    return { dispose: () => this.listeners.delete(fn) };
  }
}
