// The mine: what minions publish with mine.send/mine.update and read with mine.get, kept in the
// job cache. A key deleted or replaced while the master was down takes its mine with it.

import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import type { MatchOptions } from '../../targeting/index.js';
import type { MinionMessage } from '../../protocol/index.js';
import { answerMineRequest } from '../mine-service.js';
import { MineStore, type MineDataStore } from '../mine-store.js';
import type { MinionSession } from '../minion-session.js';
import type { MasterFeature } from './master-feature.js';

export class Mine implements MasterFeature {
  readonly name = 'mine';
  readonly store: MineStore;

  constructor(
    store: MineDataStore,
    clock: Clock,
    private readonly logger: Logger,
    targeting: () => Omit<MatchOptions, 'delimiter'>,
    pillarTargets: boolean,
  ) {
    this.store = new MineStore(store, clock, logger, targeting, pillarTargets);
  }

  onMessage(message: MinionMessage, s: MinionSession): boolean {
    switch (message.t) {
      case 'mine_send':
      case 'mine_get':
      case 'mine_delete':
      case 'mine_flush':
        answerMineRequest(this.store, s, message, this.logger);
        return true;
      default:
        return false;
    }
  }
}
