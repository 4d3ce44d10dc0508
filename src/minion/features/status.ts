// The minion's status as the control socket reports it (`brine doctor`): each feature's part.

import type { MinionStatus } from '../../protocol/index.js';
import type { MinionScheduler } from '../schedule/minion-scheduler.js';
import type { ExtensionsFeature } from './extmods.js';
import type { LinkAccess } from './feature.js';
import type { LocalMineFeature, MasterMineFeature } from './mine.js';
import type { MasterPresence } from './presence.js';
import type { ReturnsFeature } from './returns.js';

export interface StatusSources {
  id: string;
  startedAt: number;
  links: LinkAccess;
  presence: MasterPresence;
  returns: ReturnsFeature;
  schedule: MinionScheduler;
  extmods: ExtensionsFeature;
  mine: LocalMineFeature | MasterMineFeature;
}

export function minionStatus(s: StatusSources): MinionStatus {
  const { links, refusedMasters } = s.presence.status(s.links.all());
  return {
    t: 'minion_status',
    id: s.id,
    startedAt: s.startedAt,
    links,
    returnQueue: s.returns.queue.size,
    returnsDropped: s.returns.queue.dropped,
    ...(refusedMasters === undefined ? {} : { refusedMasters }),
    ...s.schedule.status(),
    ...s.extmods.status(),
    ...s.mine.status(),
  };
}
