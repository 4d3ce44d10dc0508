// What every feature of the minion daemon shares: the Feature contract of src/util/features.ts
// with a link to a master as the peer and what a master sends on it as the message, and the
// parts the daemon builds once and hands to each feature's constructor.

import type { Clock } from '../../util/clock.js';
import type { Feature } from '../../util/features.js';
import type { Logger } from '../../util/logger.js';
import type { MinionOptions } from '../../config/index.js';
import type { LinkEvents } from '../../session/index.js';
import type { MinionLink } from '../minion-link.js';

/** What a master sends on a link: a job, an ack, a find_job, or a reply to one of our requests. */
export type LinkMessage = Parameters<NonNullable<LinkEvents['onMessage']>>[0];

/** One feature of the minion: the peer of each moment is the link it happened on. */
export type MinionFeature = Feature<MinionLink, LinkMessage>;

/** The minion's links as features read them (the links are opened after the features are built). */
export interface LinkAccess {
  /** Every link, ready or not (empty until the links start, and with master_type: disable). */
  all(): readonly MinionLink[];
}

/** The parts of the daemon every feature may be built with (the key only the links use). */
export interface MinionParts {
  readonly opts: MinionOptions;
  readonly id: string;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly links: LinkAccess;
}
