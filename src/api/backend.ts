// What the REST API needs from the master, as an interface: the master (its composition root)
// provides it, so src/api never imports src/master.

import type { Authenticator } from '../auth/index.js';
import type { JobRecord, PresenceSample, ReturnRecord } from '../jobs/index.js';
import type { KeyStore } from '../pki/index.js';
import type { KeyChange, SaltEvent, JobDone, JobReturn, Published, PublishRequest, SessionInfo } from '../protocol/index.js';
import type { Clock } from '../util/clock.js';
import type { Disposable } from '../util/disposable.js';
import type { Logger } from '../util/logger.js';
import type { JobRecord as StoredJob, ReturnRecord as StoredReturn } from '../jobs/index.js';
import type { RunnerCall, RunnerReply } from './runner-call.js';

export interface ApiJobSink {
  onReturn(ret: JobReturn): void;
  onDone(done: JobDone): void;
}

/** One of the reactor's recent reactions (src/reactor/recent.ts), as GET /reactions lists it. */
export interface ReactionView {
  at: number;
  tag: string;
  sls: string;
  id?: string;
  fun?: string;
  outcome: string;
  jid?: string;
  error?: { code: string; message: string };
}

export interface ApiBackend {
  logger: Logger;
  clock: Clock;
  auth: Authenticator;
  /** The key store `brine key` uses (pki_dir). */
  keys: KeyStore;
  /** The master's own key fingerprint (wheel key.finger lists it under `local`). */
  masterFingerprint: string;
  /**
   * Publishes through the JobTracker, exactly as the control socket does. Every method that needs
   * the master answers with a promise: in the master it is resolved at once, in `brine api` it
   * waits on the control socket (and rejects with MASTER_UNREACHABLE while the master is down).
   */
  publish(req: PublishRequest, sink: ApiJobSink): Promise<Published>;
  unsubscribe(sink: ApiJobSink): void;
  /** Jobs whose returns are still awaited. */
  activeJids(): Promise<string[]>;
  jobs: {
    getJob(jid: string): JobRecord | undefined;
    getReturns(jid: string): ReturnRecord[];
    listJobs(query?: { limit?: number; since?: number }): JobRecord[];
    /** The master's connected-minion samples since `at` (the web view's chart). */
    presenceSamples(at: number): PresenceSample[];
  };
  presence(): Promise<SessionInfo[]>;
  /** Cached grains of an accepted minion. */
  grainsOf(id: string): Record<string, unknown> | undefined;
  /** Accepted minions a target matches (TARGET_INVALID for a malformed one). */
  /** The accepted minions a target matches; with `within`, evaluated among those minions alone. */
  matchTarget(tgt: string | string[], tgtType: string, within?: readonly string[]): Promise<{ matched: string[]; missing: string[] }>;
  subscribe(fn: (event: SaltEvent) => void): Disposable;
  /** Emits the api_hook event for POST /hook/<path> (the path already checked). */
  emitHook(path: string, user: string, body: unknown, meta?: { raw: string; headers: Record<string, string> }): Promise<void>;
  /** Closes sessions whose key is no longer accepted (after a key change). */
  /** Tells the master the key store changed; `changes` are fired as salt/key events, once per key. */
  reconcileKeys(changes?: readonly KeyChange[]): Promise<string[]>;
  metrics: { render(): Promise<{ text: string; contentType: string }>; countRequest(status: number): void };
  /** The reactor's recent reactions, newest first (GET /reactions): the master's own, or asked of it over the control socket (`brine api`). */
  reactions?(limit: number): Promise<ReactionView[]>;
  /**
   * Runs a runner function as a job on the master (salt/run events, the job cache): the master's
   * own backend runs it, `brine api`'s asks the master over the control socket. With `async`
   * the promise settles with the jid alone (`done: false`). RUNNER_UNKNOWN for a name no runner has.
   */
  runner(req: RunnerCall & { fun: string; user: string; async?: boolean }): Promise<RunnerReply>;
  /** Fires an event on the master's bus (wheel's salt/wheel/<jid>/new and ret). */
  fire(tag: string, data: Record<string, unknown>): Promise<void>;
  /** The master's options as loaded (wheel config.values). */
  masterOptions(): Record<string, unknown>;
  /** The master's side of the runners; only in the master's own backend. */
  runnerHost?: RunnerHost;
  /** For GET /stats. */
  stats(): Promise<Record<string, unknown>>;
}

/** What runner functions use: the backend without the API's own parts (its tokens, metrics, hooks). */
export type RunnerBackend = Omit<ApiBackend, 'auth' | 'metrics' | 'stats' | 'emitHook'>;

/**
 * What the runner functions need of the master beyond the backend (its bus, file server, cached
 * pillar and mine, options): the master's composition root provides it. Parts owned by other
 * features (orchestration, salt.cmd's local functions) are injected and may be absent; then the
 * runner answers RUNNER_UNAVAILABLE saying why.
 */
export interface RunnerHost {
  /** The master's ID (Salt's `<host>_master`): runner jobs are stored as its return. */
  masterId: string;
  /** A fresh jid from the master's generator (unique, increasing). */
  newJid(): string;
  /** The job cache the runner jobs are stored in. */
  jobCache: { saveJob(job: StoredJob): void; saveReturn(ret: StoredReturn): boolean };
  /** Fires an untyped event on the master's bus (EventBus.fire). */
  fire(tag: string, data: Record<string, unknown>): void;
  /** The files of a saltenv across fileserver_backend (or only `backends`). */
  fileList(saltenv: string, backends?: string[]): string[];
  /** Fetches the gitfs remotes now (`backend`: gitfs or roots). */
  fileserverUpdate(backend?: string): Promise<Array<{ remote: string; ok: boolean; changed: boolean; error?: string }>>;
  /** The master's last compiled pillar of a minion. */
  pillarOf(id: string): Record<string, unknown> | undefined;
  /** A minion's mine data, {function: data}. */
  mineOf(id: string): Record<string, unknown> | undefined;
  /** The master options front ends read (wheel config.values). */
  options(): Record<string, unknown>;
  /** brine's version (manage.versions' Master). */
  version: string;
  /** salt.cmd: an execution function run on the master; absent when not wired. */
  localCall?(fun: string, arg: unknown[], kwarg: Record<string, unknown>): Promise<unknown>;
  /** Runner functions other features add (state.orchestrate, state.orch): the orchestrate engineer's entry point. */
  extraRunners?: ReadonlyMap<string, (b: RunnerBackend, c: RunnerCall) => unknown>;
}
