// What the runner functions need of the master beyond the ApiBackend (its bus, file server,
// cached pillar and mine, options): the master's composition root provides it. Parts owned by
// other features (orchestration, salt.cmd's local functions) are injected and may be absent,
// then the runner answers RUNNER_UNAVAILABLE saying why.

import type { JobRecord, ReturnRecord } from '../jobs/index.js';
import type { RunnerCall } from './runner-call.js';
import type { RunnerBackend } from './backend.js';

export interface RunnerHost {
  /** The master's ID (Salt's `<host>_master`): runner jobs are stored as its return. */
  masterId: string;
  /** A fresh jid from the master's generator (unique, increasing). */
  newJid(): string;
  /** The job cache the runner jobs are stored in. */
  jobCache: { saveJob(job: JobRecord): void; saveReturn(ret: ReturnRecord): boolean };
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
