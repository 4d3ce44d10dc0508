// The master daemon's composition root: wires the identity, key store, job cache, session
// table, TLS listener and control socket together, and owns their shutdown.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { systemClock, type Clock, type TimerHandle } from '../util/clock.js';
import { TimerWheel } from '../util/timer-wheel.js';
import { BrineError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import type { MasterOptions } from '../config/index.js';
import { MINION_MESSAGES, type ChannelClose, type MasterMessage, type MinionMessage } from '../protocol/index.js';
import { KEY_STATES, KeyStore, loadOrCreateIdentity, ticketKeysFor, TICKET_LIFETIME_S, type Identity, type KeyState } from '../pki/index.js';
import { keepaliveFromConfig, listenTls, sourceKey, type TlsListener, type UnixListener } from '../transport/index.js';
import { JidGenerator, JobCache } from '../jobs/index.js';
import { startControlServer } from './control-server.js';
import { controlAccess } from './control-access.js';
import { JobTracker } from './job-tracker.js';
import { MinionSession, type MinionSessionHooks, type MinionSessionSettings } from './minion-session.js';
import { SessionTable } from './session-table.js';
import { EventBus } from './event-bus.js';
import { MinionDataCache } from './minion-data-cache.js';
import { createSignIn } from './sign-in.js';
import { AcceptedKeyIndex } from './accepted-keys.js';
import { AuthAdmission } from './admission.js';
import { RefusalLog } from './refusal-log.js';
import { FileService } from './file-service.js';
import { GitPillarUpdates } from './git-pillar-updates.js';
import { PillarService } from './pillar-service.js';
import { MineStore } from './mine-store.js';
import { answerMineRequest } from './mine-service.js';
import type { SessionInfo } from '../protocol/index.js';
import { BrineMetrics, startMetricsServer, type MetricsServer } from '../metrics/index.js';
import { Authenticator } from '../auth/index.js';
import { apiOptionsFrom, apiTlsMaterial, startApiServer, type ApiServer } from '../api/index.js';
import { acceptedWithin, createApiBackend, matchAccepted } from './api-backend.js';
import { controlSocketPath } from './control-socket-path.js';
import { NatsMaster } from './nats-master.js';

export const AGENT_VERSION = '0.1.0';

export class Master {
  /** Replaced in open() by one backed by the job cache, before any minion can connect. */
  sessions: SessionTable;
  readonly keys: KeyStore;
  readonly events = new EventBus();
  private listener: TlsListener | undefined;
  private control: UnixListener | undefined;
  private purgeTimer: TimerHandle | undefined;
  private reconcileTimer: TimerHandle | undefined;
  /** Sessions closed because their key went, with when: `brine key` asks which closed since it began. */
  private keyCloses: { id: string; at: number }[] = [];
  private pacingTimer: TimerHandle | undefined;
  private jobs: JobTracker | undefined;
  private cache: JobCache | undefined;
  private minionData: MinionDataCache | undefined;
  /** The mine (mine.send/get/delete/flush from minions); exposed for tests and diagnostics. */
  mine: MineStore | undefined;
  private refusals: RefusalLog | undefined;
  /** salt:// for accepted minions (file_roots); created in open() so a bad file_roots fails the start. */
  files: FileService | undefined;
  gitPillar: GitPillarUpdates | undefined;
  /** Per-minion pillar from pillar_roots; created in open() so a bad pillar option fails the start. */
  pillar: PillarService | undefined;
  /** Sessions not yet closed, each with its pre-auth slot (released at sign-in). */
  private readonly live = new Map<MinionSession, { release(): void }>();
  /** Prometheus metrics (docs/metrics.md): fed by the event bus, served on metrics_port and by the API. */
  readonly metrics: BrineMetrics;
  private metricsServer: MetricsServer | undefined;
  private apiServer: ApiServer | undefined;
  private auth: Authenticator | undefined;
  private admission: AuthAdmission | undefined;
  /** Accepted keys' fingerprints by file stamp: used by sign-in, reconcile and the data cache. */
  private readonly acceptedKeys: AcceptedKeyIndex;
  private stopped = false;
  /** transport: nats: this master's side of the cluster (instead of the TLS listener). */
  private nats: NatsMaster | undefined;
  private heartbeatWheel: TimerWheel | undefined;

  private constructor(
    readonly opts: MasterOptions,
    readonly identity: Identity,
    private readonly logger: Logger,
    private readonly clock: Clock,
  ) {
    this.sessions = new SessionTable(clock);
    this.keys = new KeyStore(opts.pki_dir);
    this.acceptedKeys = new AcceptedKeyIndex(this.keys);
    this.metrics = new BrineMetrics({
      fleet: {
        presence: () => this.presence(),
        keyCounts: () => {
          const all = this.keys.listAll();
          return { accepted: all.accepted.length, pending: all.pending.length, rejected: all.rejected.length, denied: all.denied.length };
        },
        queuedReturns: () => this.sessions.connected().map((s) => s.returnsQueued),
        awaitingSignIn: () => {
          let n = 0;
          for (const s of this.live.keys()) if (!s.ready) n++;
          return n;
        },
        // turned away after TLS (auth_rate) and at the door before it (handshake pacing)
        turnedAway: () => (this.admission?.turnedAway ?? 0) + (this.listener?.pacing().turnedAway ?? 0),
      },
    });
    this.events.subscribe((_tag, event) => this.metrics.observe(event));
  }

  /** The REST API's bound port and base URL (undefined when the API is off). */
  get api(): { port: number; url: string; routes: Array<{ method: string; url: string }> } | undefined {
    return this.apiServer ? { port: this.apiServer.port, url: this.apiServer.url, routes: this.apiServer.routes } : undefined;
  }

  /** The bound metrics_port (0 when metrics_port is off). */
  get metricsPort(): number {
    return this.metricsServer?.port ?? 0;
  }

  static async start(opts: MasterOptions, logger: Logger, clock: Clock = systemClock): Promise<Master> {
    const identity = await loadOrCreateIdentity({ pkiDir: opts.pki_dir, name: 'master', commonName: opts.id || 'brine-master' });
    const master = new Master(opts, identity, logger, clock);
    try {
      await master.open();
    } catch (err) {
      await master.stop();
      throw err;
    }
    return master;
  }

  get port(): number {
    return this.listener?.port ?? 0;
  }

  private async open(): Promise<void> {
    const { opts, logger, clock } = this;
    this.keys.ensureLayout();
    fs.mkdirSync(opts.cachedir, { recursive: true, mode: 0o700 });
    this.cache = JobCache.open(path.join(opts.cachedir, 'jobs.sqlite'), { keepJobsSeconds: opts.keep_jobs_seconds, clock });
    const cache = this.cache;
    this.sessions = new SessionTable(clock, {
      store: cache,
      batchWrites: true,
      onStoreError: (err, doing) =>
        logger.error({ err }, `presence history: ${doing} failed; brine minions status keeps working from memory, but this history will not survive a restart (check the job cache: ${cache.file})`),
    });
    // history of IDs whose key was deleted while the master was down: an ID enrolled again
    // inherits nothing (threats.md #6)
    const atStart = this.keyStatesById();
    for (const info of this.sessions.list()) if (!atStart.has(info.id)) this.sessions.forget(info.id);
    // written now, not on the next tick: a master stopped (or killed) right after it starts must
    // not leave the old history in the store for a later start to load
    this.sessions.flush();
    const minionData = new MinionDataCache(cache, clock, logger, opts.minion_data_cache);
    this.minionData = minionData;
    const pillar = new PillarService(opts, logger, (id) => minionData.grainsOf(id), clock);
    this.pillar = pillar;
    const mine = new MineStore(
      cache,
      clock,
      logger,
      () => ({
        grains: (id) => minionData.grainsOf(id),
        pillar: (id) => pillar.pillarOf(id),
        dataCache: opts.minion_data_cache,
        nodegroups: opts.nodegroups,
      }),
      opts.mine_get_pillar_targets,
    );
    this.mine = mine;
    // keys deleted or replaced while the master was down: their mine is not inherited
    mine.reconcile(new Set(this.keys.list('accepted')), this.acceptedKeys);
    const targeting = { grains: (id: string) => minionData.grainsOf(id), pillar: (id: string) => pillar.pillarOf(id), dataCache: opts.minion_data_cache, nodegroups: opts.nodegroups };
    this.jobs = new JobTracker({
      clock,
      logger,
      cache,
      jids: new JidGenerator(clock),
      acceptedIds: () => this.keys.list('accepted'),
      session: (id) => this.sessions.get(id) as MinionSession | undefined,
      defaultTimeoutS: opts.timeout,
      gatherJobTimeoutS: opts.gather_job_timeout,
      emit: (e) => this.events.emit(e),
      targeting,
      onPublished: (record) => this.nats?.publishJobRecord(record),
    });
    if (opts.metrics_port !== null) await this.startMetrics(opts.metrics_host, opts.metrics_port);
    const access = controlAccess(opts, { logger, acceptedIds: () => this.keys.list('accepted'), targeting });
    // pre-auth refusals (caps, TLS failures, malformed hellos, busy, refused API tokens) are
    // logged in summary per address
    const refusals = new RefusalLog(logger, clock);
    this.refusals = refusals;
    await this.startApi(cache, minionData, pillar, refusals);
    const files = new FileService(opts, logger, clock);
    this.files = files;
    const gitPillar = new GitPillarUpdates(pillar.gitRemotes(), opts.cachedir, clock, logger);
    this.gitPillar = gitPillar;
    this.control = await startControlServer(controlSocketPath(opts), {
      logger,
      jobs: this.jobs,
      presence: () => this.presence(),
      events: this.events,
      reconcileKeys: (since) => this.reconcileKeysSince(since),
      access,
      match: (tgt, tgtType, delimiter, within) => matchAccepted(acceptedWithin(this.keys.list('accepted'), within), tgt, tgtType, targeting, delimiter),
      metrics: async () => ({ text: await this.metrics.renderMetrics(), contentType: this.metrics.contentType }),
      fileserverUpdate: (backend) => files.update(backend),
      gitPillarUpdate: (branch, repo) => gitPillar.update(branch, repo),
      clock,
    });

    // every session's silence check on one timer; a timeout is noticed at most a tick late
    // (1/30 of heartbeat_timeout, at most 500 ms)
    this.heartbeatWheel = new TimerWheel(clock, Math.max(10, Math.min(500, Math.floor((opts.heartbeat_timeout * 1000) / 30))));
    const settings = {
      heartbeatTimers: this.heartbeatWheel,
      handshakeTimeoutMs: opts.handshake_timeout * 1000,
      heartbeatIntervalMs: opts.heartbeat_interval * 1000,
      heartbeatTimeoutMs: opts.heartbeat_timeout * 1000,
      maxFrame: opts.max_frame_size,
      masterFingerprint: this.identity.fingerprint,
      messageRate: { ratePerSecond: opts.minion_msg_rate, burst: opts.minion_msg_burst, graceSeconds: opts.minion_msg_grace },
    };
    const admission = new AuthAdmission(clock, opts.auth_rate, Math.random, opts.auth_rate_per_source);
    this.admission = admission;
    const { authorize, probe } = createSignIn({
      opts,
      logger,
      clock,
      keys: this.keys,
      acceptedKeys: this.acceptedKeys,
      events: this.events,
      sessions: this.sessions,
      masterFingerprint: this.identity.fingerprint,
      admission,
      refusals,
    });

    // one hooks object for every session (each session passes itself), not closures per session
    const hooks: MinionSessionHooks = {
      authorize: (hello, ch) => authorize(hello, ch.peerPublicKeyPem, ch.remoteAddress, ch.peerFingerprint),
      probe: (hello, ch) => probe(hello, ch.peerPublicKeyPem, ch.remoteAddress),
      onAuthenticated: (s) => {
        // no longer counts against the pre-auth connection caps
        this.live.get(s)?.release();
        const replaced = this.sessions.attach(s);
        if (replaced) {
          logger.info({ id: s.id, old: replaced.remoteAddress, new: s.remoteAddress }, `minion ${s.id} reconnected; replacing its previous session`);
          this.events.emit({ kind: 'minion_replaced', id: s.id, oldRemote: replaced.remoteAddress, newRemote: s.remoteAddress, at: clock.now() });
          replaced.close('replaced');
        }
        this.events.emit({ kind: 'minion_connected', id: s.id, remote: s.remoteAddress, agent: s.agent, at: clock.now() });
        logger.info({ id: s.id, remote: s.remoteAddress, agent: s.agent }, `minion ${s.id} connected`);
      },
      onReturn: (s, ret) => this.jobs?.handleReturn(s, ret),
      onJobStatus: (s, status) => this.jobs?.handleJobStatus(s, status),
      onGrains: (s, grains) => minionData.put(s.id, s.fingerprint, grains),
      onFileRequest: (s, req) => files.handle(s, req),
      onPillarRequest: (s, req) => pillar.handle(s, req),
      onMineRequest: (s, req) => answerMineRequest(mine, s, req, logger),
      onHeartbeat: (_s, ping) => this.metrics.observeHeartbeat(ping),
      onClosed: (s, info, authenticated) => {
        this.live.delete(s);
        if (!authenticated) {
          // a malformed or unexpected first message spends its source's sign-in budget too
          if (info.reason === 'protocol_error' || info.reason === 'frame_too_large') admission.charge(sourceKey(s.remoteAddress));
          if (!s.probed) logUnauthenticatedClose(refusals, logger, s.remoteAddress, info);
          return;
        }
        this.sessions.detach(s, info.reason);
        this.jobs?.handleSessionClosed(s.id);
        const now = clock.now();
        this.events.emit({ kind: 'minion_disconnected', id: s.id, remote: s.remoteAddress, reason: info.reason, connectedForMs: now - s.connectedAt, silentForMs: now - s.lastSeen, at: now });
        const level = info.reason === 'replaced' || info.reason === 'shutdown' ? 'info' : 'warn';
        logger[level]({ id: s.id, remote: s.remoteAddress, reason: info.reason, error: info.error?.message }, `minion ${s.id} disconnected (${info.reason})`);
      },
    };
    if (opts.transport === 'nats') {
      this.nats = new NatsMaster({
        opts,
        identity: this.identity,
        keys: this.keys,
        acceptedKeys: this.acceptedKeys,
        jobs: () => this.jobs,
        adopt: (session) => this.live.set(session, { release() {} }),
        stopped: () => this.stopped,
        reconcileKeysFromBucket: () => this.reconcileKeys('bucket'),
        putGrains: (id, fingerprint, grains) => minionData.put(id, fingerprint, grains),
        pillar,
        mine: {
          mineOf: (id) => mine.mineOf(id),
          replace: (id, fingerprint, data) => {
            try {
              mine.send(id, fingerprint, data as Parameters<MineStore['send']>[2], true);
            } catch (err) {
              logger.warn({ id, err: (err as Error).message }, `did not take the mine of ${id} from the shared bucket: ${(err as Error).message}`);
            }
          },
          purge: (id) => mine.purge(id, 'flushed on another master'),
        },
        logger,
        clock,
      });
      await this.nats.start(settings, hooks, authorize);
    } else await this.startTls(settings, hooks, refusals);
    // brine key tells a running master at once; this also catches keys changed by hand
    let lastStoreMtime = 0;
    const acceptedDir = path.join(opts.pki_dir, 'minions');
    this.reconcileTimer = clock.setInterval(() => {
      try {
        // an unlink or rename in minions/ changes its mtime; skip the per-session reads otherwise
        const mtime = fs.statSync(acceptedDir).mtimeMs;
        if (mtime === lastStoreMtime) return;
        lastStoreMtime = mtime;
        this.reconcileKeys();
      } catch (err) {
        logger.error({ err }, 'checking sessions against the key store failed');
      }
    }, 5_000);
    // in bounded steps that yield between them: a day of a large fleet's returns is seconds of
    // SQLite work, which in one go would stall every session's heartbeats (bench:jobcache)
    let purging = false;
    this.purgeTimer = clock.setInterval(() => {
      try {
        const tokens = this.auth?.purgeExpired() ?? 0;
        if (tokens > 0) logger.info({ purged: tokens }, 'forgot expired API tokens');
      } catch (err) {
        logger.error({ err }, 'purging expired API tokens failed');
      }
      if (purging) return;
      purging = true;
      cache
        .purgeExpiredInBatches()
        .then(
          (n) => {
            if (n > 0) logger.info({ purged: n }, 'purged expired jobs from the job cache');
          },
          (err: unknown) => logger.error({ err }, 'purging the job cache failed'),
        )
        .finally(() => {
          purging = false;
        });
    }, 3_600_000);
    if (this.listener) logger.info({ port: this.port, interface: opts.interface, fingerprint: this.identity.fingerprint }, `brine master listening on ${opts.interface}:${this.port}`);
  }

  /** The built-in transport: the TLS listener on ret_port, with its door and pacing. */
  private async startTls(settings: MinionSessionSettings, hooks: MinionSessionHooks, refusals: RefusalLog): Promise<void> {
    const { opts, logger, clock } = this;
    this.listener = await listenTls<MinionMessage, MasterMessage>({
      host: opts.interface,
      port: opts.ret_port,
      identity: this.identity,
      handshakeTimeoutMs: opts.handshake_timeout * 1000,
      preauthMaxFrame: opts.preauth_max_frame_size,
      socketOptions: keepaliveFromConfig(opts),
      schemas: MINION_MESSAGES,
      preauth: { maxTotal: opts.preauth_max_connections, maxPerSource: opts.preauth_max_connections_per_source, fdReserve: opts.preauth_fd_reserve },
      // handshakes paced at the door: never planned faster than auth_rate admits sign-ins
      // derived from the master's key: minions coming back after a restart resume their TLS
      // sessions, and a re-keyed master cannot resume the old key's sessions (ticket-keys.ts)
      tickets: { keys: ticketKeysFor(this.identity.privateKeyPem), lifetimeSeconds: TICKET_LIFETIME_S },
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
        this.live.set(new MinionSession(channel, clock, logger, settings, hooks), slot);
      },
    });
    // during a storm, one line every 5 s says how the pacing goes (nothing while nobody waits)
    let turnedAwayBefore = 0;
    this.pacingTimer = clock.setInterval(() => {
      const p = this.listener?.pacing();
      if (!p || p.turnedAway === turnedAwayBefore) return;
      const turned = p.turnedAway - turnedAwayBefore;
      turnedAwayBefore = p.turnedAway;
      logger.warn(
        { code: 'MASTER_BUSY', turnedAway: turned, inFlight: p.inFlight, limit: p.limit, waiting: p.waiting, plannedRate: Math.round(p.plannedRate) },
        `pacing sign-ins: told ${turned} connections in the last 5 s when to come back; ${p.inFlight} handshakes running (limit now ${p.limit}, handshake_concurrency ${opts.handshake_concurrency}), ${p.waiting} held, planning ${Math.round(p.plannedRate)} sign-ins/s`,
      );
    }, 5000);
  }

  private async startMetrics(host: string, port: number): Promise<void> {
    if (port > 65535) throw new BrineError('CONFIG_VALUE', `metrics_port ${port} is not a TCP port: use 1-65535 (0 picks a free one), or remove metrics_port to turn the server off`);
    const endpoint = { render: () => this.metrics.renderMetrics(), contentType: this.metrics.contentType };
    this.metricsServer = await startMetricsServer(host, port, endpoint, (err) => this.logger.error({ err }, 'the metrics server failed'));
    this.logger.info({ host, port: this.metricsServer.port }, `serving Prometheus metrics on http://${host.includes(':') ? `[${host}]` : host}:${this.metricsServer.port}/metrics`);
  }

  /** The REST API, when `api:` or `rest_cherrypy:` is set (docs/api.md). */
  private async startApi(cache: JobCache, minionData: MinionDataCache, pillar: PillarService, refusals: RefusalLog): Promise<void> {
    const apiOpts = apiOptionsFrom(this.opts);
    if (!apiOpts || !this.jobs) return;
    if (apiOpts.standalone) {
      this.logger.info({}, '`api: {standalone: true}` is set: the REST API is served by `brine api`, not by the master');
      return;
    }
    const { opts, logger, clock } = this;
    this.auth = new Authenticator({
      externalAuth: opts.external_auth,
      tokenExpireS: opts.token_expire,
      tokenFile: path.join(opts.cachedir, 'api-tokens.sqlite'),
      keyFingerprint: this.identity.fingerprint,
      maxFailures: opts.api_login_failures,
      windowS: opts.api_login_window,
      clock,
      logger,
      tokenRefusals: { note: (source, reason, logFull) => refusals.note(sourceKey(source), reason, logFull) },
    });
    const backend = createApiBackend({
      master: this,
      auth: this.auth,
      jobs: this.jobs,
      cache,
      grainsOf: (id) => minionData.grainsOf(id),
      targeting: { grains: (id) => minionData.grainsOf(id), pillar: (id) => pillar.pillarOf(id), dataCache: opts.minion_data_cache, nodegroups: opts.nodegroups },
      logger,
      clock,
    });
    const tls = await apiTlsMaterial({ pki_dir: opts.pki_dir, id: opts.id, master: this.identity }, apiOpts.disableSsl || apiOpts.sslCrt !== undefined);
    this.apiServer = await startApiServer(backend, apiOpts, tls);
    logger.info({ url: this.apiServer.url }, `serving the REST API on ${this.apiServer.url}`);
    logger.debug({ routes: this.apiServer.routes }, `REST API routes: ${this.apiServer.routes.map((r) => `${r.method} ${r.url}`).join(', ')}`);
  }

  /**
   * Closes every session whose key is no longer the accepted one (deleted, rejected or replaced)
   * and forgets what the master knew of that ID, so an ID enrolled again inherits nothing. With
   * transport: nats a change made here (`origin` local) is also shared through the key bucket;
   * one that came from the bucket is not published back.
   */
  /**
   * What `brine key` reports: the sessions this reconcile closed, and those the 5 s timer (or
   * another `brine key`) closed for a key change since `since` (ms), so a timer that runs between
   * the CLI's change and its request does not hide the close from the operator.
   */
  reconcileKeysSince(since: number | undefined): string[] {
    const closed = this.reconcileKeys();
    if (since === undefined) return closed;
    const seen = new Set(closed);
    for (const c of this.keyCloses) if (c.at >= since && !seen.has(c.id)) seen.add(c.id);
    return [...seen];
  }

  reconcileKeys(origin: 'local' | 'bucket' = 'local'): string[] {
    this.nats?.keysChanged(origin === 'local');
    const closed: string[] = [];
    for (const s of this.sessions.connected()) {
      // the index re-reads a key file only when its stamp changed, so this stays cheap with 10k sessions
      if (this.acceptedKeys.matches(s.id, s.fingerprint)) continue;
      const accepted = this.acceptedKeys.fingerprintOf(s.id);
      closed.push(s.id);
      this.noteKeyClose(s.id);
      this.logger.warn({ id: s.id, remote: s.remoteAddress, fingerprint: s.fingerprint, accepted }, `closing the session of ${s.id}: its key is no longer accepted`);
      s.close('key_deleted');
      this.sessions.forget(s.id);
      this.minionData?.purge(s.id);
      this.pillar?.purge(s.id);
      this.mine?.purge(s.id);
    }
    // cached grains of IDs no longer accepted, or sent under a key since replaced (threats.md #6)
    const live = new Set(this.sessions.connected().map((s) => s.id));
    const purged = this.minionData?.reconcile(
      new Set(this.keys.list('accepted')),
      this.minionData.ids().filter((id) => !live.has(id)),
      this.acceptedKeys,
    );
    for (const id of purged ?? []) this.pillar?.purge(id);
    // the mine of IDs no longer accepted, or sent under a key since replaced (no stale data from a departed host)
    this.mine?.reconcile(new Set(this.keys.list('accepted')), this.acceptedKeys);
    // presence data of IDs that have no key at all any more
    const withKeys = this.keyStatesById();
    for (const info of this.sessions.list()) {
      if (info.state !== 'connected' && !withKeys.has(info.id)) this.sessions.forget(info.id);
    }
    return closed;
  }

  private noteKeyClose(id: string): void {
    const now = this.clock.now();
    // a minute of closes, at most 10k: enough for any `brine key` run to find its own
    this.keyCloses = this.keyCloses.filter((c) => c.at >= now - 60_000).slice(-9_999);
    this.keyCloses.push({ id, at: now });
  }

  /**
   * Every accepted minion and every minion with presence history (kept across restarts). One
   * whose key is no longer accepted shows its key state (rejected, denied, pending) instead of
   * `disconnected`, and one with no key left is not listed.
   */
  presence(): SessionInfo[] {
    const states = this.keyStatesById();
    const accepted = new Set([...states].filter(([, st]) => st.includes('accepted')).map(([id]) => id));
    const out = new Map<string, SessionInfo>();
    for (const info of this.sessions.list()) {
      if (info.state === 'connected' || accepted.has(info.id)) {
        out.set(info.id, info);
        continue;
      }
      const keyState = states.get(info.id)?.find((st) => st !== 'accepted');
      if (keyState !== undefined) out.set(info.id, { ...info, state: keyState });
    }
    for (const id of accepted) if (!out.has(id)) out.set(id, { id, state: 'never_connected', reconnects: 0 });
    return [...out.values()].sort((a, b) => a.id.localeCompare(b.id));
  }

  /**
   * ID -> the states it has a key in (in KEY_STATES order), from one listing of the four key
   * directories: asking per ID would open four files for every minion with presence history.
   */
  private keyStatesById(): Map<string, KeyState[]> {
    const byId = new Map<string, KeyState[]>();
    const all = this.keys.listAll();
    for (const state of KEY_STATES) {
      for (const id of all[state]) {
        const states = byId.get(id);
        if (states) states.push(state);
        else byId.set(id, [state]);
      }
    }
    return byId;
  }

  /** Closes every session, listener and file; safe to call more than once. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.purgeTimer?.cancel();
    this.reconcileTimer?.cancel();
    this.pacingTimer?.cancel();
    this.heartbeatWheel?.close();
    this.files?.close();
    this.gitPillar?.close();
    this.jobs?.stop();
    for (const s of this.live.keys()) s.close('shutdown');
    try {
      await Promise.all([this.listener?.close(), this.nats?.stop(), this.control?.close(), this.metricsServer?.close(), this.apiServer?.close()]);
    } finally {
      // the presence history and the job cache are written even when a server failed to close
      this.refusals?.stop();
      this.auth?.close();
      this.sessions.flush();
      this.cache?.close();
    }
    this.logger.info('brine master stopped');
  }
}

// Auth outcomes are logged by authorize(); every other pre-auth close (oversized frame, bad
// JSON, no hello in time, a peer hanging up mid-frame) is logged here, so an operator can see
// who pokes at the port and why it was turned away.
function logUnauthenticatedClose(refusals: RefusalLog, logger: Logger, remote: string, info: ChannelClose): void {
  if (info.reason.startsWith('auth_') || info.reason === 'invalid_id') return;
  const code = info.error instanceof BrineError ? info.error.code : undefined;
  const why = info.error ? `: ${code ? `${code}: ` : ''}${info.error.message}` : '';
  refusals.note(sourceKey(remote), info.reason, () => logger.info({ remote, reason: info.reason, code }, `closed a connection from ${remote} before authentication (${info.reason})${why}`));
}
