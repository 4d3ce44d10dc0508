// Entry point of a job worker thread: builds the module registry once, then runs one function
// call at a time and posts each result, so a function that blocks its thread never blocks the
// minion's event loop (heartbeats, other jobs).

import { parentPort } from 'node:worker_threads';
import { BrineError, isErrorCode, errorMessage } from '../util/errors.js';
import type { ExecContext, ExecResult, ModuleRegistry } from '../modules/index.js';
import { buildMinionRegistry } from './minion-extensions.js';
import { WorkerHostClient } from './worker-host-client.js';
import { localFileClient, localSyncHost } from './worker-local-files.js';
import { localPillarFor, renderLocalPillar, type LocalPillarOptions } from './pillar-client.js';
import { recordSharedPid, type WorkerCall, type WorkerReply, type WorkerRequest } from './worker-messages.js';
import { mineThroughHost } from './mine/worker-mine.js';
import { eventsThroughHost } from './events/worker-events.js';

const port = parentPort;
// salt:// files and blocking calls go to the host thread (worker-host-client.ts)
const host = new WorkerHostClient((m, transfer) => port?.postMessage(m, transfer ?? []));
let registry: { generation: number | undefined; built: Promise<ModuleRegistry> } | undefined;
let current: { call: WorkerCall; controller: AbortController } | undefined;

const DECLINED = Symbol('declined');

function failed(code: 'EXEC_FAILED' | 'INTERNAL', message: string): ExecResult {
  return { return: message, retcode: 1, success: false, error: { code, message } };
}

function post(reply: WorkerReply): void {
  try {
    port?.postMessage(reply);
  } catch (err) {
    // a return value that cannot be cloned (a function, a symbol): report it, coded
    port?.postMessage({ t: 'result', result: failed('EXEC_FAILED', `${current?.call.fun ?? 'the function'} returned a value that cannot be sent: ${errorMessage(err)}`) } satisfies WorkerReply);
  }
}

/**
 * The same functions as the main thread: built-ins, custom states and modules (the main thread
 * logs problems). Rebuilt when the runner's extmods generation moves (after saltutil.sync_*).
 */
function registryFor(config: Readonly<Record<string, unknown>>, generation: number | undefined): Promise<ModuleRegistry> {
  if (!registry || registry.generation !== generation) {
    const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
    const dirs = Array.isArray(config.module_dirs) ? config.module_dirs.filter((d): d is string => typeof d === 'string') : [];
    const cachedir = typeof config.cachedir === 'string' ? config.cachedir : undefined;
    registry = { generation, built: buildMinionRegistry({ module_dirs: dirs, ...(cachedir !== undefined ? { cachedir } : {}) }, quiet).then((b) => b.registry) };
  }
  return registry.built;
}

function run(call: WorkerCall, pids: SharedArrayBuffer): void {
  const controller = new AbortController();
  current = { call, controller };
  const grains = call.grains;
  const tracked = new Set<number>();
  let pillar = call.pillar ?? {};
  const ctx: ExecContext = {
    grains: () => grains,
    pillar: () => pillar,
    minionId: call.minionId,
    config: call.config,
    signal: controller.signal,
    jid: call.jid,
    trackProcess: (pid) => {
      // the shell spawner's pid comes once per command it runs; the host needs it once
      if (tracked.has(pid)) return;
      tracked.add(pid);
      recordSharedPid(pids, pid);
      post({ t: 'pid', pid });
    },
    files: host.files(),
    syncHost: host.syncHost(),
    // log lines go to the host thread, which holds the daemon's logger
    log: (level, message) => post({ t: 'log', level, message }),
  };
  if (call.hostMine && ctx.syncHost) ctx.mine = mineThroughHost(ctx.syncHost);
  if (call.hostEvents && ctx.syncHost) ctx.events = eventsThroughHost(ctx.syncHost);
  // state_events: posted, not blocking; the host sends it to the master
  if (call.hostEvents) ctx.stateProgress = (progress) => post({ t: 'progress', progress });
  // pillarenv=: brine call --local renders this machine's pillar_roots here; otherwise the host asks the master
  ctx.pillarFor = call.localPillar ? (env) => localPillarFor(call.config as unknown as LocalPillarOptions, call.minionId, grains, env) : (env) => host.pillarFor(env);
  if (call.localFiles) {
    try {
      const files = localFileClient(call.config);
      ctx.files = files;
      ctx.syncHost = localSyncHost(files, host.syncHost().call);
    } catch {
      // a config the host's own client rejected too: keep asking the host, which reports it
    }
  }
  void registryFor(call.config, call.extmodsGeneration)
    .then(async (r): Promise<ExecResult | typeof DECLINED> => {
      const fn = r.get(call.fun);
      if (call.declineInline && (!fn || fn.inline)) return DECLINED;
      // brine call --local: this thread has the renderer loaded already, the caller's has not
      if (call.localPillar) pillar = await renderLocalPillar(call.config as unknown as LocalPillarOptions, call.minionId, grains);
      return r.call(call.fun, call.arg, call.kwarg, ctx);
    })
    .catch((err: unknown): ExecResult | typeof DECLINED => failed('INTERNAL', errorMessage(err)))
    .then((result) => {
      host.reset();
      post(result === DECLINED ? { t: 'declined' } : { t: 'result', result });
      current = undefined;
    });
}

port?.on('message', (m: WorkerRequest) => {
  if (m.t === 'call') run(m.call, m.pids);
  else if (m.t === 'files_reply') host.onFilesReply(m);
  else if (m.t === 'abort') current?.controller.abort(new BrineError(isErrorCode(m.code) ? m.code : 'EXEC_FAILED', m.message));
});
