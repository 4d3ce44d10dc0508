// A master with `transport: nats` (docs/scale-out.md): the NATS hub instead of the TLS listener,
// the key store shared with the other masters through the `brine-keys` bucket, and key removals
// revoked on the servers. Each minion heard from gets a MinionSession on a NatsSessionChannel,
// with the same hooks as a TLS session except the sign-in: the servers have checked the
// minion's key, so a NATS session is accepted when its ID has an accepted key, and sign-ins
// arrive as requests on brine.signin.

import * as path from 'node:path';
import type { Clock, TimerHandle } from '../util/clock.js';
import { BrineError, toBrineError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import type { MasterOptions } from '../config/index.js';
import type { Identity, KeyStore } from '../pki/index.js';
import type { KeyStateSync, MinionDataShare, NatsMasterHub } from '../nats/index.js';
import type { JobTracker } from './job-tracker.js';
import { type AuthVerdict, MinionSession, type MinionSessionHooks, type MinionSessionSettings } from './minion-session.js';
import type { AcceptedKeyIndex } from './accepted-keys.js';
import type { SignIn } from './sign-in.js';
import type { PillarCacheRecord } from './pillar-service.js';

export interface NatsMasterDeps {
  opts: MasterOptions;
  identity: Identity;
  keys: KeyStore;
  acceptedKeys: AcceptedKeyIndex;
  jobs: () => JobTracker | undefined;
  /** A session made: the master tracks it until it closes. */
  adopt(session: MinionSession): void;
  stopped(): boolean;
  /** The shared key state changed this master's key files: close what is no longer accepted. */
  reconcileKeysFromBucket(): void;
  /** Grains from the shared bucket, into this master's data cache. */
  putGrains(id: string, fingerprint: string, grains: Record<string, unknown>): void;
  /** This master's pillar cache: what it rendered for a minion, and a pillar another master rendered. */
  pillar: {
    pillarFor(id: string): Promise<PillarCacheRecord>;
    adopt(rec: PillarCacheRecord): void;
  };
  /** This master's mine: what it holds of a minion, a mine from the bucket, a mine flushed elsewhere. */
  mine: {
    mineOf(id: string): Readonly<Record<string, unknown>> | undefined;
    replace(id: string, fingerprint: string, mine: Record<string, unknown>): void;
    purge(id: string): void;
  };
  logger: Logger;
  clock: Clock;
}

interface AcceptedKey {
  fingerprint: string;
  pem: string;
}

/** The sign-in source when the NATS server does not say who asks: one source for all of ENROL. */
const NO_SOURCE = 'nats';

/** How often a master retries joining the key bucket, and re-checks recent revocations. */
const RETRY_MS = 10_000;

export class NatsMaster {
  private hub: NatsMasterHub | undefined;
  private keySync: KeyStateSync | undefined;
  private dataShare: MinionDataShare | undefined;
  private retryTimer: TimerHandle | undefined;
  /** The accepted keys as last seen, to revoke what goes. */
  private accepted = new Map<string, AcceptedKey>();
  /** Keys revoked lately, checked again in case another master's push overwrote ours. */
  private recentlyRevoked = new Set<string>();
  private stopped = false;
  private warnedNoSource = false;
  private nats!: typeof import('../nats/index.js');

  constructor(private readonly deps: NatsMasterDeps) {}

  async start(settings: MinionSessionSettings, hooks: MinionSessionHooks, authorize: SignIn): Promise<void> {
    const { opts, logger, clock } = this.deps;
    if (opts.nats_servers.length === 0) throw new BrineError('CONFIG_VALUE', 'transport: nats needs nats_servers, the NATS servers to connect to (nats://host:port)');
    this.nats = await import('../nats/index.js');
    const { NatsMasterHub, NkeySigner, loadAccounts } = this.nats;
    const signer = NkeySigner.fromKey(this.deps.identity.privateKeyPem);
    const { accounts } = loadAccounts(path.join(opts.pki_dir, 'nats'));
    this.accepted = this.acceptedNow();
    const acceptedHooks: MinionSessionHooks = {
      ...hooks,
      authorize: (hello, ch) => this.verdict(hello.id, ch.peerFingerprint),
      probe: (hello, ch) => this.verdict(hello.id, ch.peerFingerprint),
      onGrains: (session, grains) => {
        hooks.onGrains?.(session, grains);
        this.dataShare?.offer('grains', session.id, session.fingerprint, grains);
      },
      onPillarRequest: (session, req) => {
        hooks.onPillarRequest?.(session, req);
        // the render this request started (or the cached pillar it answers with)
        this.deps.pillar.pillarFor(session.id).then(
          ({ id, pillar, errors, matchedNothing, renderedAt, grainsHash }) => this.dataShare?.offer('pillar', id, session.fingerprint, { pillar, errors, matchedNothing, renderedAt, grainsHash }),
          () => {},
        );
      },
      onMineRequest: (session, req) => {
        hooks.onMineRequest?.(session, req);
        if (req.t === 'mine_get') return;
        const mine = this.deps.mine.mineOf(session.id);
        if (mine === undefined) this.dataShare?.withdraw('mine', session.id);
        else this.dataShare?.offer('mine', session.id, session.fingerprint, { ...mine });
      },
    };
    const fingerprint = this.deps.identity.fingerprint.replace(/[^A-Za-z0-9]/g, '').slice(-16);
    this.hub = await NatsMasterHub.start(
      {
        servers: opts.nats_servers,
        ...(opts.nats_tls_ca === '' ? {} : { tlsCaFile: opts.nats_tls_ca }),
        signer,
        accounts,
        name: opts.id || 'brine-master',
        durable: `master-${fingerprint}`,
        replicas: opts.nats_replicas,
        maxAgeMs: Math.max(3600, opts.keep_jobs_seconds) * 1000,
        maxFrame: opts.max_frame_size,
        heartbeatTimeoutMs: opts.heartbeat_timeout * 1000,
        fastReturnRate: { ratePerSecond: opts.minion_msg_rate, burst: opts.minion_msg_burst },
      },
      {
        onChannel: (channel) => {
          if (this.deps.stopped()) {
            channel.close('shutdown');
            return;
          }
          this.deps.adopt(new MinionSession(channel, clock, logger, settings, acceptedHooks));
        },
        acceptedKey: (id) => {
          const fp = this.deps.acceptedKeys.fingerprintOf(id);
          const pem = fp === undefined ? undefined : this.deps.keys.read('accepted', id);
          return fp === undefined || pem === undefined ? undefined : { pem, fingerprint: fp };
        },
        signIn: (req, source) => {
          // the requester's address as the NATS server reports it: sign-in rates and pending-key
          // caps per client, as on TLS (threats.md #42); 'nats' (all of ENROL as one source)
          // only for servers that do not report it (accounts made before the import shared it)
          if (source === undefined && !this.warnedNoSource) {
            this.warnedNoSource = true;
            logger.warn(
              { code: 'CONFIG_VALUE' },
              "the NATS servers do not report who sends sign-in requests, so all of the enrolment account counts as one address for auth_rate_per_source and max_pending_keys_per_address; run 'brine nats update-accounts' (or regenerate the server configuration) so the ENROL import shares the requester's connection",
            );
          }
          const verdict = authorize({ id: req.id }, req.publicKeyPem, source ?? NO_SOURCE);
          // a pending or denied key was just written: the other masters learn it
          if (verdict.status !== 'accepted' && verdict.status !== 'busy') this.publishKeys([req.id]);
          return {
            status: verdict.status,
            ...(verdict.status === 'accepted' ? {} : { message: verdict.message }),
            ...(verdict.code === undefined ? {} : { code: verdict.code }),
            ...(verdict.retryAfter === undefined ? {} : { retryAfter: verdict.retryAfter }),
          };
        },
        onReturn: (source, ret) => this.deps.jobs()?.handleReturn(source, ret),
        onJobRecord: (record) => this.deps.jobs()?.adoptJob(record),
      },
      clock,
      logger,
    );
    await this.joinKeyBucket();
    await this.joinDataBucket();
    this.retryTimer = clock.setInterval(() => {
      if (this.keySync === undefined) void this.joinKeyBucket();
      if (this.dataShare === undefined) void this.joinDataBucket();
      if (this.recentlyRevoked.size > 0) void this.revoke([...this.recentlyRevoked], true);
    }, RETRY_MS);
    logger.info({ servers: opts.nats_servers, fingerprint: this.deps.identity.fingerprint }, `brine master connected to NATS ${opts.nats_servers.join(', ')}`);
  }

  /** The shared key bucket; without it this master works from its own key files and tries again. */
  private async joinKeyBucket(): Promise<void> {
    const hub = this.hub;
    if (hub === undefined || this.stopped) return;
    const { opts, logger } = this.deps;
    try {
      this.keySync = await this.nats.KeyStateSync.start({
        nc: hub.nc,
        keys: this.deps.keys,
        logger,
        name: opts.id || 'brine-master',
        replicas: hub.replicas,
        onApplied: () => this.deps.reconcileKeysFromBucket(),
      });
      if (this.stopped) await this.keySync.stop();
      else this.deps.reconcileKeysFromBucket();
    } catch (err) {
      const e = toBrineError(err);
      logger.warn({ code: e.code }, `cannot share key state through NATS yet: ${e.message}; this master uses its own key files and tries again in ${RETRY_MS / 1000} s`);
    }
  }

  /** The shared grains; without them this master learns grains only from the minions themselves. */
  private async joinDataBucket(): Promise<void> {
    const hub = this.hub;
    if (hub === undefined || this.stopped) return;
    try {
      this.dataShare = await this.nats.MinionDataShare.start({
        nc: hub.nc,
        replicas: hub.replicas,
        logger: this.deps.logger,
        acceptedFingerprint: (id) => this.deps.acceptedKeys.fingerprintOf(id),
        apply: (kind, id, fingerprint, data) => {
          if (kind === 'grains') this.deps.putGrains(id, fingerprint, data);
          else if (kind === 'pillar') {
            const rec = data as Partial<PillarCacheRecord>;
            if (typeof rec.pillar === 'object' && rec.pillar !== null && Array.isArray(rec.errors))
              this.deps.pillar.adopt({ matchedNothing: false, renderedAt: 0, grainsHash: '', ...rec, errors: rec.errors, pillar: rec.pillar, id });
          } else this.deps.mine.replace(id, fingerprint, data);
        },
        remove: (kind, id) => {
          if (kind === 'mine') this.deps.mine.purge(id);
        },
      });
      if (this.stopped) await this.dataShare.stop();
    } catch (err) {
      const e = toBrineError(err);
      this.deps.logger.warn({ code: e.code }, `cannot share minion data through NATS yet: ${e.message}; trying again in ${RETRY_MS / 1000} s`);
    }
  }

  private publishKeys(ids?: string[]): void {
    this.keySync?.publishLocal(ids).catch((err: unknown) => {
      const e = toBrineError(err);
      this.deps.logger.warn({ code: e.code }, `key changes not shared with the other masters yet: ${e.message}`);
    });
  }

  /** A NATS session's verdict: its ID's accepted key (the servers have checked it holds it). */
  private verdict(id: string, fingerprint: string): AuthVerdict {
    if (this.deps.acceptedKeys.matches(id, fingerprint)) return { status: 'accepted', message: 'accepted' };
    return { status: 'rejected', message: `${id} has no accepted key on this master` };
  }

  /**
   * The accepted keys now (ID -> fingerprint and PEM). A key whose fingerprint (the accepted-key
   * index re-reads a file only when its stamp changed) is the one seen last keeps its PEM, so a
   * reconcile of 10,000 keys reads only the files that changed.
   */
  private acceptedNow(): Map<string, AcceptedKey> {
    const map = new Map<string, AcceptedKey>();
    for (const id of this.deps.keys.list('accepted')) {
      const fingerprint = this.deps.acceptedKeys.fingerprintOf(id);
      if (fingerprint === undefined) continue;
      const before = this.accepted.get(id);
      const pem = before?.fingerprint === fingerprint ? before.pem : this.deps.keys.read('accepted', id);
      if (pem !== undefined) map.set(id, { fingerprint, pem });
    }
    return map;
  }

  /**
   * The key files changed (brine key, a hand edit, or another master through the bucket): keys
   * no longer accepted are revoked on the servers, which close those minions' connections and
   * refuse their JWTs; a change made here (`publish`) is also shared through the bucket.
   */
  keysChanged(publish: boolean): void {
    if (this.hub === undefined) return;
    if (publish) this.publishKeys();
    const now = this.acceptedNow();
    const pems = (keys: Map<string, AcceptedKey>) => new Map([...keys].map(([id, k]) => [id, k.pem]));
    const plan = this.nats.revocationsForKeyChanges(pems(this.accepted), pems(now), this.deps.logger);
    this.accepted = now;
    if (plan.revoke.length > 0) void this.revoke(plan.revoke, false);
  }

  private async revoke(userKeys: string[], recheck: boolean): Promise<void> {
    const hub = this.hub;
    if (hub === undefined) return;
    const { logger } = this.deps;
    try {
      await hub.withSystemConnection((sys, signer, account) => this.nats.ensureRevoked(sys, signer, account, userKeys, { logger }));
      if (!recheck) logger.info({ keys: userKeys.length }, `revoked ${userKeys.length} NATS credential${userKeys.length === 1 ? '' : 's'} of keys no longer accepted: those connections are closed`);
      for (const k of userKeys) {
        if (recheck) this.recentlyRevoked.delete(k);
        else this.recentlyRevoked.add(k);
      }
    } catch (err) {
      const e = toBrineError(err);
      for (const k of userKeys) this.recentlyRevoked.add(k);
      logger.error({ code: e.code }, `could not revoke ${userKeys.length} NATS credential${userKeys.length === 1 ? '' : 's'}: ${e.message}; trying again in ${RETRY_MS / 1000} s`);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.retryTimer?.cancel();
    await this.keySync?.stop().catch(() => {});
    await this.dataShare?.stop().catch(() => {});
    await this.hub?.stop();
  }

  /** Job records go to the stream, so every master keeps every job. */
  publishJobRecord(record: Parameters<NatsMasterHub['publishJobRecord']>[0]): void {
    this.hub?.publishJobRecord(record);
  }
}
