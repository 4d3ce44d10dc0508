// The minion data cache (minion_data_cache): each minion's grains as it sent them, kept in the
// job cache for grain and compound targets while the minion is away.

import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import type { MinionMessage } from '../../protocol/index.js';
import type { JobCache } from '../../jobs/index.js';
import { MinionDataCache } from '../minion-data-cache.js';
import type { MinionSession } from '../minion-session.js';
import type { MasterFeature } from './master-feature.js';

export class MinionData implements MasterFeature {
  readonly name = 'minion-data';
  readonly cache: MinionDataCache;

  constructor(store: JobCache, clock: Clock, logger: Logger, enabled: boolean) {
    this.cache = new MinionDataCache(store, clock, logger, enabled);
  }

  onMessage(message: MinionMessage, s: MinionSession): boolean {
    if (message.t !== 'grains') return false;
    this.cache.put(s.id, s.fingerprint, message.grains);
    return true;
  }
}
