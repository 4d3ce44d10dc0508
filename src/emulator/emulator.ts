// The minion emulator: many minion sessions in one process, each a real MasterLink with the
// real TLS dialer, heartbeats, backoff and module registry, for fault tests and benchmarks.
// All emulated minions share one key pair (one secure context), so the master must accept
// them (auto_accept) or have their IDs accepted; their IDs are <prefix><n>.

import { systemClock, type Clock } from '../util/clock.js';
import type { BrineError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import type { Job, PillarReply, Return } from '../protocol/index.js';
import { loadOrCreateIdentity } from '../pki/index.js';
import { createMasterDialer, type KeepaliveOptions } from '../transport/index.js';
import { MasterLink, type ConnectionDeps, type MasterEndpoint } from '../session/index.js';
import { BRINE_VERSION, createDefaultRegistry, type ModuleRegistry } from '../modules/index.js';

export interface EmulatorOptions {
  master: MasterEndpoint;
  count: number;
  prefix: string;
  /** Where the shared identity lives (created on first use). */
  pkiDir: string;
  heartbeatIntervalMs: number;
  heartbeatTimeoutMs: number;
  authTimeoutMs: number;
  reconDefaultMs: number;
  reconMaxMs: number;
  acceptanceWaitMs: number;
  /** New connections per second while starting (0 = all at once). */
  rampPerSecond: number;
  keepalive: KeepaliveOptions;
  /**
   * Behave as a minion with pillar: send grains (an os_family that varies by index) and ask for
   * the pillar at each sign-in, and again on saltutil.refresh_pillar.
   */
  pillar?: boolean;
  logger: Logger;
  clock?: Clock;
}

export interface EmulatorStats {
  total: number;
  ready: number;
  connects: number;
  drops: number;
  jobs: number;
  fatal: number;
  /** Pillar replies received (with --pillar). */
  pillars: number;
  /** Pillar replies that carried render errors, or refusals. */
  pillarErrors: number;
}

const OS_FAMILIES = ['Debian', 'RedHat', 'Suse'] as const;

/** Emulated jobs are never cancelled: one signal that never aborts serves them all. */
const NEVER_ABORTED = new AbortController().signal;

class EmulatedMinion {
  readonly unacked = new Map<string, Return>();
  /** Jobs started and not yet returned, for the master's find_job. */
  readonly running = new Set<string>();
  connects = 0;
  drops = 0;
  jobs = 0;
  fatal: BrineError | undefined;
  link!: MasterLink;
  pillars = 0;
  pillarErrors = 0;
  pillar: Record<string, unknown> = {};
  /** Waiting for a pillar_reply (rid -> resolve), for saltutil.refresh_pillar. */
  readonly pillarWaits = new Map<number, () => void>();
  nextRid = 0;

  constructor(
    readonly id: string,
    readonly grains: Record<string, unknown>,
  ) {}

  /** Sends a pillar_request; resolves when its reply arrived. */
  requestPillar(): Promise<void> {
    this.nextRid = (this.nextRid + 1) % 2 ** 31;
    const rid = this.nextRid;
    return new Promise((resolve) => {
      this.pillarWaits.set(rid, resolve);
      if (!this.link.send({ t: 'pillar_request', rid })) {
        this.pillarWaits.delete(rid);
        resolve();
      }
    });
  }

  onPillar(reply: PillarReply): void {
    this.pillars++;
    if (!reply.ok || (reply.errors?.length ?? 0) > 0) this.pillarErrors++;
    if (reply.pillar) this.pillar = reply.pillar;
    const wait = this.pillarWaits.get(reply.rid);
    this.pillarWaits.delete(reply.rid);
    wait?.();
  }
}

export class MinionEmulator {
  private readonly minions: EmulatedMinion[] = [];
  private readonly registry: ModuleRegistry = createDefaultRegistry();
  private starter: ReturnType<typeof setInterval> | undefined;
  private stopped = false;

  private constructor(private readonly opts: EmulatorOptions) {}

  static async start(opts: EmulatorOptions): Promise<MinionEmulator> {
    const emulator = new MinionEmulator(opts);
    await emulator.open();
    return emulator;
  }

  get stats(): EmulatorStats {
    const s: EmulatorStats = { total: this.minions.length, ready: 0, connects: 0, drops: 0, jobs: 0, fatal: 0, pillars: 0, pillarErrors: 0 };
    for (const m of this.minions) {
      if (m.link.ready) s.ready++;
      s.connects += m.connects;
      s.drops += m.drops;
      s.jobs += m.jobs;
      s.pillars += m.pillars;
      s.pillarErrors += m.pillarErrors;
      if (m.fatal) s.fatal++;
    }
    return s;
  }

  ids(): string[] {
    return this.minions.map((m) => m.id);
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.starter) clearInterval(this.starter);
    for (const m of this.minions) m.link.stop();
  }

  private async open(): Promise<void> {
    const { opts } = this;
    const clock = opts.clock ?? systemClock;
    const identity = await loadOrCreateIdentity({ pkiDir: opts.pkiDir, name: 'minion', commonName: `${opts.prefix}emulator` });
    const deps: ConnectionDeps = {
      clock,
      logger: opts.logger,
      ...createMasterDialer({ identity, timeoutMs: opts.authTimeoutMs, socketOptions: opts.keepalive, maxFrame: 64 * 1024, logger: opts.logger, cacheDns: true }),
      // the emulator trusts the master it was pointed at; pinning is tested with real minions
      trustMaster: () => undefined,
    };
    for (let i = 0; i < opts.count; i++) {
      const id = `${opts.prefix}${i}`;
      const family = OS_FAMILIES[i % OS_FAMILIES.length]!;
      const m = new EmulatedMinion(id, { id, os_family: family, os: family, emulated: true });
      m.link = new MasterLink(
        opts.master,
        deps,
        {
          id: m.id,
          agent: `brine-emulator/${BRINE_VERSION}`,
          authTimeoutMs: opts.authTimeoutMs,
          heartbeatIntervalMs: opts.heartbeatIntervalMs,
          heartbeatTimeoutMs: opts.heartbeatTimeoutMs,
          maxFrame: 16 * 1024 * 1024,
          // as a real minion: the master carries its acks on the next frame (issue 27)
          carryAcks: true,
        },
        { backoff: { baseMs: opts.reconDefaultMs, maxMs: opts.reconMaxMs, randomize: true }, acceptanceWaitMs: opts.acceptanceWaitMs, acceptanceWaitMaxMs: 0, rejectedRetry: true },
        {
          onReady: () => {
            m.connects++;
            if (opts.pillar) {
              // as a real minion: grains first, then the pillar request on the same session
              m.link.send({ t: 'grains', grains: m.grains });
              void m.requestPillar();
            }
            for (const ret of m.unacked.values()) m.link.send(ret);
          },
          onDown: (outcome) => {
            if (outcome.wasReady) m.drops++;
          },
          onMessage: (msg) => {
            if (msg.t === 'ack') m.unacked.delete(msg.jid);
            else if (msg.t === 'acks') for (const jid of msg.jids) m.unacked.delete(jid);
            else if (msg.t === 'find_job') m.link.send({ t: 'job_status', jid: msg.jid, running: m.running.has(msg.jid) });
            else if (msg.t === 'job') this.run(m, msg);
            else if (msg.t === 'pillar_reply') m.onPillar(msg);
            // emulated minions ask for no files, so a file_reply never comes
          },
          onFatal: (err) => {
            m.fatal = err;
          },
        },
      );
      this.minions.push(m);
    }
    if (opts.rampPerSecond <= 0) {
      for (const m of this.minions) m.link.start();
      return;
    }
    // start in small batches every 10 ms so the ramp is smooth
    let next = 0;
    const perTick = Math.max(1, Math.round(opts.rampPerSecond / 100));
    this.starter = setInterval(() => {
      for (let k = 0; k < perTick && next < this.minions.length; k++) this.minions[next++]!.link.start();
      if (next >= this.minions.length && this.starter) clearInterval(this.starter);
    }, 10);
  }

  private run(m: EmulatedMinion, job: Job): void {
    m.jobs++;
    m.running.add(job.jid);
    const ctx = {
      grains: () => m.grains,
      minionId: m.id,
      config: {},
      signal: NEVER_ABORTED,
      jid: job.jid,
      pillar: () => m.pillar,
      ...(this.opts.pillar ? { refreshPillar: () => m.requestPillar() } : {}),
    };
    void this.registry.call(job.fun, job.arg, job.kwarg, ctx).then((result) => {
      const ret: Return = { t: 'return', jid: job.jid, fun: job.fun, ret: result.return ?? null, retcode: result.retcode, success: result.success };
      if (result.error) ret.error = result.error;
      m.running.delete(job.jid);
      m.unacked.set(job.jid, ret);
      m.link.send(ret);
    });
  }
}
