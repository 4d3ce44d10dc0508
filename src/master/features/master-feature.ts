// What a master feature is (issue 24): a Feature whose peer is a minion's session and whose
// messages are what minions send. Ready = the minion signed in; down = its session closed.

import type { MinionMessage } from '../../protocol/index.js';
import type { MatchOptions } from '../../targeting/index.js';
import type { Feature } from '../../util/features.js';
import type { MinionSession } from '../minion-session.js';

export type MasterFeature = Feature<MinionSession, MinionMessage>;

/** The master's view for targets (cached grains and pillar, minion_data_cache, nodegroups), shared by jobs, mine, the API and the control socket. */
export type MasterTargeting = Required<Pick<MatchOptions, 'grains' | 'pillar'>> & Pick<MatchOptions, 'dataCache' | 'nodegroups'>;
