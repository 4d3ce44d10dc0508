// Pillar: each minion's pillar rendered on the master from pillar_roots and ext_pillar, answered
// to the minion's own session only. Built first among the data features: a bad pillar option
// fails the master's start.

import type { MinionMessage } from '../../protocol/index.js';
import { PillarService } from '../pillar-service.js';
import type { MinionSession } from '../minion-session.js';
import type { MasterFeature } from './master-feature.js';

export class Pillar implements MasterFeature {
  readonly name = 'pillar';
  readonly service: PillarService;

  constructor(...args: ConstructorParameters<typeof PillarService>) {
    this.service = new PillarService(...args);
  }

  onMessage(message: MinionMessage, s: MinionSession): boolean {
    if (message.t !== 'pillar_request') return false;
    this.service.handle(s, message);
    return true;
  }
}
