// Salt's EventReturn (salt/utils/event.py) for `event_return`: the master's events that pass
// `event_return_whitelist`/`event_return_blacklist` (fnmatch globs on the tag) are queued and
// handed to each event returner in batches: when `event_return_queue` events are queued (0: each
// event at once), when the oldest has waited `event_return_queue_max_seconds` (brine also flushes
// then on a timer, where Salt waits for the next event), and at stop. A batch a returner fails on
// is reported and dropped, as Salt drops it; batches go out one after another, in order.

import type { Clock, TimerHandle } from '../util/clock.js';
import { globMatch } from '../util/glob.js';
import type { ReturnedEvent } from './returner.js';

export interface EventReturnQueueDeps {
  clock: Pick<Clock, 'setTimeout'>;
  /** event_return_queue: events per batch (0 = every event is its own batch). */
  queueSize: number;
  /** event_return_queue_max_seconds: the longest an event waits in the queue (0 = no limit). */
  maxSeconds: number;
  whitelist: readonly string[];
  blacklist: readonly string[];
  /** Hands a batch to the returners; a rejection is reported by the caller's `flush` itself. */
  flush(events: readonly ReturnedEvent[]): Promise<void>;
}

export class EventReturnQueue {
  private queue: ReturnedEvent[] = [];
  private timer: TimerHandle | undefined;
  /** The batch being stored: the next one waits for it. */
  private last: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(private readonly deps: EventReturnQueueDeps) {}

  /** Whether an event with this tag goes to the event returners (Salt's EventReturn._filter). */
  passes(tag: string): boolean {
    const { whitelist, blacklist } = this.deps;
    if (whitelist.length > 0 && !whitelist.some((p) => globMatch(p, tag))) return false;
    return !blacklist.some((p) => globMatch(p, tag));
  }

  add(event: ReturnedEvent): void {
    if (this.closed || !this.passes(event.tag)) return;
    this.queue.push(event);
    if (this.queue.length >= this.deps.queueSize) {
      this.flushNow();
      return;
    }
    if (this.deps.maxSeconds > 0 && this.timer === undefined) this.timer = this.deps.clock.setTimeout(() => this.flushNow(), this.deps.maxSeconds * 1000);
  }

  get queued(): number {
    return this.queue.length;
  }

  /** Stops taking events, hands over what is queued and resolves once every batch is stored (or failed). */
  async close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.flushNow();
    }
    await this.last;
  }

  private flushNow(): void {
    this.timer?.cancel();
    this.timer = undefined;
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    this.last = this.last.then(() => this.deps.flush(batch)).catch(() => {});
  }
}
