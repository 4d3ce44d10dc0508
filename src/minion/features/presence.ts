// Presence: what the minion knows of each master link for `brine doctor` (sign-ins, since when,
// why the last connection ended) and which masters refused it, until they accept it again. A
// trusted master's rejection ends the minion only once every master has rejected it.

import type { BrineError } from '../../util/errors.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import type { MinionStatus } from '../../protocol/index.js';
import type { MasterEndpoint } from '../../session/index.js';
import { endpointKey, linkStatus, type MinionLink } from '../minion-link.js';
import type { MinionFeature } from './feature.js';

/** A master refused for now, as the control socket reports it (brine doctor). */
export interface RefusedMaster {
  master: string;
  code: string;
  message: string;
  since: number;
}

interface LinkStats {
  ready: number;
  since?: number;
  lastDown?: string;
}

export class MasterPresence implements MinionFeature {
  readonly name = 'presence';
  private readonly stats = new Map<MinionLink, LinkStats>();
  /** Masters refused by key (not trusted) or by a trusted refusal, until they accept us again. */
  private readonly refused = new Map<string, RefusedMaster>();
  /** Trusted masters that rejected this minion since they last accepted it. */
  private readonly rejectedBy = new Set<string>();

  constructor(
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  onReady(link: MinionLink): void {
    const key = endpointKey(link.endpoint);
    this.rejectedBy.delete(key);
    this.refused.delete(key);
    const stats = this.stats.get(link) ?? { ready: 0 };
    this.stats.set(link, { ...stats, ready: stats.ready + 1, since: this.clock.now() });
    // the link's connection is the one that just signed in (the master's address and key; on NATS, the server)
    const m = link.endpoint;
    const conn = link.connection;
    this.logger.info({ master: key, address: conn?.resolvedAddress, fingerprint: conn?.masterFingerprint }, `Minion is ready to receive requests from ${m.host}`);
  }

  onDown(link: MinionLink, reason: string): void {
    this.stats.set(link, { ready: this.stats.get(link)?.ready ?? 0, lastDown: reason });
  }

  /** Why a link's last connection (or attempt) ended, when one did. */
  lastDown(link: MinionLink): string | undefined {
    return this.stats.get(link)?.lastDown;
  }

  /** A master refused this minion, or was refused as not trusted. */
  noteRefused(endpoint: MasterEndpoint, err: BrineError): void {
    const master = endpointKey(endpoint);
    const since = this.refused.get(master)?.since ?? this.clock.now();
    // bounded as the status message allows
    this.refused.set(master, { master, code: err.code, message: err.message.slice(0, 4000), since });
  }

  /** A trusted master rejected this minion: true when every master in `all` (endpoint keys) has. */
  rejected(endpoint: MasterEndpoint, err: BrineError, all: ReadonlySet<string>): boolean {
    this.rejectedBy.add(endpointKey(endpoint));
    this.noteRefused(endpoint, err);
    return [...all].every((m) => this.rejectedBy.has(m));
  }

  /** The links' rows and the refused masters of the minion's status. */
  status(links: readonly MinionLink[]): Pick<MinionStatus, 'links' | 'refusedMasters'> {
    return {
      links: links.map((link) => linkStatus(link, this.stats.get(link) ?? { ready: 0 })),
      ...(this.refused.size > 0 ? { refusedMasters: [...this.refused.values()] } : {}),
    };
  }
}
