// What a job came to, for the web view (issue 26 point 1): per minion returned ok / failed,
// running, not connected or did not return, and the job's status (ok, failed, running, partial:
// some minions did not return). Pure: the routes pass the job cache's rows, the active jids and
// who is connected, and these functions decide.

import type { JobRecord, ReturnRecord } from '../jobs/index.js';
import { saltArguments, saltTime } from './salt-shapes.js';

export type MinionOutcome = 'ok' | 'failed' | 'running' | 'not_connected' | 'no_return';
export type JobStatus = 'ok' | 'failed' | 'running' | 'partial';

/** The functions whose return is a highstate (state results by chunk key). */
export const STATE_RUNS = new Set(['state.apply', 'state.highstate', 'state.sls', 'state.sls_id', 'state.single', 'state.top', 'state.test']);
/** Those whose last run is a minion's "last highstate" in the fleet view. */
export const HIGHSTATE_RUNS = new Set(['state.apply', 'state.highstate']);

/** State chunks in a return: {key: {result, changes, ...}}; undefined when it is not a highstate return. */
function stateChunks(ret: unknown): Array<Record<string, unknown>> | undefined {
  if (ret === null || typeof ret !== 'object' || Array.isArray(ret)) return undefined;
  const chunks = Object.values(ret as Record<string, unknown>);
  if (chunks.length === 0 || !chunks.every((c) => c !== null && typeof c === 'object' && !Array.isArray(c) && 'result' in c)) return undefined;
  return chunks as Array<Record<string, unknown>>;
}

/** A return failed when the minion says so (success false, retcode != 0, an error) or a state in it is False. */
export function returnFailed(r: Pick<ReturnRecord, 'retcode' | 'success' | 'error' | 'return'>): boolean {
  if (r.error !== undefined || r.success === false || (typeof r.retcode === 'number' && r.retcode !== 0)) return true;
  return stateChunks(r.return)?.some((c) => c.result === false) ?? false;
}

/** A state run's counts as the highstate outputter's summary gives them. */
export function stateCounts(ret: unknown): { succeeded: number; failed: number; changed: number; pending: number } | undefined {
  const chunks = stateChunks(ret);
  if (!chunks) return undefined;
  const changed = (c: Record<string, unknown>) => c.changes !== null && typeof c.changes === 'object' && Object.keys(c.changes).length > 0;
  return {
    succeeded: chunks.filter((c) => c.result === true).length,
    failed: chunks.filter((c) => c.result === false).length,
    changed: chunks.filter((c) => c.result !== false && changed(c)).length,
    pending: chunks.filter((c) => c.result === null).length,
  };
}

export interface JobView {
  jid: string;
  fun: string;
  arguments: unknown[];
  target: string | string[];
  tgtType: string;
  user: string;
  startedAt: number;
  StartTime: string;
  status: JobStatus;
  expected: number;
  returned: number;
  failed: number;
  /** Only for one job (GET /jobs/{jid}/outcome): each expected or returning minion's outcome. */
  minions?: Record<string, MinionOutcome>;
}

export interface Liveness {
  /** The job is still awaited by the master. */
  active: boolean;
  connected(id: string): boolean;
}

/** Each minion's outcome: the returns first, then every expected minion without one. */
export function minionOutcomes(job: JobRecord, returns: readonly ReturnRecord[], live: Liveness): Record<string, MinionOutcome> {
  const out: Record<string, MinionOutcome> = {};
  for (const r of returns) out[r.minion] = returnFailed(r) ? 'failed' : 'ok';
  for (const id of job.minions) {
    if (id in out) continue;
    if (!live.connected(id)) out[id] = 'not_connected';
    else out[id] = live.active ? 'running' : 'no_return';
  }
  return out;
}

/** running while the master awaits it; then failed if any minion failed, partial if some did not return, else ok. */
export function jobStatus(outcomes: Record<string, MinionOutcome>, active: boolean): JobStatus {
  const values = Object.values(outcomes);
  if (active) return 'running';
  if (values.includes('failed')) return 'failed';
  if (values.some((v) => v === 'no_return' || v === 'not_connected')) return 'partial';
  return 'ok';
}

export function jobView(job: JobRecord, returns: readonly ReturnRecord[], live: Liveness, withMinions: boolean): JobView {
  const minions = minionOutcomes(job, returns, live);
  const values = Object.values(minions);
  return {
    jid: job.jid,
    fun: job.fun,
    arguments: saltArguments(job),
    target: job.tgt,
    tgtType: job.tgtType,
    user: job.user,
    startedAt: job.startedAt,
    StartTime: saltTime(job.startedAt),
    status: jobStatus(minions, live.active),
    expected: job.minions.length,
    returned: returns.length,
    failed: values.filter((v) => v === 'failed').length,
    ...(withMinions ? { minions } : {}),
  };
}

export interface LastHighstate {
  jid: string;
  fun: string;
  at: number;
  /** failed: a state failed or the run errored; changed: it changed something; ok: nothing to do. */
  result: 'ok' | 'changed' | 'failed';
}

/** The minion's last highstate from its newest return among `jobs` (newest first). */
export function lastHighstates(jobs: readonly JobRecord[], returnsOf: (jid: string) => readonly ReturnRecord[]): Record<string, LastHighstate> {
  const out: Record<string, LastHighstate> = {};
  for (const job of jobs) {
    if (!HIGHSTATE_RUNS.has(job.fun)) continue;
    for (const r of returnsOf(job.jid)) {
      if (r.minion in out) continue;
      const counts = stateCounts(r.return);
      const result = returnFailed(r) ? 'failed' : counts !== undefined && counts.changed > 0 ? 'changed' : 'ok';
      out[r.minion] = { jid: job.jid, fun: job.fun, at: r.receivedAt, result };
    }
  }
  return out;
}
