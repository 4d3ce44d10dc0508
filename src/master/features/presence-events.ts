// Salt's presence events (presence_events: True): every loop_interval the master fires
// salt/presence/present with the minions connected now, preceded by salt/presence/change with
// those connected and lost since the last round when the set changed, as Salt's Maintenance
// process does. brine knows each connect and disconnect at once (brine/minion/<id>/connected and
// .../disconnected fire then); these keep Salt's sampling so tools that count rounds see Salt's.

import type { Clock, TimerHandle } from '../../util/clock.js';
import type { EventBus } from '../event-bus.js';
import type { MasterFeature } from './master-feature.js';

export interface PresenceEventsDeps {
  events: Pick<EventBus, 'emit'>;
  clock: Clock;
  /** The IDs of the minions connected now. */
  connected: () => Iterable<string>;
  intervalS: number;
}

export class PresenceEvents implements MasterFeature {
  readonly name = 'presence-events';
  private timer: TimerHandle | undefined;
  /** The set of the last round (Salt's old_present; empty before the first, so it reports all as new). */
  private last = new Set<string>();

  constructor(private readonly deps: PresenceEventsDeps) {}

  start(): void {
    this.timer = this.deps.clock.setInterval(() => this.round(), this.deps.intervalS * 1000);
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  /** One maintenance round: the change (when there is one), then who is present. */
  round(): void {
    const present = new Set(this.deps.connected());
    const added = [...present].filter((id) => !this.last.has(id));
    const lost = [...this.last].filter((id) => !present.has(id));
    const at = this.deps.clock.now();
    if (added.length > 0 || lost.length > 0) this.deps.events.emit({ kind: 'presence_change', new: added, lost, at });
    this.deps.events.emit({ kind: 'presence_present', present: [...present], at });
    this.last = present;
  }
}
