// Pillar: this minion's current pillar (one PillarStore the jobs, the mine and the scheduler
// read), and how it is had. A masterless minion (file_client: local) renders its own pillar_roots
// at start and on refresh; otherwise the master renders it, asked at each sign-in and on refresh.

import { toBrineError } from '../../util/errors.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import type { MinionOptions } from '../../config/index.js';
import type { Grains } from '../../modules/index.js';
import { PillarClient, localPillarFor, renderLocalPillar } from '../pillar-client.js';
import { PillarStore } from '../pillar-store.js';
import type { MinionLink } from '../minion-link.js';
import type { LinkAccess, LinkMessage, MinionFeature } from './feature.js';

/** The pillar as the other features use it, whichever way it is had. */
export interface PillarFeature extends MinionFeature {
  readonly store: PillarStore;
  /** Gets the pillar again (saltutil.refresh_pillar). Throws MASTER_UNREACHABLE when no master answers. */
  refresh(): Promise<void>;
  /** This minion's pillar from one pillar environment, for one call (state.apply pillarenv=); not stored. */
  pillarFor(pillarenv: string): Promise<Record<string, unknown>>;
  /**
   * After new grains (saltutil.refresh_grains, sync_grains): the pillar again, as Salt does, since
   * the master renders it with them. A failure is logged, never thrown.
   */
  refreshAfterGrains(): Promise<void>;
}

interface PillarParts {
  opts: MinionOptions;
  id: string;
  logger: Logger;
  grains: () => Grains;
}

/** The shared half: the store and the refresh after new grains. */
abstract class PillarBase {
  readonly name = 'pillar';
  readonly store = new PillarStore();

  constructor(protected readonly parts: PillarParts) {}

  abstract refresh(): Promise<void>;

  /** With no master connected the next sign-in brings the grains and the pillar both. */
  protected canRefreshNow(): boolean {
    return true;
  }

  async refreshAfterGrains(): Promise<void> {
    if (!this.canRefreshNow()) return;
    try {
      await this.refresh();
    } catch (err) {
      const message = toBrineError(err).message;
      this.parts.logger.warn({ err: message }, `the grains were sent again but the pillar could not be refreshed (${message}); run saltutil.refresh_pillar`);
    }
  }
}

/** file_client: local: rendered here from the minion's own pillar_roots, before any job can run. */
export class LocalPillar extends PillarBase implements PillarFeature {
  async start(): Promise<void> {
    await this.refresh();
  }

  async refresh(): Promise<void> {
    const { opts, id, grains } = this.parts;
    this.store.set(await renderLocalPillar(opts, id, grains()));
  }

  pillarFor(pillarenv: string): Promise<Record<string, unknown>> {
    const { opts, id, grains } = this.parts;
    return localPillarFor(opts, id, grains(), pillarenv);
  }
}

/** file_client: remote: the master renders it; asked at each sign-in and on refresh. */
export class MasterPillar extends PillarBase implements PillarFeature {
  private readonly client: PillarClient;
  /** The last sign-in's request, settled (a failure was logged). */
  private signInFetch: Promise<void> = Promise.resolve();

  constructor(
    parts: PillarParts,
    private readonly links: LinkAccess,
    clock: Clock,
  ) {
    super(parts);
    this.client = new PillarClient(this.store, () => links.all(), clock, parts.logger);
  }

  onReady(link: MinionLink): void {
    this.signInFetch = this.client.fetch(link).catch((err: unknown) => {
      this.parts.logger.warn({ err: toBrineError(err).message }, 'could not get the pillar from the master at sign-in; jobs use the last pillar received until saltutil.refresh_pillar succeeds');
    });
  }

  onMessage(m: LinkMessage): boolean {
    if (m.t !== 'pillar_reply') return false;
    this.client.onReply(m);
    return true;
  }

  onDown(link: MinionLink): void {
    this.client.onLinkDown(link);
  }

  /** Settles when the last sign-in's pillar request did (startup_states wait for it). */
  fetchedAtSignIn(): Promise<void> {
    return this.signInFetch;
  }

  refresh(): Promise<void> {
    return this.client.fetch();
  }

  pillarFor(pillarenv: string): Promise<Record<string, unknown>> {
    return this.client.fetchFor(pillarenv);
  }

  protected override canRefreshNow(): boolean {
    return this.links.all().some((l) => l.ready);
  }
}
