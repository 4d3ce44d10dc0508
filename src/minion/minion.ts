// The minion daemon's composition root: resolves its ID, loads its key, opens one MasterLink per
// master (hot/hot for `master_type: str`), runs the jobs it receives and keeps every return
// until the master acknowledges it.

import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { systemClock, type Clock } from '../util/clock.js';
import { type BrineError, toBrineError } from '../util/errors.js';
import { logAtSaltLevel, type Logger } from '../util/logger.js';
import { assertValidMinionId } from '../util/minion-id.js';
import type { MinionOptions } from '../config/index.js';
import type { Job, MinionStatus, Return } from '../protocol/index.js';
import { loadOrCreateIdentity, type Identity } from '../pki/index.js';
import { createMasterDialer, keepaliveFromConfig, type UnixListener } from '../transport/index.js';
import { MasterLink, MasterPool, type ConnectionDeps, type LinkEvents, type MasterEndpoint } from '../session/index.js';
import { connectionSettings, endpointKey, linkStatus, type MinionLink, openNatsLink, parseMasterEndpoint, retrySettings } from './minion-link.js';
import { minionMatches } from '../targeting/index.js';
// modules' own files, not the barrels: the registry and the renderers load on first use
import type { ExecContext, ExecResult, FileClient, Grains, ModuleRegistry } from '../modules/index.js';
import { extmodsDir } from '../modules/extmods-sync.js';
import { CachingFileClient } from '../fileserver/caching-client.js';
import { FileRoots } from '../fileserver/roots.js';
import { LocalFileSource } from '../fileserver/file-source.js';
import { MasterFileSource } from './master-files.js';
import { MAX_GRAINS_JSON, grainsSchema } from '../protocol/index.js';
import { JobRunner } from './job-runner.js';
import { MasterPins } from './master-pin.js';
import { resolveConfiguredId, type ResolvedId, type ResolveIdOptions } from './minion-id.js';
import { reportIdAtStart } from './id-checks.js';
import { ReturnQueue } from './return-queue.js';
import { RecentJids } from './recent-jids.js';
import { JidGenerator, formatJid, isJid } from '../jobs/jid.js';
import { minionSocketPath, startMinionControl } from './control-server.js';
import { runControlCall, type ControlCallHost } from './control-call.js';
import { ExtmodProblems } from './extmod-problems.js';
import type { MinionRegistryBuild } from './minion-extensions.js';
import { collectMinionGrains } from './minion-grains.js';
import { startupCalls, startupSummary } from './startup-states.js';
import { PillarStore } from './pillar-store.js';
import { MinionScheduler } from './schedule/minion-scheduler.js';
import { PillarClient, pillarForEnv, renderLocalPillar } from './pillar-client.js';
import { MasterMine } from './mine/master-mine.js';
import { LocalMine } from './mine/local-mine.js';
import { MINE_FUNCTION_TIMEOUT_S, MineService } from './mine/mine-service.js';

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

/** A master refused for now, as the control socket reports it (brine doctor). */
export interface RefusedMaster {
  master: string;
  code: string;
  message: string;
  since: number;
}

export class Minion {
  readonly links: MinionLink[] = [];
  private readonly recent = new RecentJids(1000);
  /** Which master link each unacknowledged return belongs to (its job came through it). */
  private readonly origin = new Map<string, MinionLink>();
  private grainsCache: Grains = {};
  /** This minion's current pillar (filled by the pillar client; read by jobs, the mine and the scheduler). */
  readonly pillar = new PillarStore();
  private stopped = false;
  /** Synced files that failed at their last load, per kind (brine doctor). */
  private readonly extmodProblems: ExtmodProblems;
  /** jids for brine call's local jobs (control-call.ts). */
  private readonly callJids: JidGenerator;
  /** startup_states ran (or was started): once per daemon, not per reconnect. */
  private startupRun = false;
  private readonly runner: JobRunner;
  /** Per link, for `brine doctor` (minion_status on the control socket). */
  private readonly linkStats = new Map<MinionLink, { ready: number; since?: number; lastDown?: string }>();
  private readonly startedAt: number;
  private control: UnixListener | undefined;
  /** Masters refused by key (not trusted) or by a trusted refusal, until they accept us again. */
  private readonly refused = new Map<string, RefusedMaster>();
  /** Trusted masters that rejected this minion since they last accepted it. */
  private readonly rejectedBy = new Set<string>();
  /** The master's file server over the session (file_client: remote); undefined with file_client: local. */
  private readonly masterFiles: MasterFileSource | undefined;
  /** salt:// for jobs: the master's file server, or the minion's own file_roots. */
  readonly files: FileClient;
  /** The `schedule` option and pillar's, run through the job runner (docs/schedule.md). */
  readonly schedule: MinionScheduler;
  /** Asks the master for this minion's pillar (file_client: remote); undefined when masterless. */
  private readonly pillarClient: PillarClient | undefined;
  /** The master's mine over the session, and the minion's mine_functions/mine_interval (mine.*). */
  private readonly masterMine: MasterMine;
  private readonly mine: MineService;
  /** A first-use build in progress (loadRegistry). */
  private registryLoading: Promise<ModuleRegistry> | undefined;

  private constructor(
    readonly opts: MinionOptions,
    readonly resolvedId: ResolvedId,
    readonly identity: Identity,
    private readonly logger: Logger,
    private readonly clock: Clock,
    /** Built at start when there are custom modules or states (their problems are reported then); else on first use. */
    private registryBuilt: ModuleRegistry | undefined,
    private readonly runtime: MinionRuntime,
    /** Returns kept on disk until a master acknowledges them. */
    readonly returns: ReturnQueue,
  ) {
    const cache = { cachedir: opts.cachedir, chunkSize: opts.file_buffer_size };
    this.extmodProblems = new ExtmodProblems(opts.cachedir);
    this.callJids = new JidGenerator(clock);
    if (opts.file_client === 'local') {
      this.files = new CachingFileClient(new LocalFileSource(new FileRoots(opts)), cache);
    } else {
      this.masterFiles = new MasterFileSource(() => this.links, clock);
      this.files = new CachingFileClient(this.masterFiles, cache);
      this.pillarClient = new PillarClient(this.pillar, () => this.links, clock, logger);
    }
    this.schedule = new MinionScheduler({
      opts,
      id: resolvedId.id,
      logger,
      clock,
      pillar: this.pillar,
      run: (job) => this.runner.run(job),
      claimJid: (jid) => this.recent.add(jid),
      deliver: (ret) => this.deliverOwnReturn(ret),
    });
    this.masterMine = new MasterMine(() => this.links, clock);
    this.mine = new MineService({
      // masterless (file_client: local): the mine is this minion's own, in its cachedir, as in Salt
      master: opts.file_client === 'local' ? new LocalMine(opts.cachedir, resolvedId.id, () => this.grainsCache) : this.masterMine,
      // mine.valid runs inside a job, so the registry is there; a mine update may come first
      hasFunction: (fun) => (this.registryBuilt ? this.registryBuilt.get(fun) !== undefined : this.loadRegistry().then((r) => r.get(fun) !== undefined)),
      run: (fun, arg, kwarg) => this.runner.runFunction(fun, arg, kwarg, formatJid(clock.now() * 1000), MINE_FUNCTION_TIMEOUT_S),
      configured: opts.mine_functions,
      pillar: this.pillar,
      clock,
      logger,
      intervalMs: opts.mine_enabled ? opts.mine_interval * 60_000 : undefined,
    });
    this.runner = new JobRunner({
      schedule: this.schedule.functions,
      registry: () => this.registryBuilt ?? this.loadRegistry(),
      mine: this.mine,
      services: {
        files: this.files,
        ...(opts.file_client === 'local' ? { localFiles: true } : {}),
        // salt['mine.get'](...) in a template: answered on this thread, which has the master session
        hostCall: (fun, arg, kwarg) => (fun.startsWith('mine.') ? this.runMineCall(fun, arg, kwarg) : undefined),
        log: (level, message) => logAtSaltLevel(logger, level, message),
        pillarFor: (pillarenv) => this.pillarFor(pillarenv),
      },
      minionId: resolvedId.id,
      grains: () => this.grainsCache,
      config: opts,
      logger,
      maxConcurrent: opts.max_concurrent_jobs,
      jobTimeoutS: opts.job_timeout,
      maxReturnBytes: opts.max_return_size,
      refreshGrains: async (o) => {
        await this.refreshGrains();
        if (o?.refreshPillar !== false) await this.refreshPillarAfterGrains();
      },
      reloadExtmods: (kinds) => this.reloadExtmods(kinds),
      pillar: () => this.pillar.get(),
      refreshPillar: () => this.refreshPillar(),
      clock,
    });
    this.startedAt = clock.now();
  }

  get id(): string {
    return this.resolvedId.id;
  }

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
    // module_dirs, and custom modules and states synced from the master before the restart
    // custom modules and states (module_dirs, or synced before the restart): loaded now, so their
    // problems are reported at start; without them the registry is built on first use
    const built = hasExtensions(opts) ? await buildRegistry(opts, logger) : undefined;
    const minion = new Minion(opts, resolved, identity, logger, runtime.clock ?? systemClock, built?.registry, runtime, returns);
    if (built) minion.extmodProblems.note(['modules', 'states'], built.problems);
    await minion.refreshGrains();
    // masterless: the minion's own pillar_roots, before any job can run
    if (opts.file_client === 'local') minion.pillar.set(await renderLocalPillar(opts, minion.id, minion.grainsCache));
    minion.connect();
    minion.schedule.start();
    // masterless: nothing to wait for; otherwise the first master connection starts it
    if (opts.file_client === 'local') minion.runStartupStates();
    // a masterless minion's mine needs no session: its updates start now
    if (opts.file_client === 'local') minion.mine.onReady();
    await minion.openControl();
    return minion;
  }

  /** The control socket is a diagnostic aid: a minion that cannot open it still runs. */
  private async openControl(): Promise<void> {
    const socketPath = minionSocketPath(this.opts);
    try {
      const control = await startMinionControl(socketPath, { logger: this.logger, status: () => this.status(), call: (req, cancelled) => runControlCall(this.callHost(), req, cancelled) });
      if (this.stopped) void control.close();
      else this.control = control;
    } catch (err) {
      this.logger.warn(
        { socket: socketPath, err: (err as Error).message },
        `cannot open the minion control socket ${socketPath}; brine doctor will not see this minion's own view. Give each minion on a host its own sock_dir.`,
      );
    }
  }

  /** What `brine call`'s local jobs use of this daemon: its links, pillar, job runner and return queue. */
  private callHost(): ControlCallHost {
    return {
      id: this.id,
      masterless: this.opts.file_client === 'local' || this.opts.master_type === 'disable',
      links: () => this.links,
      lastDown: (link) => this.linkStats.get(link)?.lastDown,
      newJid: () => this.recent.claimNew(() => this.callJids.next()),
      refreshPillar: () => this.refreshPillar(),
      run: (job) => this.runner.run(job),
      kill: (jid) => this.runner.kill(jid),
      deliver: (ret) => this.deliverOwnReturn(ret),
    };
  }

  /** This daemon's view of its masters and its return queue. */
  status(): MinionStatus {
    return {
      t: 'minion_status',
      id: this.id,
      startedAt: this.startedAt,
      links: this.links.map((link) => linkStatus(link, this.linkStats.get(link) ?? { ready: 0 })),
      returnQueue: this.returns.size,
      returnsDropped: this.returns.dropped,
      ...(this.refused.size > 0 ? { refusedMasters: [...this.refused.values()] } : {}),
      ...this.schedule.status(),
      ...this.extmodProblems.status(),
      ...(this.mine.status === undefined ? {} : { mine: this.mine.status }),
    };
  }

  /** The registry, built on first use when the start did not need it (one build for concurrent callers). */
  private loadRegistry(): Promise<ModuleRegistry> {
    if (this.registryBuilt) return Promise.resolve(this.registryBuilt);
    this.registryLoading ??= buildRegistry(this.opts, this.logger).then((built) => {
      // a sync (reloadExtmods) may have replaced it meanwhile: keep the newer one
      if (this.registryBuilt === undefined) {
        this.registryBuilt = built.registry;
        this.extmodProblems.note(['modules', 'states'], built.problems);
      }
      this.registryLoading = undefined;
      return this.registryBuilt;
    });
    return this.registryLoading;
  }

  /** A mine.* call from a job's template (a blocking salt[...] call), run inline with the mine service. */
  private async runMineCall(fun: string, arg: unknown[], kwarg: Record<string, unknown>): Promise<ExecResult> {
    const registry = await this.loadRegistry();
    const ctx: ExecContext = { grains: () => this.grainsCache, minionId: this.id, config: this.opts, signal: new AbortController().signal, jid: 'mine', mine: this.mine };
    return registry.call(fun, arg, kwarg, ctx);
  }

  /** Returns not yet acknowledged by any master. */
  get pendingReturns(): number {
    return this.returns.size;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.schedule.stop();
    this.mine.stop();
    this.runner.abortAll();
    for (const link of this.links) link.stop();
    void this.control?.close();
  }

  private connect(): void {
    const { opts, logger, clock } = this;
    if (opts.master_type === 'disable') {
      logger.warn('master_type is disable, skipping connection');
      return;
    }
    if (opts.transport === 'nats') {
      this.connectNats().catch((err: unknown) => this.onFatal(toBrineError(err)));
      return;
    }
    const masters = (Array.isArray(opts.master) ? opts.master : [opts.master]).map((m) => parseMasterEndpoint(m, opts.master_port));
    const pins = new MasterPins(opts.pki_dir, opts.master_finger);
    pins.migrateLegacy(masters, logger);
    const deps: ConnectionDeps = {
      clock,
      logger,
      ...createMasterDialer({ identity: this.identity, timeoutMs: opts.auth_timeout * 1000, socketOptions: keepaliveFromConfig(opts), maxFrame: opts.preauth_max_frame_size, logger }),
      trustMaster: (master, endpoint) => pins.check(master, endpoint),
      pinMaster: (master, endpoint) => pins.confirm(master, endpoint),
    };
    const allMasters = new Set(masters.map(endpointKey));
    const connOpts = {
      id: this.id,
      ...connectionSettings(opts),
      maxFrame: opts.max_frame_size,
      // reported with each heartbeat, for the master's brine_minion_returns_queued
      returnsQueued: () => this.returns.size,
    };
    const linkOpts = {
      ...retrySettings(opts),
      // Salt: a failback interval of 0 falls back to master_alive_interval
      failbackIntervalMs: (opts.master_failback_interval || opts.master_alive_interval || 30) * 1000,
      // a trusted master's rejection ends the minion only once every master has rejected it
      giveUpOnRefusal: (endpoint: MasterEndpoint, error: BrineError) => {
        this.rejectedBy.add(endpointKey(endpoint));
        this.noteRefused(endpoint, error);
        return [...allMasters].every((m) => this.rejectedBy.has(m));
      },
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
        this.wrapEvents(() => link),
      );
      this.links.push(link);
      link.start();
    }
  }

  /** transport: nats (docs/scale-out.md): one link to the NATS cluster instead of one per master. */
  private async connectNats(): Promise<void> {
    const { opts, id, identity, clock, logger } = this;
    const link: MinionLink = await openNatsLink(
      { opts, id, identity, clock, logger, returnsQueued: () => this.returns.size },
      this.wrapEvents(() => link),
    );
    if (this.stopped) return;
    this.links.push(link);
    link.start();
  }

  /** The runtime's wrapper (tests) around the events of one link. */
  private wrapEvents(link: () => MinionLink): LinkEvents {
    const events = this.linkEvents(link);
    return this.runtime.wrapLinkEvents?.(events) ?? events;
  }

  /** What the minion does when a link signs in, goes down, or brings a message; the same for every transport. */
  private linkEvents(getLink: () => MinionLink): LinkEvents {
    const { logger, clock } = this;
    return {
      onReady: (conn) => {
        this.rejectedBy.delete(endpointKey(getLink().endpoint));
        this.refused.delete(endpointKey(getLink().endpoint));
        const stats = this.linkStats.get(getLink()) ?? { ready: 0 };
        this.linkStats.set(getLink(), { ...stats, ready: stats.ready + 1, since: clock.now() });
        const m = getLink().endpoint;
        logger.info({ master: `${m.host}:${m.port}`, address: conn.resolvedAddress, fingerprint: conn.masterFingerprint }, `Minion is ready to receive requests from ${m.host}`);
        // grains first, so the master's data cache is fresh before returns come in, and before
        // the pillar request on the same ordered session (the master renders with them)
        this.sendGrains(getLink());
        // startup_states run once the pillar is here (or could not be had): states use it
        const pillarFetched = this.pillarClient?.fetch(getLink()) ?? Promise.resolve();
        pillarFetched
          .catch((err: unknown) => {
            logger.warn(
              { err: err instanceof Error ? err.message : String(err) },
              'could not get the pillar from the master at sign-in; jobs use the last pillar received until saltutil.refresh_pillar succeeds',
            );
          })
          .finally(() => this.runStartupStates());
        // Salt runs mine.update at start; later sessions (a restarted or failed-over master) get it too
        this.mine.onReady();
        // returns whose job came through this getLink(), and those restored from disk
        for (const ret of this.returns.pending()) {
          const origin = this.origin.get(ret.jid);
          if (origin === undefined || origin === getLink()) getLink().send(ret);
        }
      },
      onMessage: (m) => {
        if (m.t === 'ack') {
          this.returns.ack(m.jid);
          this.origin.delete(m.jid);
        } else if (m.t === 'mine_reply') {
          this.masterMine.onReply(m);
        } else if (m.t === 'file_reply') {
          this.masterFiles?.onReply(m);
        } else if (m.t === 'pillar_reply') {
          this.pillarClient?.onReply(m);
        } else if (m.t === 'find_job') {
          // asked over this session when the master's wait for our return ran out
          getLink().send({ t: 'job_status', jid: m.jid, running: this.runner.isRunning(m.jid) });
        } else this.onJob(m, getLink());
      },
      onFatal: (err) => this.onFatal(err),
      onDown: (outcome) => {
        this.masterFiles?.onLinkDown(getLink());
        this.pillarClient?.onLinkDown(getLink());
        this.masterMine.onLinkDown(getLink());
        this.linkStats.set(getLink(), { ready: this.linkStats.get(getLink())?.ready ?? 0, lastDown: outcome.reason });
      },
      onUntrustedMaster: (endpoint, err) => {
        this.noteRefused(endpoint, err);
        this.runtime.onUntrustedMaster?.(endpoint, err);
      },
    };
  }

  private noteRefused(endpoint: MasterEndpoint, err: BrineError): void {
    const master = endpointKey(endpoint);
    const since = this.refused.get(master)?.since ?? this.clock.now();
    // bounded as the status message allows
    this.refused.set(master, { master, code: err.code, message: err.message.slice(0, 4000), since });
  }

  /**
   * Re-collects the grains and sends them to every connected master (saltutil.refresh_grains);
   * a master connected later gets them at sign-in. Resolves to the custom grain files that failed.
   */
  async refreshGrains(): Promise<{ file: string; reason: string }[]> {
    const { grains, problems } = await collectMinionGrains({ id: this.id, config: this.opts, logger: this.logger });
    this.grainsCache = grains;
    for (const link of this.links) this.sendGrains(link);
    return this.extmodProblems.note(['grains'], problems);
  }

  /**
   * After saltutil.sync_*: a new registry for the jobs that follow (modules, states), and/or
   * grains collected and sent again. Resolves to the synced files that failed to load.
   */
  async reloadExtmods(kinds: readonly ('grains' | 'modules' | 'states')[]): Promise<{ file: string; reason: string }[]> {
    const problems: { file: string; reason: string }[] = [];
    if (kinds.includes('modules') || kinds.includes('states')) {
      const built = await buildRegistry(this.opts, this.logger);
      this.registryBuilt = built.registry;
      this.registryLoading = undefined;
      this.runner.replaceRegistry(built.registry);
      // module_dirs problems were there before any sync; report those of the synced files
      const all = this.extmodProblems.note(['modules', 'states'], built.problems);
      const asked = kinds.filter((k) => k !== 'grains').map((k) => extmodsDir(this.opts.cachedir, k) + path.sep);
      problems.push(...all.filter((p) => asked.some((dir) => p.file.startsWith(dir))));
    }
    if (kinds.includes('grains')) {
      problems.push(...(await this.refreshGrains()));
      await this.refreshPillarAfterGrains();
    }
    return problems;
  }

  /**
   * New grains can change the pillar (the master renders it with them), so after
   * saltutil.refresh_grains and sync_grains/sync_all the pillar is fetched again, as Salt's
   * refresh_pillar there. With no master connected the next sign-in brings both.
   */
  private async refreshPillarAfterGrains(): Promise<void> {
    if (this.opts.file_client !== 'local' && !this.links.some((l) => l.ready)) return;
    try {
      await this.refreshPillar();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.logger.warn({ err: message }, `the grains were sent again but the pillar could not be refreshed (${message}); run saltutil.refresh_pillar`);
    }
  }

  /**
   * Gets this minion's pillar again (saltutil.refresh_pillar): from the master, or rendered from
   * its own pillar_roots when masterless. Throws MASTER_UNREACHABLE when no master answers.
   */
  async refreshPillar(): Promise<void> {
    if (this.opts.file_client === 'local') {
      this.pillar.set(await renderLocalPillar(this.opts, this.id, this.grainsCache));
      return;
    }
    await this.pillarClient?.fetch();
  }

  /** This minion's pillar from one pillar environment, for one call (state.apply pillarenv=); not stored. */
  pillarFor(pillarenv: string): Promise<Record<string, unknown>> {
    return pillarForEnv(this.opts, this.id, this.grainsCache, this.pillarClient, pillarenv);
  }

  /** Sends the grains for the master's minion data cache, unless they exceed the protocol bound. */
  private sendGrains(link: MinionLink): void {
    const grains = this.grainsCache as Record<string, unknown>;
    const problem = grainsSchema.check({ t: 'grains', grains }, 'grains');
    if (problem !== undefined) {
      // the master would refuse the message and drop the connection; it treats us as "no data" instead
      this.logger.error(
        { problem },
        `not sending grains to the master: ${problem} (limit ${MAX_GRAINS_JSON} characters of JSON); grain targets will always include this minion until the grains: config is made smaller`,
      );
      return;
    }
    link.send({ t: 'grains', grains });
  }

  /**
   * startup_states: sync custom modules (autoload_dynamic_modules), then the state run, through
   * the job runner as any job (state lock, worker thread). The outcome goes to the log only: the
   * master keeps returns of jobs it published, and it did not publish these.
   */
  private runStartupStates(): void {
    if (this.startupRun) return;
    this.startupRun = true;
    const calls = startupCalls(this.opts);
    if (calls.length === 0) return;
    void (async () => {
      for (const call of calls) {
        if (this.stopped) return;
        const job: Job = { t: 'job', jid: formatJid(this.clock.now() * 1000), ...call, kwarg: call.kwarg as Job['kwarg'], arg: call.arg as Job['arg'], tgt: this.id, tgtType: 'glob' };
        const ret = await this.runner.run(job);
        const line = `startup_states: ${startupSummary(ret)}`;
        if (ret.success) this.logger.info({ jid: job.jid, fun: job.fun }, line);
        else this.logger.error({ jid: job.jid, fun: job.fun, retcode: ret.retcode }, line);
      }
    })().catch((err: unknown) => this.logger.error({ err: err instanceof Error ? err.message : String(err) }, 'startup_states failed'));
  }

  private onJob(job: Job, link: MinionLink): void {
    // the minion re-checks the target itself, as in Salt, and runs a jid only once
    let mine: boolean;
    try {
      mine = minionMatches(job.tgt, job.tgtType, this.id, this.grainsCache, job.delimiter, this.pillar.get());
    } catch (err) {
      this.logger.warn({ jid: job.jid, tgt: job.tgt, tgtType: job.tgtType, err: err instanceof Error ? err.message : String(err) }, 'ignored a job whose target this minion cannot evaluate');
      return;
    }
    if (!mine) return;
    if (!isJid(job.jid)) {
      this.logger.warn({ jid: job.jid, fun: job.fun }, 'ignored a job whose jid is not a valid timestamp jid');
      return;
    }
    if (!this.recent.add(job.jid)) return;
    void this.runner
      .run(job)
      .then((ret) => {
        if (this.stopped) return;
        this.returns.add(ret);
        this.origin.set(ret.jid, link);
        link.send(ret);
      })
      .catch((err: unknown) => this.logger.error({ err, jid: job.jid }, 'job runner failed'));
  }

  /**
   * The return of a run this minion started itself (scheduled, or brine call's): queued (on disk)
   * like any other, sent now through one connected master; with none connected it goes out from
   * the queue when a master signs in.
   */
  private deliverOwnReturn(ret: Return): void {
    if (this.stopped) return;
    this.returns.add(ret);
    this.links.find((l) => l.ready)?.send(ret);
  }

  private onFatal(err: BrineError): void {
    this.stop();
    this.logger.fatal({ code: err.code }, err.message);
    this.runtime.onFatal?.(err);
  }
}

/** module_dirs, or custom modules or states synced from the master (saltutil.sync_*). */
function hasExtensions(opts: MinionOptions): boolean {
  if ((opts.module_dirs ?? []).length > 0) return true;
  return opts.cachedir !== '' && (existsSync(extmodsDir(opts.cachedir, 'modules')) || existsSync(extmodsDir(opts.cachedir, 'states')));
}

/** The registry's code (execution modules, state compiler, renderers) is loaded only here. */
async function buildRegistry(opts: MinionOptions, logger: Logger): Promise<MinionRegistryBuild> {
  const { buildMinionRegistry } = await import('./minion-extensions.js');
  return buildMinionRegistry(opts, logger);
}
