// The messages between the job runner and a job worker thread (structured clone, same process).
// A worker runs one call at a time and is reused for the next call after a clean finish.

import type { MessagePort } from 'node:worker_threads';
import type { ExecContext, ExecResult, Grains, StateProgressReport } from '../modules/index.js';

export type TemplateLogLevel = Parameters<NonNullable<ExecContext['log']>>[0];

/** One function call with a snapshot of the minion's context. */
export interface WorkerCall {
  fun: string;
  arg: unknown[];
  kwarg: Record<string, unknown>;
  jid: string;
  minionId: string;
  grains: Grains;
  config: Readonly<Record<string, unknown>>;
  /**
   * Which load of the custom modules this call expects: the runner bumps it after a
   * saltutil.sync_* / refresh_modules, and a worker with an older registry builds a new one.
   */
  extmodsGeneration?: number;
  /** The minion's pillar when the job started (absent = empty). */
  pillar?: Readonly<Record<string, unknown>>;
  /** Render the pillar from this machine's pillar_roots in the worker instead (brine call --local). */
  localPillar?: boolean;
  /** How deep in blocking salt[...] calls this call is (0 for a job). */
  depth?: number;
  /**
   * Answer `declined` instead of running a function that is inline or unknown: the caller (brine
   * call) then runs it on its own thread, without loading the registry for every other call.
   */
  declineInline?: boolean;
  /**
   * salt:// is this machine's file_roots (file_client: local): the worker serves ctx.files and
   * syncHost.readFile itself (worker-local-files.ts) instead of asking the host per file.
   */
  localFiles?: boolean;
  /** The host thread runs mine.* for this call (the minion daemon): the worker's ctx.mine asks it. */
  hostMine?: boolean;
  /** The host thread fires event.* for this call (the minion daemon): the worker's ctx.events asks it. */
  hostEvents?: boolean;
}

/**
 * Runner -> worker: run a call, or stop the current one nicely (its AbortSignal fires). `pids` is
 * shared memory where the worker records each process group it starts, synchronously, so the
 * runner can stop them even before the `pid` message arrives (kill_job right after a start).
 */
export type WorkerRequest = { t: 'call'; call: WorkerCall; pids: SharedArrayBuffer } | { t: 'abort'; code: string; message: string } | FilesReply;

/** The FileClient methods a worker may ask its host thread for (ExecContext.files). */
export const FILE_OPS = ['listEnvs', 'listFiles', 'listDirs', 'stat', 'cacheFile'] as const;
/** ...and ExecContext.pillarFor, answered the same way (an asynchronous request and its reply). */
export type FileOp = (typeof FILE_OPS)[number] | 'pillarFor';

/** A coded failure crossing the thread boundary (a BrineError does not survive structured clone as one). */
export interface WireFailure {
  code: string;
  message: string;
}

/** Worker -> host: one asynchronous FileClient call; answered by a `files_reply` with the same id. */
export interface FilesRequest {
  t: 'files';
  id: number;
  op: FileOp;
  args: unknown[];
}

export interface FilesReply {
  t: 'files_reply';
  id: number;
  ok: boolean;
  value?: unknown;
  error?: WireFailure;
}

/**
 * Worker -> host: a blocking call (ExecContext.syncHost). The worker waits on `flag` (Atomics)
 * and then reads the one SyncAnswer the host posted on `port`.
 */
export interface SyncRequest {
  t: 'sync';
  op: 'call' | 'readFile';
  args: unknown[];
  port: MessagePort;
  flag: SharedArrayBuffer;
}

export interface SyncAnswer {
  ok: boolean;
  value?: unknown;
  error?: WireFailure;
}

/** Process groups one call can record in shared memory; slot 0 holds the count. */
export const SHARED_PIDS_MAX = 15;

export function newSharedPids(): SharedArrayBuffer {
  return new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT * (SHARED_PIDS_MAX + 1));
}

export function recordSharedPid(buf: SharedArrayBuffer, pid: number): void {
  const slots = new Int32Array(buf);
  const n = Atomics.load(slots, 0);
  if (n >= SHARED_PIDS_MAX) return; // the pid message still carries it
  Atomics.store(slots, n + 1, pid);
  Atomics.store(slots, 0, n + 1);
}

export function readSharedPids(buf: SharedArrayBuffer): number[] {
  const slots = new Int32Array(buf);
  const n = Math.min(Atomics.load(slots, 0), SHARED_PIDS_MAX);
  const out: number[] = [];
  for (let i = 1; i <= n; i++) out.push(Atomics.load(slots, i));
  return out;
}

/** Worker -> runner: a process the function started, a log line (log.*, salt.log.* in a template), then exactly one result per call. */
export type WorkerReply =
  | { t: 'pid'; pid: number }
  | { t: 'log'; level: TemplateLogLevel; message: string }
  /** One finished state of a state run (ExecContext.stateProgress), for the host to send to the master. */
  | { t: 'progress'; progress: StateProgressReport }
  | { t: 'result'; result: ExecResult }
  | { t: 'declined' }
  | FilesRequest
  | SyncRequest;
