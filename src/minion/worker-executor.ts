// Runs module functions in worker threads, keeping a few warm ones for the next call. A thread
// that spins or blocks cannot be interrupted from inside; terminate() ends it from outside (a
// timeout or kill_job), and such a thread is never reused.

import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ExecResult } from '../modules/index.js';
import { releaseOptimizingCompiler } from '../util/optimizing-compiler.js';
import { newSharedPids, readSharedPids, type WorkerCall, type WorkerReply, type WorkerRequest } from './worker-messages.js';
import { answerFiles, answerSync, type HostServices } from './worker-host.js';
import { errnoCode } from '../util/errors.js';

/** Blocking salt[...] calls from templates may nest (a call whose template calls again), this deep at most. */
export const MAX_NESTED_CALLS = 8;

export interface IsolatedRun {
  /** Settles once: the function's result, or a coded failure if the thread died. */
  readonly result: Promise<ExecResult>;
  /** Asks the function to stop (its AbortSignal fires with this coded error). */
  abort(code: string, message: string): void;
  /** Ends the thread at once, even in the middle of a busy loop. */
  terminate(): void;
  /** Process groups the call started so far, read from shared memory (no message round trip). */
  pids(): number[];
}

export interface JobExecutor {
  /** `services`: the file client and blocking calls the worker may use (worker-host.ts). */
  start(call: WorkerCall, onProcess: (pid: number) => void, services?: HostServices): IsolatedRun;
  /** Ends the idle threads (minion shutdown). */
  close(): void;
}

/**
 * The result of a call made with `declineInline` when the worker declined it (an inline or
 * unknown function): compared by identity, never sent anywhere.
 */
export const DECLINED: ExecResult = Object.freeze({ return: 'declined', retcode: 1, success: false });

/** Warm threads kept for the next job; more are started on demand up to max_concurrent_jobs. */
const DEFAULT_MAX_IDLE = 2;

function failed(fun: string, message: string): ExecResult {
  const text = `${fun}: ${message}`;
  return { return: text, retcode: 1, success: false, error: { code: 'EXEC_FAILED', message: text } };
}

/**
 * The bundled worker (scripts/bundle-worker.mjs, part of npm run build), started through
 * job-worker-loader.cjs (which adds the V8 code cache), if the bundle is at least as new as the
 * last compile (dist/.tsbuildinfo, absent in a copied installation): a compile without the
 * bundle step must not leave an older bundle running instead of the new code.
 */
function freshBundle(): URL | undefined {
  const bundle = new URL('./job-worker.bundle.cjs', import.meta.url);
  try {
    const built = statSync(fileURLToPath(bundle)).mtimeMs;
    const compiled = statSync(fileURLToPath(new URL('../../.tsbuildinfo', import.meta.url)), { throwIfNoEntry: false })?.mtimeMs;
    return compiled === undefined || built >= compiled ? new URL('./job-worker-loader.cjs', import.meta.url) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Built code runs the fresh bundle (one file loads faster than ~200 modules, and it has a code
 * cache), else job-worker.js. Under tsx (tests run from source) only job-worker.ts exists and
 * a worker thread does not inherit tsx's loader, so a small bootstrap registers it first.
 */
function spawnWorker(): Worker {
  // an idle minion held TurboFan back (util/optimizing-compiler.ts); jobs run at full speed
  releaseOptimizingCompiler();
  const js = new URL('./job-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(js))) return new Worker(freshBundle() ?? js);
  const unreadable = unreadableCode(fileURLToPath(new URL('.', import.meta.url)));
  if (unreadable !== undefined) return new Worker(`throw new Error(${JSON.stringify(unreadable)})`, { eval: true });
  const ts = new URL('./job-worker.ts', import.meta.url).href;
  const bootstrap = `import('tsx/esm/api').then((api) => { api.register(); return import(${JSON.stringify(ts)}); })`;
  return new Worker(bootstrap, { eval: true });
}

/**
 * Why this process cannot load brine's own code, if that is the case: a daemon that switched to
 * `user:` after start loads its workers as that account (docs/daemons.md).
 */
export function unreadableCode(dir: string): string | undefined {
  try {
    accessSync(dir, constants.R_OK | constants.X_OK);
    return undefined;
  } catch (err) {
    const code = errnoCode(err);
    if (code !== 'EACCES' && code !== 'EPERM') return undefined;
    return `this process (uid ${process.getuid?.() ?? '?'}) cannot read brine's code in ${dir} (${code}); make the installation readable by the user: account, or run the minion as its owner`;
  }
}

export class WorkerExecutor implements JobExecutor {
  private readonly idle: Worker[] = [];
  private closed = false;

  constructor(private readonly maxIdle = DEFAULT_MAX_IDLE) {}

  start(call: WorkerCall, onProcess: (pid: number) => void, services: HostServices = {}): IsolatedRun {
    const worker = this.idle.pop() ?? spawnWorker();
    /** Calls this worker made through syncHost.call, each in its own worker; they end with it. */
    const nested = new Set<IsolatedRun>();
    const runNested = (fun: string, arg: unknown[], kwarg: Record<string, unknown>): Promise<ExecResult> => {
      const depth = (call.depth ?? 0) + 1;
      if (depth > MAX_NESTED_CALLS) return Promise.resolve(failed(fun, `more than ${MAX_NESTED_CALLS} nested salt[...] calls (a template calling itself?)`));
      if (done) return Promise.resolve(failed(fun, 'the calling job has ended'));
      // a nested call always runs in its worker, inline or not, as it always did
      const { declineInline: _top, ...parent } = call;
      const run = this.start({ ...parent, fun, arg, kwarg, depth }, onProcess, services);
      nested.add(run);
      return run.result.finally(() => nested.delete(run));
    };
    worker.ref();
    let done = false;
    let settle!: (r: ExecResult) => void;
    const result = new Promise<ExecResult>((resolve) => (settle = resolve));
    const finish = (r: ExecResult, reusable: boolean): void => {
      if (done) return;
      done = true;
      for (const n of nested) n.terminate();
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      if (reusable) this.release(worker);
      else void worker.terminate();
      settle(r);
    };
    const onMessage = (m: WorkerReply): void => {
      if (m.t === 'pid') onProcess(m.pid);
      else if (m.t === 'log') services.log?.(m.level, m.message);
      else if (m.t === 'progress') services.stateProgress?.(call.jid, m.progress);
      else if (m.t === 'files') {
        void answerFiles(services, m).then((reply) => {
          if (!done) worker.postMessage(reply satisfies WorkerRequest);
        });
      } else if (m.t === 'sync') void answerSync(services, m, runNested);
      else if (m.t === 'declined') finish(DECLINED, true);
      else finish(m.result, true);
    };
    const onError = (err: Error): void => finish(failed(call.fun, `the worker thread failed: ${err.message}`), false);
    const onExit = (code: number): void => finish(failed(call.fun, `the worker thread exited (code ${code}) before the function returned`), false);
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    const pids = newSharedPids();
    const sent = services.localFiles && services.files ? { ...call, localFiles: true } : call;
    worker.postMessage({ t: 'call', call: sent, pids } satisfies WorkerRequest);
    return {
      result,
      abort: (code, message) => {
        if (!done) worker.postMessage({ t: 'abort', code, message } satisfies WorkerRequest);
      },
      terminate: () => finish(failed(call.fun, 'stopped'), false),
      pids: () => readSharedPids(pids),
    };
  }

  /**
   * Starts a thread now, so that the next start() finds it loaded (a process that knows it will
   * run a function soon, e.g. brine call). It waits idle and does not keep the process alive.
   */
  prewarm(): void {
    if (this.closed || this.idle.length > 0) return;
    const worker = spawnWorker();
    worker.unref();
    this.idle.push(worker);
  }

  close(): void {
    this.closed = true;
    for (const w of this.idle.splice(0)) void w.terminate();
  }

  private release(worker: Worker): void {
    if (this.closed || this.idle.length >= this.maxIdle) {
      void worker.terminate();
      return;
    }
    // an idle thread must not keep a stopping process alive
    worker.unref();
    this.idle.push(worker);
  }
}
