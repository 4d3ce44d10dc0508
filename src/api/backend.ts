// What the REST API needs from the master, as an interface: the master (its composition root)
// provides it, so src/api never imports src/master.

import type { Authenticator } from '../auth/index.js';
import type { JobRecord, ReturnRecord } from '../jobs/index.js';
import type { KeyStore } from '../pki/index.js';
import type { KeyChange, SaltEvent, JobDone, JobReturn, Published, PublishRequest, SessionInfo } from '../protocol/index.js';
import type { Clock } from '../util/clock.js';
import type { Disposable } from '../util/disposable.js';
import type { Logger } from '../util/logger.js';

export interface ApiJobSink {
  onReturn(ret: JobReturn): void;
  onDone(done: JobDone): void;
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
  /** For GET /stats. */
  stats(): Promise<Record<string, unknown>>;
}
