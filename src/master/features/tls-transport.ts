// The built-in transport: the TLS listener on ret_port, with its door (pre-auth caps, handshake
// pacing) and a summary line every 5 s while the pacing turns connections away. Each channel
// becomes a MinionSession routed to the feature list by the shared hooks.

import type { Clock, TimerHandle } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import type { MasterOptions } from '../../config/index.js';
import { MINION_MESSAGES, type MasterMessage, type MinionMessage } from '../../protocol/index.js';
import { ticketKeysFor, TICKET_LIFETIME_S, type Identity } from '../../pki/index.js';
import { keepaliveFromConfig, listenTls, sourceKey, type TlsListener } from '../../transport/index.js';
import type { LiveSessions } from '../live-sessions.js';
import { MinionSession, type MinionSessionHooks, type MinionSessionSettings } from '../minion-session.js';
import type { RefusalLog } from '../refusal-log.js';
import type { MasterFeature } from './master-feature.js';

export interface TlsTransportDeps {
  opts: MasterOptions;
  identity: Identity;
  settings: MinionSessionSettings;
  hooks: MinionSessionHooks;
  live: LiveSessions;
  refusals: RefusalLog;
  logger: Logger;
  clock: Clock;
}

const PACING_LOG_INTERVAL_MS = 5000;

export class TlsTransport implements MasterFeature {
  readonly name = 'tls';
  private listener: TlsListener | undefined;
  private pacingTimer: TimerHandle | undefined;
  private turnedAwayBefore = 0;
  private stopped = false;

  constructor(private readonly deps: TlsTransportDeps) {}

  get port(): number {
    return this.listener?.port ?? 0;
  }

  /** Connections the door turned away before TLS (handshake pacing). */
  get turnedAway(): number {
    return this.listener?.pacing().turnedAway ?? 0;
  }

  async start(): Promise<void> {
    const { opts, identity, settings, hooks, live, refusals, logger, clock } = this.deps;
    this.listener = await listenTls<MinionMessage, MasterMessage>({
      host: opts.interface,
      port: opts.ret_port,
      identity,
      handshakeTimeoutMs: opts.handshake_timeout * 1000,
      preauthMaxFrame: opts.preauth_max_frame_size,
      socketOptions: keepaliveFromConfig(opts),
      schemas: MINION_MESSAGES,
      preauth: { maxTotal: opts.preauth_max_connections, maxPerSource: opts.preauth_max_connections_per_source, fdReserve: opts.preauth_fd_reserve },
      // handshakes paced at the door: never planned faster than auth_rate admits sign-ins
      // derived from the master's key: minions coming back after a restart resume their TLS
      // sessions, and a re-keyed master cannot resume the old key's sessions (ticket-keys.ts)
      tickets: { keys: ticketKeysFor(identity.privateKeyPem), lifetimeSeconds: TICKET_LIFETIME_S },
      // (0 = no limit: the door still answers, always OK)
      pacing: { concurrency: opts.handshake_concurrency, maxRatePerSecond: opts.auth_rate, maxHoldMs: 1000 },
      onTurnedAway: (remote, ms) =>
        refusals.note(sourceKey(remote), 'busy', () =>
          logger.info(
            { remote, code: 'MASTER_BUSY', retryAfterMs: ms },
            `turned away a connection from ${remote} before TLS: ${this.listener?.pacing().inFlight ?? 'all'} handshakes are running (handshake_concurrency ${opts.handshake_concurrency}); told to come back in ${ms} ms`,
          ),
        ),
      // OpenSSL's messages can end in a newline; one log line per refusal keeps grep honest
      onRefused: (remote, err) => refusals.note(sourceKey(remote), err.code, () => logger.info({ remote, code: err.code }, err.message.replace(/\s+/g, ' ').trim())),
      onChannel: (channel, _raw, slot) => {
        if (this.stopped) {
          channel.close('shutdown');
          return;
        }
        live.add(new MinionSession(channel, clock, logger, settings, hooks), slot);
      },
    });
    // during a storm, one line every 5 s says how the pacing goes (nothing while nobody waits)
    this.pacingTimer = clock.setInterval(() => this.logPacing(), PACING_LOG_INTERVAL_MS);
  }

  /** The line operators and tests wait for: logged by the master once every feature has started. */
  announce(): void {
    const { opts, identity, logger } = this.deps;
    logger.info({ port: this.port, interface: opts.interface, fingerprint: identity.fingerprint }, `brine master listening on ${opts.interface}:${this.port}`);
  }

  /** Closes every session first, then the listener. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.pacingTimer?.cancel();
    this.deps.live.closeAll();
    await this.listener?.close();
  }

  private logPacing(): void {
    const p = this.listener?.pacing();
    if (!p || p.turnedAway === this.turnedAwayBefore) return;
    const turned = p.turnedAway - this.turnedAwayBefore;
    this.turnedAwayBefore = p.turnedAway;
    this.deps.logger.warn(
      { code: 'MASTER_BUSY', turnedAway: turned, inFlight: p.inFlight, limit: p.limit, waiting: p.waiting, plannedRate: Math.round(p.plannedRate) },
      `pacing sign-ins: told ${turned} connections in the last 5 s when to come back; ${p.inFlight} handshakes running (limit now ${p.limit}, handshake_concurrency ${this.deps.opts.handshake_concurrency}), ${p.waiting} held, planning ${Math.round(p.plannedRate)} sign-ins/s`,
    );
  }
}
