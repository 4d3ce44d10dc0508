// The runner functions (Salt's salt-run), one registry for `brine runner`, the API's runner
// client, the reactor and orchestration: Salt's jobs.*, manage.*, event.send, fileserver.*,
// cache.*, saltutil.sync_*, test.* and salt.cmd, plus brine's manage.presence and manage.match
// for the web view. Each is `(backend, {arg, kwarg})`; the master's host may add more (its
// `extraRunners`: state.orchestrate). Run as a job (events, job cache) by runner-job.ts.

import type { RunnerBackend, RunnerHost } from './backend.js';
import type { RunnerCall } from './runner-call.js';

import { JOBS_RUNNERS } from './runners/jobs-runners.js';
import { MANAGE_RUNNERS } from './runners/manage-runners.js';
import { MASTER_RUNNERS } from './runners/master-runners.js';

export type { RunnerCall } from './runner-call.js';
export { lookupJid } from './runners/jobs-runners.js';

export type Runner = (b: RunnerBackend, c: RunnerCall) => unknown;

function registry(...groups: ReadonlyArray<ReadonlyArray<[string, Runner]>>): Map<string, Runner> {
  const map = new Map<string, Runner>();
  for (const [name, fn] of groups.flat()) {
    if (map.has(name)) throw new Error(`runner ${name} is registered twice`);
    map.set(name, fn);
  }
  return map;
}

export const RUNNERS: ReadonlyMap<string, Runner> = registry(JOBS_RUNNERS, MANAGE_RUNNERS, MASTER_RUNNERS);

/** The function for a name: the registry's, else one the master's host adds. */
export function runnerFunction(host: RunnerHost | undefined, fun: string): Runner | undefined {
  return RUNNERS.get(fun) ?? host?.extraRunners?.get(fun);
}

/** Every runner name, sorted (for messages and docs). */
export function runnerNames(host?: RunnerHost): string[] {
  return [...new Set([...RUNNERS.keys(), ...(host?.extraRunners?.keys() ?? [])])].sort();
}
