// git_pillar's remotes: their update loop (loop_interval) and `brine git-pillar update`.

import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { GitPillarUpdates } from '../git-pillar-updates.js';
import type { PillarService } from '../pillar-service.js';
import type { MasterFeature } from './master-feature.js';

export class GitPillar implements MasterFeature {
  readonly name = 'git-pillar';
  readonly updates: GitPillarUpdates;

  constructor(pillar: PillarService, cachedir: string, clock: Clock, logger: Logger) {
    this.updates = new GitPillarUpdates(pillar.gitRemotes(), cachedir, clock, logger);
  }

  stop(): void {
    this.updates.close();
  }
}
