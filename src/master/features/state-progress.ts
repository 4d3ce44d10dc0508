// Salt's state_events on the master: each state_progress message a minion sends while it runs a
// state job is fired on the bus as Salt's salt/job/<jid>/prog/<id>/<run_num> event, shaped as
// Salt's master fires the minion's event.fire_master load (salt/state.py State.event). The id is
// the session's, never the payload's, so a minion speaks only for itself. Limited per minion:
// progress is a convenience, and a state run of thousands of trivial states must not flood the
// bus; what is over the limit is dropped and counted (the job's return still has every state).

import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { TokenBucket } from '../../util/token-bucket.js';
import type { MinionMessage, StateProgress } from '../../protocol/index.js';
import type { EventBus } from '../event-bus.js';
import type { MasterFeature } from './master-feature.js';

/** Progress events per second one minion may have fired on average, and in one burst. */
export const STATE_PROGRESS_RATE = 100;
export const STATE_PROGRESS_BURST = 1000;

/** The state function (`cmd.run`) of a `state_|-id_|-name_|-fun` tag, or undefined. */
export function stateFunctionOf(tag: string): string | undefined {
  const parts = tag.split('_|-');
  return parts.length === 4 ? `${parts[0]}.${parts[3]}` : undefined;
}

/**
 * The Salt event for one progress message of minion `id`: tag salt/job/<jid>/prog/<id>/<n>, data
 * Salt's _minion_event load {cmd, data: {ret, len}, id, jid, tag} (Salt's `tok` is not sent).
 * brine adds `fun` beside ret and len: Salt's ret has no state function, which a listener needs
 * to print a line per state (brine run --progress).
 */
export function stateProgressEvent(id: string, p: StateProgress): { tag: string; data: Record<string, unknown> } {
  const tag = `salt/job/${p.jid}/prog/${id}/${p.n}`;
  const fun = stateFunctionOf(p.tag);
  const data: Record<string, unknown> = { ret: p.ret, len: p.len, ...(fun !== undefined ? { fun } : {}) };
  return { tag, data: { cmd: '_minion_event', data, id, jid: p.jid, tag } };
}

export interface StateProgressDeps {
  events: Pick<EventBus, 'fire'>;
  clock: Clock;
  logger: Logger;
  ratePerSecond?: number;
  burst?: number;
}

export class StateProgressEvents implements MasterFeature {
  readonly name = 'state-progress';
  readonly counts = { fired: 0, dropped: 0 };
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(private readonly deps: StateProgressDeps) {}

  onMessage(message: MinionMessage, s: { readonly id: string }): boolean {
    if (message.t !== 'state_progress') return false;
    let bucket = this.buckets.get(s.id);
    if (bucket === undefined) {
      bucket = new TokenBucket(this.deps.clock, this.deps.ratePerSecond ?? STATE_PROGRESS_RATE, this.deps.burst ?? STATE_PROGRESS_BURST);
      this.buckets.set(s.id, bucket);
    }
    if (!bucket.take()) {
      // the first drop of a burst is worth a line; the count says the rest
      if (this.counts.dropped++ === 0)
        this.deps.logger.warn({ id: s.id, jid: message.jid }, `minion ${s.id} sends state progress faster than ${bucket.rate}/s; the excess is not fired (the job's return is complete)`);
      return true;
    }
    const event = stateProgressEvent(s.id, message);
    this.deps.events.fire(event.tag, event.data);
    this.counts.fired++;
    return true;
  }

  onDown(s: { readonly id: string }): void {
    this.buckets.delete(s.id);
  }
}
