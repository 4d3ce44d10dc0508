// One function call on this machine without the minion daemon (`brine call`): in a worker
// thread with the same host services as a job (salt:// files and blocking salt[...] calls), or
// on this thread for inline functions and names the registry does not know (their error needs
// no thread). The worker knows the functions, so this thread loads the registry only for those
// (or when module_dirs are configured: their problems are reported from here).

import type { MinionOptions } from '../config/index.js';
import { systemClock, type Clock } from '../util/clock.js';
import { CachingFileClient } from '../fileserver/caching-client.js';
import { LocalFileSource } from '../fileserver/file-source.js';
import { FileRoots } from '../fileserver/roots.js';
import type { loadModuleDirs } from '../modules/custom-modules.js';
import type { ExecContext, ExecResult, Grains } from '../modules/types.js';
import { DECLINED, WorkerExecutor } from './worker-executor.js';
import { formatJid } from '../jobs/jid.js';
import { STATE_RUN_FUNCTIONS, stateRunConflict, wantsConcurrent, wantsQueue } from '../state/run-lock.js';
import { StateRunLock, type StateLockClaim } from './state-run-lock.js';
import type { HostServices } from './worker-host.js';
import { LocalMine } from './mine/local-mine.js';
import { MineService } from './mine/mine-service.js';
import { PillarStore } from './pillar-store.js';
import type { ModuleRegistry } from '../modules/registry.js';
import type { MinionEventAccess } from '../modules/types.js';
import { BrineError } from '../util/errors.js';
import { fireOnMinionBus } from './minion-bus-client.js';

export interface LocalCallOptions {
  opts: MinionOptions;
  minionId: string;
  grains: Grains;
  /** The pillar for this call; absent = empty, unless localPillar. */
  pillar?: Readonly<Record<string, unknown>>;
  /** Masterless: the pillar is this machine's pillar_roots, rendered where the function runs. */
  localPillar?: boolean;
  /** saltutil.refresh_pillar: renders the pillar again (masterless). */
  refreshPillar?: () => Promise<void>;
  /** Serve salt:// from this machine's file_roots (--local, or file_client: local). */
  localFiles: boolean;
  signal: AbortSignal;
  /** Runs the function (a thread may already be starting, see prewarm); closed by the caller. Default: a new one, closed here. */
  executor?: WorkerExecutor;
  /** Where module_dirs problems are reported. */
  log: Parameters<typeof loadModuleDirs>[2];
  /** Where log.* and salt.log.* in templates write (salt-call logs them to the console at log_level). */
  functionLog?: NonNullable<ExecContext['log']>;
  /** Waits for a state run lock held by another process (queue=True); the system clock by default. */
  clock?: Clock;
}

const NO_MASTER =
  'brine call has no master session: use --local (or set file_client: local) to serve salt:// from the file_roots of this machine, or run the function through the minion daemon with brine run';

export function localServices(opts: MinionOptions, localFiles: boolean): HostServices {
  if (!localFiles) return { filesUnavailable: NO_MASTER };
  return { files: new CachingFileClient(new LocalFileSource(new FileRoots(opts)), { cachedir: opts.cachedir, chunkSize: opts.file_buffer_size }), localFiles: true };
}

async function inWorker(
  executor: WorkerExecutor,
  fun: string,
  arg: unknown[],
  kwarg: Record<string, unknown>,
  o: LocalCallOptions,
  services: HostServices,
  declineInline: boolean,
): Promise<ExecResult> {
  const run = executor.start(
    {
      fun,
      arg,
      kwarg,
      jid: 'req',
      minionId: o.minionId,
      grains: o.grains,
      config: o.opts,
      ...(o.pillar ? { pillar: o.pillar } : {}),
      ...(o.localPillar ? { localPillar: true } : {}),
      ...(declineInline ? { declineInline } : {}),
      // masterless: mine.* in a template or module.run asks this thread, which keeps the local mine
      ...(services.hostCall ? { hostMine: true } : {}),
    },
    () => undefined,
    services,
  );
  const onAbort = (): void => run.abort('EXEC_FAILED', `${fun}: interrupted`);
  o.signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await run.result;
  } finally {
    o.signal.removeEventListener('abort', onAbort);
  }
}

/**
 * A state run from `brine call` takes the same lock as the minion daemon's state runs (the
 * lock file <cachedir>/state-run.lock), so the two never interleave on one machine; queue=True
 * waits, looking again on the clock.
 */
export async function runLocalCall(fun: string, arg: unknown[], kwarg: Record<string, unknown>, o: LocalCallOptions): Promise<ExecResult> {
  if (!STATE_RUN_FUNCTIONS.has(fun) || wantsConcurrent(kwarg)) return runUnlocked(fun, arg, kwarg, o);
  const clock = o.clock ?? systemClock;
  const lock = new StateRunLock({ clock, cachedir: o.opts.cachedir });
  const started = new Date(clock.now()).toISOString();
  const jid = formatJid(clock.now() * 1000);
  const claim: StateLockClaim = { jid, fun, started, describe: () => ({ jid, fun, arg, kwarg, tgt: o.minionId, tgt_type: 'glob', pid: process.pid, started, queued: false }) };
  const got = await lock.acquire(claim, { queue: wantsQueue(kwarg), signal: o.signal });
  if (!got.held) {
    if (got.aborted) return { return: `${fun}: interrupted`, retcode: 1, success: false, error: { code: 'EXEC_FAILED', message: `${fun}: interrupted while waiting for state run ${got.holder.jid}` } };
    return stateRunConflict(fun, got.holder);
  }
  try {
    return await runUnlocked(fun, arg, kwarg, o);
  } finally {
    lock.release(claim);
  }
}

async function runUnlocked(fun: string, arg: unknown[], kwarg: Record<string, unknown>, o: LocalCallOptions): Promise<ExecResult> {
  const services = localServices(o.opts, o.localFiles);
  if (o.functionLog) services.log = o.functionLog;
  const executor = o.executor ?? new WorkerExecutor(0);
  const ext = new CallExtensions(o, (f, a, k) => inWorker(executor, f, a, k, o, services, false));
  if (o.localFiles) services.hostCall = ext.hostCall;
  try {
    const dirs = o.opts.module_dirs ?? [];
    if (dirs.length === 0) {
      const r = await inWorker(executor, fun, arg, kwarg, o, services, true);
      if (r !== DECLINED) return r;
    }
    // the same registry as a job's: module_dirs, and custom modules and states synced from the master
    const registry = await ext.registry();
    const fn = registry.get(fun);
    if (!fn || fn.inline) {
      const pillar = o.localPillar ? await (await import('./pillar-client.js')).renderLocalPillar(o.opts, o.minionId, o.grains) : (o.pillar ?? {});
      const ctx: ExecContext = { grains: () => o.grains, minionId: o.minionId, config: o.opts, signal: o.signal, jid: 'req', pillar: () => pillar, events: localEvents(o) };
      if (o.functionLog) ctx.log = o.functionLog;
      if (o.refreshPillar) ctx.refreshPillar = o.refreshPillar;
      if (services.files) ctx.files = services.files;
      // masterless: mine.* use this machine's own mine (<cachedir>/mine.json), as the daemon does
      if (o.localFiles && fun.startsWith('mine.')) ctx.mine = ext.mine(registry);
      return registry.call(fun, arg, kwarg, ctx);
    }
    return await inWorker(executor, fun, arg, kwarg, o, services, false);
  } finally {
    if (!o.executor) executor.close();
  }
}

type RunInWorker = (fun: string, arg: unknown[], kwarg: Record<string, unknown>) => Promise<ExecResult>;

/**
 * One brine call's module registry and masterless mine, each built once on first use: the call
 * itself (an inline function, a mine.* call) and its workers' mine.* calls share them.
 */
class CallExtensions {
  private registryBuilt: Promise<ModuleRegistry> | undefined;
  private mineBuilt: MineService | undefined;

  constructor(
    private readonly o: LocalCallOptions,
    private readonly run: RunInWorker,
  ) {}

  /** The same registry as a job's: module_dirs, and custom modules and states synced from the master. */
  registry(): Promise<ModuleRegistry> {
    this.registryBuilt ??= import('./minion-extensions.js').then(async ({ buildMinionRegistry }) => (await buildMinionRegistry(this.o.opts, this.o.log)).registry);
    return this.registryBuilt;
  }

  mine(registry: ModuleRegistry): MineService {
    this.mineBuilt ??= localMineService(this.o, registry, this.run);
    return this.mineBuilt;
  }

  /**
   * mine.* asked by a worker (`salt['mine.get']` in a template, as Salt's masterless mine.get):
   * run on this thread against the local mine; event.* (a state's module.run event.fire) on
   * this thread, which reaches the daemon's bus.
   */
  readonly hostCall: NonNullable<HostServices['hostCall']> = (fun, arg, kwarg) => {
    if (!fun.startsWith('mine.') && !fun.startsWith('event.')) return undefined;
    const { o } = this;
    return this.registry().then((registry) =>
      registry.call(fun, arg, kwarg, { grains: () => o.grains, minionId: o.minionId, config: o.opts, signal: o.signal, jid: 'req', mine: this.mine(registry), events: localEvents(o) }),
    );
  };
}

/** The masterless mine for one brine call: runs mine functions in workers, keeps the data in cachedir. */
function localMineService(o: LocalCallOptions, registry: ModuleRegistry, run: RunInWorker): MineService {
  return new MineService({
    master: new LocalMine(o.opts.cachedir, o.minionId, () => o.grains),
    hasFunction: (fun) => registry.get(fun) !== undefined,
    run,
    configured: o.opts.mine_functions,
    pillar: new PillarStore(),
    clock: systemClock,
    logger: { warn: (obj: object, msg?: string) => o.log.warn(obj, msg ?? ''), debug: () => undefined },
    intervalMs: undefined,
  });
}

/**
 * event.* in a brine call of its own: event.fire (and a masterless event.send, as Salt's) go to
 * the running daemon's bus; false, with the reason on stderr, when no daemon answers.
 */
function localEvents(o: LocalCallOptions): MinionEventAccess {
  return {
    fireMaster: () =>
      Promise.reject(
        new BrineError(
          'EVENT_UNAVAILABLE',
          "a local brine call has no master session: event.fire_master cannot reach a master; use brine call without --local through a connected minion, or event.fire for this minion's own bus",
        ),
      ),
    fireLocal: async (tag, data) => {
      const r = await fireOnMinionBus(o.opts, tag, data);
      if (!r.fired) o.log.warn({ tag }, `[WARNING ] event.fire ${tag}: ${r.why}`);
      return r.fired;
    },
  };
}
