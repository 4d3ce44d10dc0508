// Runs published jobs without blocking the connection: at most max_concurrent_jobs at once (the
// rest wait in order), one state run at a time, each module function in its own worker thread
// (inline ones, which need the runner's state, on the main thread), with a per-job timeout,
// kill/signal for saltutil and a cap on the size of what comes back. Each job's phase is its
// JobLifecycle; this class applies what a phase change means (lock, slot, thread, timer).

import { BrineError, type ErrorCode } from '../util/errors.js';
import { systemClock, type Clock } from '../util/clock.js';
import { signalGroup, stopGroups } from '../util/process-group.js';
import { logAtSaltLevel, type Logger } from '../util/logger.js';
import type { Job, Return } from '../protocol/index.js';
import type { ExecContext, ExecResult, Grains, MineAccess, MinionEventAccess, BeaconControl, ModuleRegistry, RunningJobInfo, RunningJobs, ScheduleControl } from '../modules/index.js';
// the lock's own files, not the state barrel: the main thread does not load the state compiler
import { STATE_RUN_FUNCTIONS, stateRunConflict, wantsConcurrent, wantsQueue } from '../state/run-lock.js';
import { JobLifecycle } from './job-lifecycle.js';
import { JobSlots } from './job-slots.js';
import { StateRunLock, type StateLockClaim } from './state-run-lock.js';
import { capReturn } from './return-cap.js';
import { WorkerExecutor, type IsolatedRun, type JobExecutor } from './worker-executor.js';
import type { HostServices } from './worker-host.js';

export const DEFAULT_MAX_CONCURRENT_JOBS = 8;
export const DEFAULT_MAX_RETURN_BYTES = 8 * 1024 * 1024;
/** Between SIGTERM and SIGKILL when a timeout stops a job's processes (as cmd.* does). */
const KILL_GRACE_MS = 2000;

export interface JobRunnerDeps {
  /**
   * The main thread's registry: looks functions up and runs the inline ones. A function is
   * called before the first job that needs it (the minion builds its registry on first use).
   */
  registry: ModuleRegistry | (() => ModuleRegistry | Promise<ModuleRegistry>);
  minionId: string;
  grains: () => Grains;
  config: Readonly<Record<string, unknown>>;
  logger: Logger;
  maxConcurrent?: number;
  /** Seconds any job may run (minion `job_timeout`); 0 = no limit. */
  jobTimeoutS?: number;
  maxReturnBytes?: number;
  /** Re-collects grains (saltutil.refresh_grains); passed to inline functions. */
  refreshGrains?: (opts?: { refreshPillar?: boolean }) => Promise<void>;
  /** Loads synced custom modules/states/grains again (saltutil.sync_*); passed to inline functions. */
  reloadExtmods?: ExecContext['reloadExtmods'];
  /** The minion's current pillar, snapshotted into each job. */
  pillar?: () => Readonly<Record<string, unknown>>;
  /** Gets the pillar again (saltutil.refresh_pillar); passed to inline functions. */
  refreshPillar?: () => Promise<void>;
  /** Where non-inline functions run; worker threads unless a test substitutes it. */
  executor?: JobExecutor;
  /** Job timeouts, the SIGTERM->SIGKILL grace, start times and queue=True's look at another process's state run lock; the system clock by default. */
  clock?: Clock;
  /** The salt:// file client jobs use (ctx.files), and the blocking calls of their templates. */
  services?: HostServices;
  /** The minion's scheduler, for schedule.* (inline functions). */
  schedule?: ScheduleControl;
  /** The mine service, passed to inline functions (mine.*). */
  mine?: MineAccess;
  /** Events to the master and the local bus, passed to inline functions (event.*); job workers reach them through the host. */
  events?: MinionEventAccess;
  /** The beacons, passed to inline functions (beacons.*). */
  beacons?: BeaconControl;
}

interface Entry {
  job: Job;
  info: RunningJobInfo;
  lifecycle: JobLifecycle;
  /** Its claim on the one-state-run lock (only state runs use it). */
  claim: StateLockClaim;
  /** Process groups the function started (cmd.*), for kill and signal. */
  pgids: Set<number>;
  controller: AbortController;
  /** The worker thread running the function, once it runs in one. */
  isolated: IsolatedRun | undefined;
}

function failure(code: ErrorCode, message: string): ExecResult {
  return { return: message, retcode: 1, success: false, error: { code, message } };
}

export class JobRunner implements RunningJobs {
  private readonly entries = new Map<string, Entry>();
  /** Functions run by runFunction (the mine's), stopped with the jobs at shutdown. */
  private readonly detached = new Set<Entry>();
  private readonly slots: JobSlots<Entry>;
  private readonly executor: JobExecutor;
  private readonly maxReturnBytes: number;
  private readonly clock: Clock;
  /** One state run per minion (state.apply, sls, ...), shared with `brine call` through cachedir. */
  private readonly stateLock: StateRunLock;
  /** Bumped by replaceRegistry, so worker threads rebuild theirs (WorkerCall.extmodsGeneration). */
  private extmodsGeneration = 0;

  constructor(private readonly deps: JobRunnerDeps) {
    this.executor = deps.executor ?? new WorkerExecutor();
    this.slots = new JobSlots(deps.maxConcurrent ?? DEFAULT_MAX_CONCURRENT_JOBS);
    this.maxReturnBytes = deps.maxReturnBytes ?? DEFAULT_MAX_RETURN_BYTES;
    this.clock = deps.clock ?? systemClock;
    const cachedir = typeof deps.config.cachedir === 'string' ? deps.config.cachedir : undefined;
    this.stateLock = new StateRunLock({
      clock: this.clock,
      ...(cachedir === undefined ? {} : { cachedir }),
      // an unwritable cachedir must not stop state runs: the in-process lock still holds
      onFileError: (err, doing, claim) =>
        doing === 'take'
          ? deps.logger.warn(
              { jid: claim.jid, err: String(err) },
              `cannot write the state run lock in ${cachedir}: ${String(err)}; brine call state runs on this machine are not kept apart from this one`,
            )
          : deps.logger.warn({ jid: claim.jid, err: String(err) }, `cannot remove the state run lock: ${String(err)}`),
    });
  }

  /**
   * Runs the jobs that start from now on with `registry` (custom modules loaded again after a
   * sync); jobs already running keep the functions they started with.
   */
  replaceRegistry(registry: ModuleRegistry): void {
    this.deps.registry = registry;
    this.extmodsGeneration++;
  }

  /** Jobs running or queued. */
  get active(): number {
    return this.entries.size;
  }

  /** Running or waiting for a slot: what find_job answers. */
  isRunning(jid: string): boolean {
    return this.entries.has(jid);
  }

  list(): RunningJobInfo[] {
    return [...this.entries.values()].map((e) => ({ ...this.current(e).info }));
  }

  get(jid: string): RunningJobInfo | undefined {
    const e = this.entries.get(jid);
    return e ? { ...this.current(e).info } : undefined;
  }

  kill(jid: string): boolean {
    const e = this.entries.get(jid);
    if (!e) return false;
    for (const pgid of this.current(e).pgids) signalGroup(pgid, 'SIGKILL');
    this.end(e, failure('EXEC_FAILED', `${e.job.fun}: killed by saltutil.kill_job ${jid}`));
    return true;
  }

  signal(jid: string, sig: NodeJS.Signals): boolean {
    const e = this.entries.get(jid);
    if (!e) return false;
    if (this.current(e).pgids.size > 0) {
      for (const pgid of e.pgids) signalGroup(pgid, sig);
      return true;
    }
    if (sig === 'SIGKILL' || sig === 'SIGTERM' || sig === 'SIGINT') return this.kill(jid);
    throw new BrineError('EXEC_FAILED', `job ${jid} (${e.job.fun}) started no process to signal; only SIGTERM, SIGINT or SIGKILL apply, and they stop the job`);
  }

  async run(job: Job): Promise<Return> {
    const entry = this.newEntry(job, true);
    this.entries.set(job.jid, entry);
    try {
      entry.lifecycle.end(await this.admitAndExecute(entry));
    } finally {
      // whatever ended it: the lock, the row and the slot are given back
      this.stateLock.release(entry.claim);
      this.entries.delete(job.jid);
      if (entry.lifecycle.hasRun) this.slots.release();
    }
    const result = entry.lifecycle.close();
    const ret: Return = { t: 'return', jid: job.jid, fun: job.fun, ret: result.return ?? null, retcode: result.retcode, success: result.success };
    const capped = capReturn(ret.ret, this.maxReturnBytes);
    if (capped.dropped > 0) {
      ret.ret = capped.value;
      this.deps.logger.warn({ jid: job.jid, fun: job.fun, dropped: capped.dropped }, `the return of ${job.fun} (job ${job.jid}) exceeded max_return_size and was truncated`);
    }
    if (result.error) ret.error = result.error;
    return ret;
  }

  /**
   * Runs one function outside the job table, as the mine does for its mine_functions: inline or
   * in a worker thread like a job (with job_timeout), but not listed by saltutil.running and not
   * counted against max_concurrent_jobs (the mine runs one function at a time).
   */
  async runFunction(fun: string, arg: unknown[], kwarg: Record<string, unknown>, jid: string, timeoutS?: number): Promise<ExecResult> {
    const job: Job = { t: 'job', jid, fun, arg, kwarg, tgt: this.deps.minionId, tgtType: 'glob', ...(timeoutS === undefined ? {} : { timeout: timeoutS }) };
    const entry = this.newEntry(job, false);
    this.detached.add(entry);
    entry.lifecycle.enter('running');
    try {
      entry.lifecycle.end(await this.execute(entry));
    } finally {
      this.detached.delete(entry);
    }
    return entry.lifecycle.close();
  }

  private newEntry(job: Job, queued: boolean): Entry {
    const info: RunningJobInfo = {
      jid: job.jid,
      fun: job.fun,
      arg: job.arg,
      kwarg: job.kwarg,
      tgt: job.tgt,
      tgt_type: job.tgtType,
      pid: process.pid,
      started: new Date(this.clock.now()).toISOString(),
      queued,
    };
    const entry: Entry = {
      job,
      info,
      lifecycle: new JobLifecycle(),
      claim: { jid: job.jid, fun: job.fun, started: info.started, describe: () => ({ ...this.current(entry).info }) },
      pgids: new Set(),
      controller: new AbortController(),
      isolated: undefined,
    };
    return entry;
  }

  /** Aborts every running job, empties the queue and ends idle worker threads (minion shutdown). */
  abortAll(): void {
    for (const e of [...this.entries.values(), ...this.detached]) {
      for (const pgid of this.current(e).pgids) signalGroup(pgid, 'SIGTERM');
      this.end(e, failure('EXEC_FAILED', `${e.job.fun}: the minion is shutting down`));
    }
    this.executor.close();
  }

  /**
   * A state run takes the one-state-run lock first (refused with STATE_RUN_IN_PROGRESS naming
   * the running job, or waiting with queue=True), then every job a max_concurrent_jobs slot;
   * the result ends the job, whether its function ran or not.
   */
  private async admitAndExecute(entry: Entry): Promise<ExecResult> {
    const { job, lifecycle } = entry;
    if (STATE_RUN_FUNCTIONS.has(job.fun) && !wantsConcurrent(job.kwarg)) {
      lifecycle.enter('awaiting-state-lock');
      const queue = wantsQueue(job.kwarg);
      const running = this.stateLock.holder;
      if (running && queue) this.deps.logger.debug({ jid: job.jid, running: running.jid }, `state run ${job.jid} waits for state run ${running.jid} (queue=True)`);
      const lock = await this.stateLock.acquire(entry.claim, { queue, signal: entry.controller.signal });
      if (!lock.held) return lifecycle.result ?? stateRunConflict(job.fun, lock.holder);
      // ended in the tick the lock came
      if (lifecycle.result) return lifecycle.result;
    }
    if (this.slots.tryTake()) lifecycle.enter('running');
    else {
      lifecycle.enter('awaiting-slot');
      this.deps.logger.debug({ jid: job.jid, fun: job.fun, running: this.slots.inUse }, `job ${job.jid} waits for a free slot (max_concurrent_jobs ${this.slots.max})`);
      // a slot handed over by another job's end, or this job's own end (it then leaves the line)
      const admitted = new Promise<void>((resolve) =>
        this.slots.enqueue(entry, () => {
          lifecycle.enter('running');
          resolve();
        }),
      );
      await Promise.race([admitted, lifecycle.outcome]);
    }
    return lifecycle.result ?? (await this.execute(entry));
  }

  private async execute(entry: Entry): Promise<ExecResult> {
    entry.info.queued = false;
    entry.info.started = new Date(this.clock.now()).toISOString();
    const { job, lifecycle } = entry;
    const limit = this.timeoutSeconds(job);
    const timer = limit > 0 ? this.clock.setTimeout(() => this.onTimeout(entry, limit), limit * 1000) : undefined;
    try {
      this.deps.logger.debug({ jid: job.jid, fun: job.fun }, `running ${job.fun}`);
      let registry = this.registry();
      if (registry instanceof Promise) {
        // the first job: the registry is being built; killed or timed out meanwhile: do not start it
        registry = await registry;
        if (lifecycle.result) return lifecycle.result;
      }
      const fn = registry.get(job.fun);
      // unknown functions fail at once in the registry; no thread needed
      const work = !fn || fn.inline ? this.runInline(entry, registry) : this.runIsolated(entry);
      // a kill or timeout decides the result at once, whatever the function still does
      return await Promise.race([work, lifecycle.outcome]);
    } finally {
      timer?.cancel();
    }
  }

  /** Synchronous once built, so a job starts in the same tick as before (kill right after the start). */
  private registry(): ModuleRegistry | Promise<ModuleRegistry> {
    const r = this.deps.registry;
    return typeof r === 'function' ? r() : r;
  }

  private runInline(entry: Entry, registry: ModuleRegistry): Promise<ExecResult> {
    const { job } = entry;
    const ctx: ExecContext = {
      grains: this.deps.grains,
      minionId: this.deps.minionId,
      config: this.deps.config,
      signal: entry.controller.signal,
      jid: job.jid,
      jobs: this,
      trackProcess: (pid) => this.track(entry, pid),
      log: (level, message) => logAtSaltLevel(this.deps.logger, level, message),
    };
    const files = this.deps.services?.files;
    if (files) ctx.files = files.forRun?.() ?? files;
    if (this.deps.refreshGrains) ctx.refreshGrains = this.deps.refreshGrains;
    if (this.deps.schedule) ctx.schedule = this.deps.schedule;
    if (this.deps.reloadExtmods) ctx.reloadExtmods = this.deps.reloadExtmods;
    if (this.deps.pillar) ctx.pillar = this.deps.pillar;
    if (this.deps.refreshPillar) ctx.refreshPillar = this.deps.refreshPillar;
    if (this.deps.services?.pillarFor) ctx.pillarFor = this.deps.services.pillarFor;
    if (this.deps.mine) ctx.mine = this.deps.mine;
    if (this.deps.events) ctx.events = this.deps.events;
    if (this.deps.beacons) ctx.beacons = this.deps.beacons;
    return registry.call(job.fun, job.arg, job.kwarg, ctx);
  }

  private runIsolated(entry: Entry): Promise<ExecResult> {
    const { job } = entry;
    entry.isolated = this.executor.start(
      {
        fun: job.fun,
        arg: job.arg,
        kwarg: job.kwarg,
        jid: job.jid,
        minionId: this.deps.minionId,
        grains: this.deps.grains(),
        config: this.deps.config,
        extmodsGeneration: this.extmodsGeneration,
        ...(this.deps.pillar ? { pillar: this.deps.pillar() } : {}),
        ...(this.deps.mine ? { hostMine: true } : {}),
        ...(this.deps.events ? { hostEvents: true } : {}),
      },
      (pid) => this.track(entry, pid),
      this.servicesForJob(),
    );
    return entry.isolated.result;
  }

  /** The host services of one job: its file client remembers each file's stat until the job ends (FileClient.forRun). */
  private servicesForJob(): HostServices | undefined {
    const services = this.deps.services;
    const files = services?.files?.forRun?.();
    return files ? { ...services, files } : services;
  }

  /**
   * The entry with every process group its worker has recorded, including those whose `pid`
   * message is still on its way (a kill right after the start must not miss the command).
   */
  private current(entry: Entry): Entry {
    for (const pid of entry.isolated?.pids() ?? []) if (!entry.pgids.has(pid)) this.track(entry, pid);
    return entry;
  }

  private track(entry: Entry, pid: number): void {
    entry.pgids.add(pid);
    if (entry.pgids.size === 1) entry.info.pid = pid;
  }

  private onTimeout(entry: Entry, seconds: number): void {
    const message = `${entry.job.fun}: job ${entry.job.jid} did not finish within its ${seconds} s timeout and was stopped; raise job_timeout if it needs longer`;
    // SIGTERM first so commands can clean up, SIGKILL for whatever ignores it (the timer is not
    // unref'd: a minion that is shutting down still kills what ignored the SIGTERM)
    stopGroups(this.current(entry).pgids, KILL_GRACE_MS, this.clock);
    this.end(entry, failure('JOB_TIMEOUT', message));
  }

  /** Ends a job now with `result`: aborts its function or its wait for the lock, stops its thread, or drops it from the line. */
  private end(entry: Entry, result: ExecResult): void {
    // first, so this result wins the race against the stopped thread's own failure
    if (!entry.lifecycle.end(result)) return;
    const reason = new BrineError(result.error?.code ?? 'EXEC_FAILED', result.error?.message ?? String(result.return));
    entry.controller.abort(reason);
    // a thread may be spinning and never see an abort: end it, it is not reused
    entry.isolated?.terminate();
    this.slots.cancel(entry);
  }

  private timeoutSeconds(job: Job): number {
    const limits = [job.timeout ?? 0, this.deps.jobTimeoutS ?? 0].filter((s) => s > 0);
    return limits.length > 0 ? Math.min(...limits) : 0;
  }
}
