// Entry point of a job worker thread: builds the module registry once, then runs one function
// call at a time and posts each result, so a function that blocks its thread never blocks the
// minion's event loop (heartbeats, other jobs).

import { parentPort } from 'node:worker_threads';
import { BrineError, isErrorCode } from '../util/errors.js';
import { loadModuleDirs, type ExecContext, type ExecResult, type ModuleRegistry } from '../modules/index.js';
import { createMinionRegistry } from '../state/index.js';
import { WorkerHostClient } from './worker-host-client.js';
import { localFileClient, localSyncHost } from './worker-local-files.js';
import { recordSharedPid, type WorkerCall, type WorkerReply, type WorkerRequest } from './worker-messages.js';
import { mineThroughHost } from './mine/worker-mine.js';

const port = parentPort;
// salt:// files and blocking calls go to the host thread (worker-host-client.ts)
const host = new WorkerHostClient((m, transfer) => port?.postMessage(m, transfer ?? []));
let registry: Promise<ModuleRegistry> | undefined;
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
    port?.postMessage({ t: 'result', result: failed('EXEC_FAILED', `${current?.call.fun ?? 'the function'} returned a value that cannot be sent: ${(err as Error).message}`) } satisfies WorkerReply);
  }
}

/** The same functions as the main thread: built-ins plus module_dirs (the main thread logs problems). */
function registryFor(config: Readonly<Record<string, unknown>>): Promise<ModuleRegistry> {
  registry ??= (async () => {
    const r = createMinionRegistry();
    const dirs = config.module_dirs;
    if (Array.isArray(dirs) && dirs.length > 0) {
      const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
      await loadModuleDirs(
        r,
        dirs.filter((d): d is string => typeof d === 'string'),
        quiet,
      );
    }
    return r;
  })();
  return registry;
}

function run(call: WorkerCall, pids: SharedArrayBuffer): void {
  const controller = new AbortController();
  current = { call, controller };
  const grains = call.grains;
  const ctx: ExecContext = {
    grains: () => grains,
    minionId: call.minionId,
    config: call.config,
    signal: controller.signal,
    jid: call.jid,
    trackProcess: (pid) => {
      recordSharedPid(pids, pid);
      post({ t: 'pid', pid });
    },
    files: host.files(),
    syncHost: host.syncHost(),
  };
  if (call.hostMine && ctx.syncHost) ctx.mine = mineThroughHost(ctx.syncHost);
  if (call.localFiles) {
    try {
      const files = localFileClient(call.config);
      ctx.files = files;
      ctx.syncHost = localSyncHost(files, host.syncHost().call);
    } catch {
      // a config the host's own client rejected too: keep asking the host, which reports it
    }
  }
  void registryFor(call.config)
    .then(async (r): Promise<ExecResult | typeof DECLINED> => {
      const fn = r.get(call.fun);
      if (call.declineInline && (!fn || fn.inline)) return DECLINED;
      return r.call(call.fun, call.arg, call.kwarg, ctx);
    })
    .catch((err: unknown): ExecResult | typeof DECLINED => failed('INTERNAL', err instanceof Error ? err.message : String(err)))
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
