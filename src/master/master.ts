// The master daemon's composition root (issue 24): builds the shared parts (key store, job cache,
// event bus, sign-in), then the short list of features, routes every minion session to that list,
// and stops it. What each feature owns and when it acts: docs/architecture.md, "Master features".

import * as fs from 'node:fs';
import * as path from 'node:path';
import { systemClock, type Clock } from '../util/clock.js';
import { FeatureList } from '../util/features.js';
import type { Logger } from '../util/logger.js';
import { TimerWheel } from '../util/timer-wheel.js';
import type { MasterOptions } from '../config/index.js';
import type { MinionMessage, SessionInfo } from '../protocol/index.js';
import { KeyStore, loadOrCreateIdentity, type Identity } from '../pki/index.js';
import { JidGenerator, JobCache } from '../jobs/index.js';
import { AcceptedKeyIndex } from './accepted-keys.js';
import { AuthAdmission } from './admission.js';
import { EventBus } from './event-bus.js';
import { LiveSessions } from './live-sessions.js';
import type { MinionSession } from './minion-session.js';
import { RefusalLog } from './refusal-log.js';
import { HookFailures, sessionHooks, sessionSettings } from './session-router.js';
import { createSignIn } from './sign-in.js';
import { Api } from './features/api.js';
import { ConnectionEvents } from './features/connection-events.js';
import { NoTopLog } from './features/no-top-log.js';
import { Control } from './features/control.js';
import { Files } from './features/files.js';
import { GitPillar } from './features/git-pillar.js';
import { Jobs } from './features/jobs.js';
import { KeyReconcile } from './features/key-reconcile.js';
import type { MasterFeature, MasterTargeting } from './features/master-feature.js';
import { Metrics } from './features/metrics.js';
import { MinionData } from './features/minion-data.js';
import { Mine } from './features/mine.js';
import { Orchestrate, orchestrateRunners } from './features/orchestrate.js';
import { orchestrateCalls } from './orchestrate-calls.js';
import { matchAccepted } from './api-backend.js';
import { MinionEvents } from './features/minion-events.js';
import { StateProgressEvents } from './features/state-progress.js';
import { NatsTransport } from './features/nats-transport.js';
import { Pillar } from './features/pillar.js';
import { Presence } from './features/presence.js';
import { ReactorFeature } from './features/reactor.js';
import { Returners } from './features/returners.js';
import { PresenceEvents } from './features/presence-events.js';
import { TlsTransport } from './features/tls-transport.js';
import { Runners, type RunnerExtras } from './features/runners.js';

export const AGENT_VERSION = '0.1.0';

type MasterFeatures = FeatureList<MinionSession, MinionMessage>;

/** The features the master's own getters read (ports, presence). */
interface Running {
  features: MasterFeatures;
  presence: Presence;
  metrics: Metrics;
  api: Api;
  tls: TlsTransport | undefined;
}

export class Master {
  readonly keys: KeyStore;
  readonly events: EventBus;
  /** Accepted keys' fingerprints by file stamp: used by sign-in, reconcile and the data cache. */
  private readonly acceptedKeys: AcceptedKeyIndex;
  private readonly live = new LiveSessions();
  private readonly failures: HookFailures;
  /** Every feature in the order it was built: stopped in reverse when the start fails half way. */
  private readonly built: MasterFeature[] = [];
  private cache: JobCache | undefined;
  private heartbeats: TimerWheel | undefined;
  private running: Running | undefined;
  private stopped = false;
  private extras: RunnerExtras = {};

  private constructor(
    readonly opts: MasterOptions,
    readonly identity: Identity,
    private readonly logger: Logger,
    private readonly clock: Clock,
  ) {
    this.events = new EventBus(clock);
    this.keys = new KeyStore(opts.pki_dir);
    this.acceptedKeys = new AcceptedKeyIndex(this.keys);
    this.failures = new HookFailures(logger);
  }

  /** `extras`: what the daemon's start-up adds to the runners (salt.cmd's functions, brine's version). */
  static async start(opts: MasterOptions, logger: Logger, clock: Clock = systemClock, extras: RunnerExtras = {}): Promise<Master> {
    const identity = await loadOrCreateIdentity({ pkiDir: opts.pki_dir, name: 'master', commonName: opts.id || 'brine-master' });
    const master = new Master(opts, identity, logger, clock);
    master.extras = extras;
    try {
      await master.open();
    } catch (err) {
      await master.stop();
      throw err;
    }
    return master;
  }

  get port(): number {
    return this.running?.tls?.port ?? 0;
  }

  /** The bound metrics_port (0 when metrics_port is off). */
  get metricsPort(): number {
    return this.running?.metrics.port ?? 0;
  }

  /** The REST API's bound port and base URL (undefined when the API is off). */
  get api(): { port: number; url: string; routes: Array<{ method: string; url: string }> } | undefined {
    return this.running?.api.served;
  }

  /** Every accepted minion and every minion with presence history (`brine minions status`). */
  presence(): SessionInfo[] {
    return this.running?.presence.presence() ?? [];
  }

  private async open(): Promise<void> {
    const { opts, identity, logger, clock, keys, acceptedKeys, events, live } = this;
    const own = <F extends MasterFeature>(f: F): F => {
      this.built.push(f);
      return f;
    };
    keys.ensureLayout();
    fs.mkdirSync(opts.cachedir, { recursive: true, mode: 0o700 });
    const cache = JobCache.open(path.join(opts.cachedir, 'jobs.sqlite'), { keepJobsSeconds: opts.keep_jobs_seconds, clock });
    this.cache = cache;
    // data about minions; a bad pillar or file_roots option fails the start here, before any server
    const presence = own(new Presence({ cache, keys, events, logger, clock }));
    const minionData = own(new MinionData(cache, clock, logger, opts.minion_data_cache));
    const pillar = own(new Pillar(opts, logger, (id) => minionData.cache.grainsOf(id), clock));
    const targeting: MasterTargeting = { grains: (id) => minionData.cache.grainsOf(id), pillar: (id) => pillar.service.pillarOf(id), dataCache: opts.minion_data_cache, nodegroups: opts.nodegroups };
    const mine = own(new Mine(cache, clock, logger, () => targeting, opts.mine_get_pillar_targets));
    const keyReconcile = own(new KeyReconcile({ pkiDir: opts.pki_dir, keys, acceptedKeys, presence, minionData: minionData.cache, pillar: pillar.service, mine: mine.store, logger, clock }));
    const minionEvents = own(new MinionEvents({ events, clock, logger, ratePerSecond: opts.minion_event_rate, burst: opts.minion_event_burst }));
    const stateProgress = own(new StateProgressEvents({ events, clock, logger }));
    const files = own(new Files(opts, logger, clock));
    const gitPillar = own(new GitPillar(pillar.service, opts.cachedir, clock, logger));
    let nats: NatsTransport | undefined;
    // one generator for minion jobs and runner jobs: their jids never collide
    const jids = new JidGenerator(clock);
    const jobs = own(
      new Jobs({
        clock,
        logger,
        cache,
        targeting,
        jids,
        defaultTimeoutS: opts.timeout,
        gatherJobTimeoutS: opts.gather_job_timeout,
        acceptedIds: () => keys.list('accepted'),
        session: (id) => presence.sessions.get(id) as MinionSession | undefined,
        emit: (e) => events.emit(e),
        onPublished: (record) => nats?.hub.publishJobRecord(record),
      }),
    );
    // the servers: pre-auth refusals (caps, TLS failures, malformed hellos, busy, refused API tokens) logged in summary per address
    const refusals = own(new RefusalLog(logger, clock));
    const admission = new AuthAdmission(clock, opts.auth_rate, Math.random, opts.auth_rate_per_source);
    let tls: TlsTransport | undefined;
    const fleet = {
      // the gauges count by state: no sort by ID per scrape
      presence: () => presence.presence({ sorted: false }),
      keyCounts: () => countKeys(keys),
      queuedReturns: () => presence.sessions.connected().map((s) => s.returnsQueued),
      awaitingSignIn: () => live.awaitingSignIn(),
      // turned away after TLS (auth_rate) and at the door before it (handshake pacing)
      turnedAway: () => admission.turnedAway + (tls?.turnedAway ?? 0),
    };
    const returners = own(new Returners({ opts, events, logger, clock }));
    const metrics = own(new Metrics({ fleet, events, host: opts.metrics_host, port: opts.metrics_port, logger }));
    let api!: Api;
    let reactor: ReactorFeature | undefined;
    // the orchestration's runner and wheel steps run over the runners, built below (the registry holds the orchestration runners)
    let runners!: Runners;
    const orchestration = own(
      new Orchestrate({
        ...{ config: opts, files: files.service.backends, jobs: () => jobs.tracker, events, jids, clock, logger, localCall: this.extras.localCall },
        match: (tgt, tgtType) => matchAccepted(keys.list('accepted'), tgt, tgtType, targeting),
        ...orchestrateCalls({ runners: () => runners, auth: () => api.backend?.auth }),
      }),
    );
    const view = {
      ...{ keys, identity, events, metrics: metrics.registry, presence: () => presence.presence(), reconcileKeys: () => keyReconcile.reconcile() },
      // the reactor is built after the view its runner and wheel reactions use; the view reads its list when asked
      reactions: (limit: number) => reactor?.recent(limit) ?? [],
    };
    const extras: RunnerExtras = { ...this.extras, extraRunners: new Map([...orchestrateRunners(orchestration), ...(this.extras.extraRunners ?? [])]) };
    runners = own(new Runners({ opts, master: view, jobs: jobs.tracker, cache, jids, files: files.service, pillar: pillar.service, mine: mine.store, targeting, extras, logger, clock }));
    api = own(new Api({ opts, identity, master: view, jobs: jobs.tracker, cache, targeting, refusals, runnerHost: runners.host, logger, clock }));
    reactor = own(new ReactorFeature({ opts, events, files: files.service.backends, master: view, jobs: jobs.tracker, cache, targeting, runnerHost: runners.host, logger, clock }));
    const control = own(new Control({ opts, keys, events, targeting, jobs, presence, keyReconcile, metrics, files, gitPillar, runners, reactions: view.reactions, logger, clock }));
    // the minions' way in: every session's silence check on one timer, noticed at most a tick late
    // (1/30 of heartbeat_timeout, at most 500 ms); each session routed to the list built below
    this.heartbeats = new TimerWheel(clock, Math.max(10, Math.min(500, Math.floor((opts.heartbeat_timeout * 1000) / 30))));
    const settings = sessionSettings(opts, identity.fingerprint, this.heartbeats);
    const { authorize, probe } = createSignIn({ opts, logger, clock, keys, acceptedKeys, events, sessions: presence.sessions, masterFingerprint: identity.fingerprint, admission, refusals });
    // the list is built once its transport exists; no session arrives before it starts
    let features!: MasterFeatures;
    const hooks = sessionHooks({ features: () => features, failures: this.failures, live, authorize, probe, admission, refusals, logger });
    let transport: NatsTransport | TlsTransport;
    if (opts.transport === 'nats') {
      nats = own(
        new NatsTransport({
          ...{ opts, identity, keys, acceptedKeys, logger, clock, settings, hooks, authorize, live },
          jobs: () => jobs.tracker,
          reconcileKeysFromBucket: () => keyReconcile.reconcile('bucket'),
          putGrains: (id, fingerprint, grains) => minionData.cache.put(id, fingerprint, grains),
          pillar: pillar.service,
          mine: mine.store,
        }),
      );
      const hub = nats.hub;
      keyReconcile.onKeysChanged = (publish) => hub.keysChanged(publish);
      transport = nats;
    } else {
      tls = own(new TlsTransport({ opts, identity, settings, hooks, live, refusals, logger, clock }));
      transport = tls;
    }
    // the order of every moment: start and messages in this order, stop in reverse (servers
    // close after the timers and the jobs stop, presence flushes last); see docs/architecture.md
    const presenceEvents = opts.presence_events ? [own(new PresenceEvents({ events, clock, connected: () => presence.sessions.connected().map((s) => s.id), intervalS: opts.loop_interval }))] : [];
    const list = [
      presence,
      refusals,
      returners,
      metrics,
      api,
      control,
      transport,
      jobs,
      orchestration,
      new ConnectionEvents({ events, logger, clock }),
      new NoTopLog({ opts, events, logger }),
      ...presenceEvents,
      minionData,
      pillar,
      mine,
      minionEvents,
      stateProgress,
      keyReconcile,
      files,
      gitPillar,
      runners,
      reactor,
    ];
    features = new FeatureList<MinionSession, MinionMessage>(list, this.failures.onError);
    this.running = { features, presence, metrics, api, tls };
    await features.start();
    tls?.announce();
  }

  /** Closes every session, listener and file; safe to call more than once. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.heartbeats?.close();
    try {
      // a failing stop is logged and the others still run, so presence (first, stopped last) is written
      await (this.running?.features ?? new FeatureList<MinionSession, MinionMessage>(this.built, this.failures.onError)).stop();
    } finally {
      this.cache?.close();
    }
    // as before the feature split: a server that failed to close makes the stop fail (exit 1)
    // once everything else has stopped and the history is written
    if (this.failures.stopFailure) throw this.failures.stopFailure.err;
    this.logger.info('brine master stopped');
  }
}

function countKeys(keys: KeyStore): { accepted: number; pending: number; rejected: number; denied: number } {
  const all = keys.listAll();
  return { accepted: all.accepted.length, pending: all.pending.length, rejected: all.rejected.length, denied: all.denied.length };
}
