// The host thread's side of a job worker's services: answers its FileClient requests and its
// blocking syncHost calls. A blocking `call` runs in another worker (through `runNested`), never
// on the host thread and never in the blocked worker; `readFile` goes through the FileClient.

import * as fs from 'node:fs';
import { BrineError, toBrineError } from '../util/errors.js';
import type { ExecContext, ExecResult, FileClient, StateProgressReport } from '../modules/index.js';
import type { FilesReply, FilesRequest, SyncAnswer, SyncRequest, WireFailure } from './worker-messages.js';

/** What the minion (or brine call) offers a job's worker. */
export interface HostServices {
  /** The salt:// file client; absent = every request fails with FILESERVER_UNAVAILABLE. */
  files?: FileClient;
  /** Why there is no file client, said to whoever asks (brine call without --local). */
  filesUnavailable?: string;
  /** `files` serves this machine's file_roots (file_client: local): the worker may build its own (WorkerCall.localFiles). */
  localFiles?: boolean;
  /**
   * Runs a blocking call on the host thread instead of in another worker, for functions that need
   * the minion daemon's live state (mine.* in a template); undefined = run it in a worker as usual.
   */
  hostCall?(fun: string, arg: unknown[], kwarg: Record<string, unknown>): Promise<ExecResult> | undefined;
  /** Writes a worker's log line (log.*, salt.log.* in a template) to the daemon's log; absent = dropped. */
  log?: NonNullable<ExecContext['log']>;
  /** Sends one finished state of job `jid` to the master (state_events); absent = dropped. */
  stateProgress?(jid: string, progress: StateProgressReport): void;
  /** ExecContext.pillarFor for the worker's calls; absent = pillarenv= fails with EXEC_FAILED (no pillar source). */
  pillarFor?: NonNullable<ExecContext['pillarFor']>;
}

function toWire(err: unknown): WireFailure {
  const e = toBrineError(err);
  return { code: e.code, message: e.message };
}

function clientOf(services: HostServices): FileClient {
  if (services.files) return services.files;
  throw new BrineError('FILESERVER_UNAVAILABLE', services.filesUnavailable ?? 'no salt:// file server is reachable from this job; start the minion daemon or set file_client: local');
}

/** Answers one FileClient request from a worker. */
export async function answerFiles(services: HostServices, req: FilesRequest): Promise<FilesReply> {
  try {
    if (req.op === 'pillarFor') return { t: 'files_reply', id: req.id, ok: true, value: await pillarThroughHost(services, String(req.args[0])) };
    const files = clientOf(services);
    const [a, b] = req.args as [string, string];
    let value: unknown;
    switch (req.op) {
      case 'listEnvs':
        value = await files.listEnvs();
        break;
      case 'listFiles':
        value = await files.listFiles(a, b);
        break;
      case 'listDirs':
        value = await files.listDirs(a, b);
        break;
      case 'stat':
        value = await files.stat(a, b);
        break;
      case 'cacheFile':
        value = await files.cacheFile(a, b);
        break;
      default:
        throw new BrineError('INTERNAL', `unknown host request ${String(req.op)}`);
    }
    return { t: 'files_reply', id: req.id, ok: true, value };
  } catch (err) {
    return { t: 'files_reply', id: req.id, ok: false, error: toWire(err) };
  }
}

/** Answers one blocking request and wakes the worker waiting on it. */
export async function answerSync(services: HostServices, req: SyncRequest, runNested: (fun: string, arg: unknown[], kwarg: Record<string, unknown>) => Promise<ExecResult>): Promise<void> {
  let answer: SyncAnswer;
  try {
    if (req.op === 'call') {
      const [fun, arg, kwarg] = req.args as [string, unknown[], Record<string, unknown>];
      const args = Array.isArray(arg) ? arg : [];
      answer = { ok: true, value: await (services.hostCall?.(fun, args, kwarg ?? {}) ?? runNested(fun, args, kwarg ?? {})) };
    } else {
      const [url, saltenv] = req.args as [string, string];
      answer = { ok: true, value: await readText(clientOf(services), url, saltenv) };
    }
  } catch (err) {
    answer = { ok: false, error: toWire(err) };
  }
  try {
    req.port.postMessage(answer);
  } catch (err) {
    req.port.postMessage({ ok: false, error: toWire(err) } satisfies SyncAnswer);
  }
  req.port.close();
  const word = new Int32Array(req.flag);
  Atomics.store(word, 0, 1);
  Atomics.notify(word, 0);
}

function pillarThroughHost(services: HostServices, pillarenv: string): Promise<Record<string, unknown>> {
  if (!services.pillarFor) throw new BrineError('EXEC_FAILED', 'pillarenv= needs a pillar source: run it through the minion daemon (brine run), or with brine call --local');
  return services.pillarFor(pillarenv);
}

async function readText(files: FileClient, url: string, saltenv: string): Promise<string | undefined> {
  try {
    const { localPath } = await files.cacheFile(url, saltenv);
    return fs.readFileSync(localPath, 'utf8');
  } catch (err) {
    if (err instanceof BrineError && err.code === 'FILE_NOT_FOUND') return undefined;
    throw err;
  }
}
