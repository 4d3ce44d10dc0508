// The minion daemon's composition root: resolves its ID, loads its key and its return queue,
// builds its features (features/), opens its links to the masters and routes what happens on
// them (a sign-in, a link going down, a message) to the features, in order.

import * as path from 'node:path';
import { systemClock, type Clock } from '../util/clock.js';
import type { BrineError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { assertValidMinionId } from '../util/minion-id.js';
import type { MinionOptions } from '../config/index.js';
import type { MinionStatus } from '../protocol/index.js';
// the identity's own file, not pki/index.js: that also loads the master's key store and sign-in decisions
import { loadOrCreateIdentity, type Identity } from '../pki/identity.js';
import type { LinkEvents, MasterEndpoint } from '../session/index.js';
import type { FileClient } from '../modules/index.js';
import type { MinionLink } from './minion-link.js';
import { resolveConfiguredId, type ResolvedId, type ResolveIdOptions } from './minion-id.js';
import { reportIdAtStart } from './id-checks.js';
import { ReturnQueue } from './return-queue.js';
import type { ExtmodKind, ExtmodProblem } from './extmod-problems.js';
import type { PillarStore } from './pillar-store.js';
import type { MinionScheduler } from './schedule/minion-scheduler.js';
import { buildMinionFeatures, MinionLinks, type MinionFeatures } from './features/index.js';

export type { RefusedMaster } from './features/index.js';

export interface MinionRuntime {
  clock?: Clock;
  /** Called when the minion must stop for good (rejected by every trusted master, or an opt-in untrusted_master_exit). */
  onFatal?(error: BrineError): void;
  /** Called when a master is refused because it is not trusted (changed key, refusal before first sign-in). */
  onUntrustedMaster?(endpoint: MasterEndpoint, error: BrineError): void;
  /**
   * Wraps each link's event handlers (tests pass one that throws, to prove a failing callback
   * never leaves the minion stuck); production passes none.
   */
  wrapLinkEvents?(events: LinkEvents): LinkEvents;
}

export class Minion {
  private stopped = false;

  private constructor(
    readonly opts: MinionOptions,
    readonly resolvedId: ResolvedId,
    readonly identity: Identity,
    private readonly logger: Logger,
    private readonly runtime: MinionRuntime,
    private readonly linkSet: MinionLinks,
    private readonly features: MinionFeatures,
  ) {}

  /** Salt's ID algorithm for this config; the daemon caches a generated ID, as salt-minion does. */
  static resolveId(opts: MinionOptions, extra: Partial<ResolveIdOptions> = {}): Promise<ResolvedId> {
    return resolveConfiguredId(opts, extra);
  }

  static async start(opts: MinionOptions, logger: Logger, runtime: MinionRuntime = {}): Promise<Minion> {
    const resolved = await Minion.resolveId(opts);
    // logs the source and every warning with its fix; throws INVALID_ID or ID_CLONED
    reportIdAtStart(resolved, { refuseClonedId: opts.refuse_cloned_id }, logger);
    assertValidMinionId(resolved.id);
    const identity = await loadOrCreateIdentity({ pkiDir: opts.pki_dir, name: 'minion', commonName: resolved.id });
    const returns = ReturnQueue.open(path.join(opts.cachedir, 'returns'), { max: opts.return_queue_max, logger });
    if (returns.size > 0) logger.info({ pending: returns.size }, `${returns.size} returns from before the restart will be sent once a master is connected`);
    const parts = { opts, id: resolved.id, identity, logger, clock: runtime.clock ?? systemClock };
    const links = new MinionLinks(parts);
    const minion = new Minion(opts, resolved, identity, logger, runtime, links, buildMinionFeatures({ ...parts, links }, returns));
    // extensions, grains, the masterless pillar, the scheduler, the control socket ...
    await minion.features.list.start();
    links.start({
      events: (link) => minion.linkEvents(link),
      rejected: (endpoint, err, all) => minion.features.presence.rejected(endpoint, err, all),
      returnsQueued: () => returns.size,
      fatal: (err) => minion.fatal(err),
    });
    return minion;
  }

  /** What a link's sign-in, loss and messages mean: the same moments for every feature, on every transport. */
  private linkEvents(link: () => MinionLink): LinkEvents {
    const { list, presence } = this.features;
    const events: LinkEvents = {
      onReady: () => list.ready(link()),
      onMessage: (m) => void list.message(m, link()),
      onDown: (outcome) => list.down(link(), outcome.reason),
      onFatal: (err) => this.fatal(err),
      onUntrustedMaster: (endpoint, err) => {
        presence.noteRefused(endpoint, err);
        this.runtime.onUntrustedMaster?.(endpoint, err);
      },
    };
    return this.runtime.wrapLinkEvents?.(events) ?? events;
  }

  /** Features stop last first (the control socket, the returns, the jobs ...), then the links. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.features.list.stop();
    this.linkSet.stop();
  }

  private fatal(err: BrineError): void {
    void this.stop();
    this.logger.fatal({ code: err.code }, err.message);
    this.runtime.onFatal?.(err);
  }

  get id(): string {
    return this.resolvedId.id;
  }
  get links(): readonly MinionLink[] {
    return this.linkSet.all();
  }
  /** This minion's current pillar (read by jobs, the mine and the scheduler). */
  get pillar(): PillarStore {
    return this.features.pillar.store;
  }
  /** salt:// for jobs: the master's file server, or the minion's own file_roots. */
  get files(): FileClient {
    return this.features.files.client;
  }
  get schedule(): MinionScheduler {
    return this.features.schedule;
  }
  /** Returns kept on disk until a master acknowledges them. */
  get returns(): ReturnQueue {
    return this.features.returns.queue;
  }
  /** Returns not yet acknowledged by any master. */
  get pendingReturns(): number {
    return this.returns.size;
  }
  /** This daemon's view of its masters and its return queue. */
  status(): MinionStatus {
    return this.features.status();
  }
  refreshGrains(): Promise<ExtmodProblem[]> {
    return this.features.grains.refresh();
  }
  reloadExtmods(kinds: readonly ExtmodKind[]): Promise<ExtmodProblem[]> {
    return this.features.extmods.reload(kinds);
  }
  refreshPillar(): Promise<void> {
    return this.features.pillar.refresh();
  }
  pillarFor(pillarenv: string): Promise<Record<string, unknown>> {
    return this.features.pillar.pillarFor(pillarenv);
  }
}
