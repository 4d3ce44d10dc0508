// Events minions fire on the master's bus (event.send, event.fire_master, beacons): each decided by
// src/master/minion-event-policy.ts for the session's ID, limited per minion to
// minion_event_rate/minion_event_burst, fired with EventBus.fire and answered when asked. A refusal
// is logged (at most once per minion per LOG_EVERY_MS for the rate limit) and counted.

import type { Clock } from '../../util/clock.js';
import { BrineError } from '../../util/errors.js';
import type { Logger } from '../../util/logger.js';
import { printable } from '../../util/printable.js';
import { TokenBucket } from '../../util/token-bucket.js';
import type { MinionEventReply, MinionEvent, MinionMessage } from '../../protocol/index.js';
import type { EventBus } from '../event-bus.js';
import { decideMinionEvent } from '../minion-event-policy.js';
import type { MasterFeature } from './master-feature.js';

/** What the feature needs of a session: its ID and a way to answer. */
export interface EventSession {
  readonly id: string;
  sendEventReply(reply: MinionEventReply): boolean;
}

const LOG_EVERY_MS = 10_000;

export interface MinionEventsDeps {
  events: Pick<EventBus, 'fire'>;
  clock: Clock;
  logger: Logger;
  ratePerSecond: number;
  burst: number;
}

export class MinionEvents implements MasterFeature {
  readonly name = 'minion-events';
  /** Fired, and refused by code, since start (brine doctor, tests). */
  readonly counts = { fired: 0, reserved: 0, rateLimited: 0 };
  private readonly buckets = new Map<string, TokenBucket>();
  private readonly lastRateLog = new Map<string, number>();

  constructor(private readonly deps: MinionEventsDeps) {}

  onMessage(message: MinionMessage, s: EventSession): boolean {
    if (message.t !== 'minion_event') return false;
    this.onEvent(message, s);
    return true;
  }

  onDown(s: EventSession): void {
    this.buckets.delete(s.id);
    this.lastRateLog.delete(s.id);
  }

  private onEvent(message: MinionEvent, s: EventSession): void {
    const { clock, logger } = this.deps;
    let bucket = this.buckets.get(s.id);
    if (bucket === undefined) {
      bucket = new TokenBucket(clock, this.deps.ratePerSecond, this.deps.burst);
      this.buckets.set(s.id, bucket);
    }
    if (!bucket.take()) {
      this.counts.rateLimited++;
      const now = clock.monotonic();
      if (now - (this.lastRateLog.get(s.id) ?? -Infinity) >= LOG_EVERY_MS) {
        this.lastRateLog.set(s.id, now);
        logger.warn(
          { id: s.id, code: 'EVENT_RATE_LIMITED', refused: this.counts.rateLimited },
          `minion ${s.id} fires events faster than minion_event_rate (${this.deps.ratePerSecond}/s, burst ${this.deps.burst}); the excess is refused`,
        );
      }
      const err = new BrineError(
        'EVENT_RATE_LIMITED',
        `minion ${s.id} fired more than minion_event_rate (${this.deps.ratePerSecond}/s, burst ${this.deps.burst}) events; ${JSON.stringify(message.tag)} was not fired`,
      );
      this.answer(message, s, err);
      return;
    }
    const verdict = decideMinionEvent(s.id, message);
    if (!verdict.ok) {
      this.counts.reserved++;
      logger.warn({ id: s.id, tag: printable(message.tag.slice(0, 200)), code: verdict.error.code }, `refused an event from minion ${s.id}: ${printable(verdict.error.message)}`);
      this.answer(message, s, verdict.error);
      return;
    }
    this.deps.events.fire(verdict.event.tag, verdict.event.data);
    this.counts.fired++;
    this.answer(message, s);
  }

  private answer(message: MinionEvent, s: EventSession, error?: BrineError): void {
    if (message.rid === undefined) return;
    s.sendEventReply(error ? { t: 'event_reply', rid: message.rid, ok: false, error: { code: error.code, message: error.message } } : { t: 'event_reply', rid: message.rid, ok: true });
  }
}
