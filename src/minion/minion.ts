// The minion daemon's composition root: resolves its ID, loads its key, opens one MasterLink per
// master (hot/hot for `master_type: str`), runs the jobs it receives and keeps every return
// until the master acknowledges it.

import * as path from 'node:path';
import { systemClock, type Clock } from '../util/clock.js';
import type { BrineError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { assertValidMinionId } from '../util/minion-id.js';
import type { MinionOptions } from '../config/index.js';
import type { Job, MinionStatus, Return } from '../protocol/index.js';
import { loadOrCreateIdentity, type Identity } from '../pki/index.js';
import { createMasterDialer, keepaliveFromConfig, type UnixListener } from '../transport/index.js';
import { MasterLink, MasterPool, type ConnectionDeps, type LinkEvents, type MasterEndpoint } from '../session/index.js';
import { minionMatches } from '../targeting/index.js';
import { BRINE_VERSION, collectGrains, loadModuleDirs, type FileClient, type Grains, type ModuleRegistry } from '../modules/index.js';
import { CachingFileClient, FileRoots, LocalFileSource } from '../fileserver/index.js';
import { MasterFileSource } from './master-files.js';
import { MAX_GRAINS_JSON, grainsSchema } from '../protocol/index.js';
import { JobRunner } from './job-runner.js';
import { MasterPins } from './master-pin.js';
import { resolveConfiguredId, type ResolvedId, type ResolveIdOptions } from './minion-id.js';
import { reportIdAtStart } from './id-checks.js';
import { ReturnQueue } from './return-queue.js';
import { RecentJids } from './recent-jids.js';
import { isJid } from '../jobs/jid.js';
import { minionSocketPath, startMinionControl } from './control-server.js';
import { createMinionRegistry } from '../state/index.js';
import { PillarStore } from './pillar-store.js';
import { MinionScheduler } from './minion-scheduler.js';

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

export function parseMasterEndpoint(entry: string, defaultPort: number): MasterEndpoint {
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (v6) return { host: v6[1]!, port: v6[2] ? Number(v6[2]) : defaultPort };
  const parts = entry.split(':');
  if (parts.length === 2 && /^\d+$/.test(parts[1]!)) return { host: parts[0]!, port: Number(parts[1]) };
  return { host: entry, port: defaultPort };
}

function endpointKey(m: MasterEndpoint): string {
  return `${m.host}:${m.port}`;
}

export class Minion {
  readonly links: MasterLink[] = [];
  private readonly recent = new RecentJids(1000);
  /** Which master link each unacknowledged return belongs to (its job came through it). */
  private readonly origin = new Map<string, MasterLink>();
  private grainsCache: Grains = {};
  /** This minion's current pillar (filled by the pillar client; read by jobs, the mine and the scheduler). */
  readonly pillar = new PillarStore();
  private stopped = false;
  private readonly runner: JobRunner;
  /** Per link, for `brine doctor` (minion_status on the control socket). */
  private readonly linkStats = new Map<MasterLink, { ready: number; since?: number; lastDown?: string }>();
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

  private constructor(
    readonly opts: MinionOptions,
    readonly resolvedId: ResolvedId,
    readonly identity: Identity,
    private readonly logger: Logger,
    private readonly clock: Clock,
    registry: ModuleRegistry,
    private readonly runtime: MinionRuntime,
    /** Returns kept on disk until a master acknowledges them. */
    readonly returns: ReturnQueue,
  ) {
    const cache = { cachedir: opts.cachedir, chunkSize: opts.file_buffer_size };
    if (opts.file_client === 'local') {
      this.files = new CachingFileClient(new LocalFileSource(new FileRoots(opts)), cache);
    } else {
      this.masterFiles = new MasterFileSource(() => this.links, clock);
      this.files = new CachingFileClient(this.masterFiles, cache);
    }
    this.schedule = new MinionScheduler({
      opts,
      id: resolvedId.id,
      logger,
      clock,
      pillar: this.pillar,
      run: (job) => this.runner.run(job),
      claimJid: (jid) => this.recent.add(jid),
      deliver: (ret) => this.deliverScheduled(ret),
    });
    this.runner = new JobRunner({
      schedule: this.schedule.functions,
      registry,
      services: { files: this.files, ...(opts.file_client === 'local' ? { localFiles: true } : {}) },
      minionId: resolvedId.id,
      grains: () => this.grainsCache,
      config: opts,
      logger,
      maxConcurrent: opts.max_concurrent_jobs,
      jobTimeoutS: opts.job_timeout,
      maxReturnBytes: opts.max_return_size,
      refreshGrains: () => this.refreshGrains(),
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
    const registry = createMinionRegistry();
    const custom = await loadModuleDirs(registry, opts.module_dirs ?? [], logger);
    if (custom.loaded.length > 0) logger.info({ modules: custom.loaded.map((m) => m.file) }, `loaded ${custom.loaded.length} custom module file(s) from module_dirs`);
    const minion = new Minion(opts, resolved, identity, logger, runtime.clock ?? systemClock, registry, runtime, returns);
    minion.grainsCache = await minion.collectGrains();
    minion.connect();
    minion.schedule.start();
    await minion.openControl();
    return minion;
  }

  /** The control socket is a diagnostic aid: a minion that cannot open it still runs. */
  private async openControl(): Promise<void> {
    const socketPath = minionSocketPath(this.opts);
    try {
      const control = await startMinionControl(socketPath, { logger: this.logger, status: () => this.status() });
      if (this.stopped) void control.close();
      else this.control = control;
    } catch (err) {
      this.logger.warn(
        { socket: socketPath, err: (err as Error).message },
        `cannot open the minion control socket ${socketPath}; brine doctor will not see this minion's own view. Give each minion on a host its own sock_dir.`,
      );
    }
  }

  /** This daemon's view of its masters and its return queue. */
  status(): MinionStatus {
    return {
      t: 'minion_status',
      id: this.id,
      startedAt: this.startedAt,
      links: this.links.map((link) => {
        const stats = this.linkStats.get(link) ?? { ready: 0 };
        const conn = link.connection;
        const out: MinionStatus['links'][number] = { endpoint: `${link.endpoint.host}:${link.endpoint.port}`, state: link.state, reconnects: Math.max(0, stats.ready - 1), attempts: link.attempts };
        if (conn) out.connection = conn.state;
        if (conn?.resolvedAddress !== undefined) out.address = conn.resolvedAddress;
        if (conn?.masterFingerprint !== undefined) out.masterFingerprint = conn.masterFingerprint;
        if (link.ready && stats.since !== undefined) out.connectedSince = stats.since;
        if (link.ready && conn?.rttMs !== undefined) out.rttMs = conn.rttMs;
        if (stats.lastDown !== undefined) out.lastDownReason = stats.lastDown;
        return out;
      }),
      returnQueue: this.returns.size,
      returnsDropped: this.returns.dropped,
      ...(this.refused.size > 0 ? { refusedMasters: [...this.refused.values()] } : {}),
      ...this.scheduleStatus(),
    };
  }

  /** Schedule jobs that cannot run, for brine doctor (bounded as the status message allows). */
  private scheduleStatus(): Pick<MinionStatus, 'scheduleErrors'> {
    const errors = [...this.schedule.scheduler.errors()].slice(0, 1024);
    if (errors.length === 0) return {};
    return { scheduleErrors: errors.map(([job, e]) => ({ job: job.slice(0, 256), code: e.code, message: e.message.slice(0, 4000) })) };
  }

  /** Returns not yet acknowledged by any master. */
  get pendingReturns(): number {
    return this.returns.size;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.schedule.stop();
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
      agent: `brine/${BRINE_VERSION}`,
      authTimeoutMs: opts.auth_timeout * 1000,
      heartbeatIntervalMs: opts.heartbeat_interval * 1000,
      heartbeatTimeoutMs: opts.heartbeat_timeout * 1000,
      maxFrame: opts.max_frame_size,
    };
    const linkOpts = {
      backoff: { baseMs: opts.recon_default, maxMs: opts.recon_max, randomize: opts.recon_randomize },
      acceptanceWaitMs: opts.acceptance_wait_time * 1000,
      acceptanceWaitMaxMs: opts.acceptance_wait_time_max * 1000,
      rejectedRetry: opts.rejected_retry,
      // Salt: a failback interval of 0 falls back to master_alive_interval
      failbackIntervalMs: (opts.master_failback_interval || opts.master_alive_interval || 30) * 1000,
      untrustedMasterFatal: opts.untrusted_master_exit,
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
      const events: LinkEvents = {
        onReady: (conn) => {
          this.rejectedBy.delete(endpointKey(link.endpoint));
          this.refused.delete(endpointKey(link.endpoint));
          const stats = this.linkStats.get(link) ?? { ready: 0 };
          this.linkStats.set(link, { ...stats, ready: stats.ready + 1, since: clock.now() });
          const m = link.endpoint;
          logger.info({ master: `${m.host}:${m.port}`, address: conn.resolvedAddress, fingerprint: conn.masterFingerprint }, `Minion is ready to receive requests from ${m.host}`);
          // grains first, so the master's data cache is fresh before returns come in
          this.sendGrains(link);
          // returns whose job came through this link, and those restored from disk
          for (const ret of this.returns.pending()) {
            const origin = this.origin.get(ret.jid);
            if (origin === undefined || origin === link) link.send(ret);
          }
        },
        onMessage: (m) => {
          if (m.t === 'ack') {
            this.returns.ack(m.jid);
            this.origin.delete(m.jid);
          } else if (m.t === 'file_reply') {
            this.masterFiles?.onReply(m);
          } else if (m.t === 'find_job') {
            // asked over this session when the master's wait for our return ran out
            link.send({ t: 'job_status', jid: m.jid, running: this.runner.isRunning(m.jid) });
          } else this.onJob(m, link);
        },
        onFatal: (err) => this.onFatal(err),
        onDown: (outcome) => {
          this.masterFiles?.onLinkDown(link);
          this.linkStats.set(link, { ready: this.linkStats.get(link)?.ready ?? 0, lastDown: outcome.reason });
        },
        onUntrustedMaster: (endpoint, err) => {
          this.noteRefused(endpoint, err);
          this.runtime.onUntrustedMaster?.(endpoint, err);
        },
      };
      const link: MasterLink = new MasterLink(pool, deps, connOpts, linkOpts, this.runtime.wrapLinkEvents?.(events) ?? events);
      this.links.push(link);
      link.start();
    }
  }

  private noteRefused(endpoint: MasterEndpoint, err: BrineError): void {
    const master = endpointKey(endpoint);
    const since = this.refused.get(master)?.since ?? this.clock.now();
    // bounded as the status message allows
    this.refused.set(master, { master, code: err.code, message: err.message.slice(0, 4000), since });
  }

  private collectGrains(): Promise<Grains> {
    return collectGrains({ id: this.id, configGrains: this.opts.grains });
  }

  /**
   * Re-collects the grains and sends them to every connected master (saltutil.refresh_grains);
   * a master connected later gets them at sign-in.
   */
  async refreshGrains(): Promise<void> {
    this.grainsCache = await this.collectGrains();
    for (const link of this.links) this.sendGrains(link);
  }

  /** Sends the grains for the master's minion data cache, unless they exceed the protocol bound. */
  private sendGrains(link: MasterLink): void {
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

  private onJob(job: Job, link: MasterLink): void {
    // the minion re-checks the target itself, as in Salt, and runs a jid only once
    let mine: boolean;
    try {
      mine = minionMatches(job.tgt, job.tgtType, this.id, this.grainsCache, job.delimiter);
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
   * A scheduled run's return: queued (on disk) like any other, sent now through one connected
   * master; with none connected it goes out from the queue when a master signs in.
   */
  private deliverScheduled(ret: Return): void {
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
