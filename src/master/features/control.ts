// The control socket (the CLI's way in: publish, events, key changes, fileserver updates, ...),
// open from start to stop, over the other features.

import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import type { MasterOptions } from '../../config/index.js';
import type { KeyStore } from '../../pki/index.js';
import type { UnixListener } from '../../transport/index.js';
import { acceptedWithin, matchAccepted } from '../api-backend.js';
import { controlAccess } from '../control-access.js';
import { startControlServer, type ControlDeps } from '../control-server.js';
import { controlSocketPath } from '../control-socket-path.js';
import type { EventBus } from '../event-bus.js';
import type { Files } from './files.js';
import type { GitPillar } from './git-pillar.js';
import type { Jobs } from './jobs.js';
import type { KeyReconcile } from './key-reconcile.js';
import type { MasterFeature, MasterTargeting } from './master-feature.js';
import type { Metrics } from './metrics.js';
import type { Presence } from './presence.js';
import type { Runners } from './runners.js';
import { runRunner, type ReactionView } from '../../api/index.js';

export interface ControlFeatureDeps {
  opts: MasterOptions;
  keys: KeyStore;
  events: EventBus;
  targeting: MasterTargeting;
  jobs: Jobs;
  presence: Presence;
  keyReconcile: KeyReconcile;
  metrics: Metrics;
  files: Files;
  gitPillar: GitPillar;
  runners: Runners;
  /** The reactor's recent reactions (the reactor feature is built after this one). */
  reactions(limit: number): ReactionView[];
  logger: Logger;
  clock: Clock;
}

export class Control implements MasterFeature {
  readonly name = 'control';
  private readonly deps: ControlDeps;
  private readonly socketPath: string;
  private listener: UnixListener | undefined;

  constructor(d: ControlFeatureDeps) {
    const { opts, keys, targeting, logger } = d;
    this.socketPath = controlSocketPath(opts);
    this.deps = {
      logger,
      jobs: d.jobs.tracker,
      presence: () => d.presence.presence(),
      events: d.events,
      reconcileKeys: (since) => d.keyReconcile.reconcileSince(since),
      access: controlAccess(opts, { logger, acceptedIds: () => keys.list('accepted'), targeting }),
      match: (tgt, tgtType, delimiter, within) => matchAccepted(acceptedWithin(keys.list('accepted'), within), tgt, tgtType, targeting, delimiter),
      metrics: () => d.metrics.render(),
      fileserverUpdate: (backend) => d.files.service.update(backend),
      gitPillarUpdate: (branch, repo) => d.gitPillar.updates.update(branch, repo),
      runner: (req) => runRunner(d.runners.backend, d.runners.host, req),
      reactions: (limit) => d.reactions(limit),
      clock: d.clock,
    };
  }

  async start(): Promise<void> {
    this.listener = await startControlServer(this.socketPath, this.deps);
  }

  async stop(): Promise<void> {
    await this.listener?.close();
  }
}
