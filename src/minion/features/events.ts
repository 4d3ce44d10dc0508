// Events: what this minion fires on its master's bus (event.send, event.fire_master, its beacons)
// and on its own local bus (event.fire). The master's replies to event.send come back here; a
// link going down fails the sends waiting on it. A job's worker fires through the host thread
// (hostCall), which runs event.* with this feature's access.

import type { MinionEventAccess } from '../../modules/index.js';
import { LocalEventBus } from '../events/local-bus.js';
import { MasterEvents } from '../events/master-events.js';
import type { MinionLink } from '../minion-link.js';
import type { LinkMessage, MinionFeature, MinionParts } from './feature.js';

export class EventsFeature implements MinionFeature {
  readonly name = 'events';
  readonly local = new LocalEventBus();
  readonly master: MasterEvents;
  /** What event.* functions use (ExecContext.events). */
  readonly access: MinionEventAccess;

  constructor(parts: Pick<MinionParts, 'links' | 'clock' | 'logger'>) {
    const { links, clock, logger } = parts;
    this.master = new MasterEvents(() => links.all(), clock);
    this.access = {
      fireMaster: (tag, data) => this.master.fire(tag, data),
      fireLocal: (tag, data) => {
        logger.debug({ tag }, `event.fire: ${tag} on the minion's local bus`);
        this.local.fire({ tag, data });
        return true;
      },
    };
  }

  onMessage(m: LinkMessage): boolean {
    if (m.t !== 'event_reply') return false;
    this.master.onReply(m);
    return true;
  }

  onDown(link: MinionLink): void {
    this.master.onLinkDown(link);
  }
}
