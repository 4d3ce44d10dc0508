// The minion's links to its masters: one MasterLink per master (hot/hot for `master_type: str`),
// one walking the list (`failover`), or one link to a NATS cluster (`transport: nats`), none with
// `master_type: disable`. Built before the features (they read the links), opened after them.

import { type BrineError, toBrineError } from '../../util/errors.js';
import { createMasterDialer } from '../../transport/master-dialer.js';
import { keepaliveFromConfig } from '../../transport/socket-options.js';
import { MasterLink, MasterPool, type ConnectionDeps, type LinkEvents, type MasterEndpoint } from '../../session/index.js';
import { MasterPins } from '../master-pin.js';
import { connectionSettings, endpointKey, openNatsLink, parseMasterEndpoint, retrySettings, type MinionLink } from '../minion-link.js';
import type { Identity } from '../../pki/index.js';
import type { LinkAccess, MinionParts } from './feature.js';

/** What the links need of the rest of the daemon. */
export interface LinksHost {
  /** The events of one link (`link()` is that link once it exists). */
  events(link: () => MinionLink): LinkEvents;
  /** A trusted master rejected the minion: true ends its link (every master has rejected it). */
  rejected(endpoint: MasterEndpoint, error: BrineError, all: ReadonlySet<string>): boolean;
  /** Returns queued on the minion, reported with each heartbeat. */
  returnsQueued(): number;
  /** The minion cannot go on (a NATS link that cannot be opened). */
  fatal(error: BrineError): void;
}

export class MinionLinks implements LinkAccess {
  private readonly links: MinionLink[] = [];
  private stopped = false;

  constructor(private readonly parts: Omit<MinionParts, 'links'> & { identity: Identity }) {}

  all(): readonly MinionLink[] {
    return this.links;
  }

  /** Opens the links; a NATS link is opened in the background (its failure is fatal). */
  start(host: LinksHost): void {
    const { opts, logger } = this.parts;
    if (opts.master_type === 'disable') {
      logger.warn('master_type is disable, skipping connection');
      return;
    }
    if (opts.transport === 'nats') {
      this.startNats(host).catch((err: unknown) => host.fatal(toBrineError(err)));
      return;
    }
    this.startTls(host);
  }

  /** Every link stops for good (a deliberate stop is not reported as a down). */
  stop(): void {
    this.stopped = true;
    for (const link of this.links) link.stop();
  }

  private startTls(host: LinksHost): void {
    const { opts, logger, clock, identity, id } = this.parts;
    const masters = (Array.isArray(opts.master) ? opts.master : [opts.master]).map((m) => parseMasterEndpoint(m, opts.master_port));
    const pins = new MasterPins(opts.pki_dir, opts.master_finger);
    pins.migrateLegacy(masters, logger);
    const deps: ConnectionDeps = {
      clock,
      logger,
      ...createMasterDialer({ identity, timeoutMs: opts.auth_timeout * 1000, socketOptions: keepaliveFromConfig(opts), maxFrame: opts.preauth_max_frame_size, logger }),
      trustMaster: (master, endpoint) => pins.check(master, endpoint),
      pinMaster: (master, endpoint) => pins.confirm(master, endpoint),
    };
    const allMasters = new Set(masters.map(endpointKey));
    const connOpts = {
      id,
      ...connectionSettings(opts),
      maxFrame: opts.max_frame_size,
      // reported with each heartbeat, for the master's brine_minion_returns_queued
      returnsQueued: () => host.returnsQueued(),
    };
    const linkOpts = {
      ...retrySettings(opts),
      // Salt: a failback interval of 0 falls back to master_alive_interval
      failbackIntervalMs: (opts.master_failback_interval || opts.master_alive_interval || 30) * 1000,
      // a trusted master's rejection ends the minion only once every master has rejected it
      giveUpOnRefusal: (endpoint: MasterEndpoint, error: BrineError) => host.rejected(endpoint, error, allMasters),
    };
    // failover: one link walking the list; str (hot/hot): one independent link per master
    const pools =
      opts.master_type === 'failover' ? [new MasterPool(masters, { failover: true, randomMaster: opts.random_master, failback: opts.master_failback })] : masters.map((m) => MasterPool.single(m));
    if (opts.master_type !== 'failover' && opts.random_master) logger.warn('random_master is only used with master_type: failover; ignoring it');
    for (const pool of pools) {
      const link: MasterLink = new MasterLink(
        pool,
        deps,
        connOpts,
        linkOpts,
        host.events(() => link),
      );
      this.links.push(link);
      link.start();
    }
  }

  /** transport: nats (docs/scale-out.md): one link to the NATS cluster instead of one per master. */
  private async startNats(host: LinksHost): Promise<void> {
    const { opts, id, identity, clock, logger } = this.parts;
    const link: MinionLink = await openNatsLink(
      { opts, id, identity, clock, logger, returnsQueued: () => host.returnsQueued() },
      host.events(() => link),
    );
    if (this.stopped) return;
    this.links.push(link);
    link.start();
  }
}
