// The runner functions the API offers (client `runner`), from the master's own state: Salt's
// jobs.* and manage.*, plus two brine extensions for the web view (manage.presence, manage.match).
// Dispatch is through this Map only.

import { isJid } from '../jobs/index.js';
import { globMatch } from '../util/glob.js';
import { BrineError } from '../util/errors.js';
import type { ApiBackend } from './backend.js';
import { jobSummary } from './salt-shapes.js';

export interface RunnerCall {
  arg: unknown[];
  kwarg: Record<string, unknown>;
  /** The API user calling (recorded as the user of the jobs an orchestration publishes). */
  user?: string;
}

type Runner = (b: ApiBackend, c: RunnerCall) => unknown;

const param = (c: RunnerCall, name: string, index: number): unknown => (Object.hasOwn(c.kwarg, name) ? c.kwarg[name] : c.arg[index]);

function jidParam(c: RunnerCall): string {
  const jid = param(c, 'jid', 0);
  if (!isJid(jid)) throw new BrineError('INVALID_JID', `jid ${JSON.stringify(jid)?.slice(0, 40) ?? 'missing'} is not 20 digits`);
  return jid;
}

async function upDown(b: ApiBackend): Promise<{ up: string[]; down: string[] }> {
  const accepted = new Set(b.keys.list('accepted'));
  const up: string[] = [];
  const down: string[] = [];
  const seen = new Set<string>();
  for (const s of await b.presence()) {
    if (!accepted.has(s.id)) continue;
    seen.add(s.id);
    (s.state === 'connected' ? up : down).push(s.id);
  }
  for (const id of accepted) if (!seen.has(id)) down.push(id);
  return { up: up.sort(), down: down.sort() };
}

export function lookupJid(b: ApiBackend, jid: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const r of b.jobs.getReturns(jid)) out[r.minion] = r.error ? { error: r.error, return: r.return } : r.return;
  return out;
}

/** The orchestration runners, which the master runs (src/master/orchestrate). */
function orchestrateRunner(what: 'run' | 'show'): Runner {
  return (b, c) => {
    if (!b.orchestrate) throw new BrineError('ORCHESTRATE_UNAVAILABLE', 'state.orchestrate runs in the master: call it through the API the master serves');
    return b.orchestrate(what, { arg: c.arg, kwarg: c.kwarg }, c.user ?? 'root');
  };
}

export const RUNNERS = new Map<string, Runner>([
  ['state.orchestrate', orchestrateRunner('run')],
  ['state.orch', orchestrateRunner('run')],
  ['state.sls', orchestrateRunner('run')],
  ['state.orchestrate_show_sls', orchestrateRunner('show')],
  [
    'jobs.list_jobs',
    (b, c) => {
      const fun = param(c, 'search_function', 99);
      const tgt = param(c, 'search_target', 99);
      const limit = Number(param(c, 'limit', 99) ?? 100);
      if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new BrineError('BAD_ARGUMENTS', 'jobs.list_jobs: limit must be from 1 to 10000');
      const out: Record<string, unknown> = {};
      for (const job of b.jobs.listJobs({ limit })) {
        if (typeof fun === 'string' && !globMatch(fun, job.fun)) continue;
        if (typeof tgt === 'string' && !(typeof job.tgt === 'string' ? globMatch(tgt, job.tgt) : job.tgt.some((t) => globMatch(tgt, t)))) continue;
        out[job.jid] = jobSummary(job);
      }
      return out;
    },
  ],
  ['jobs.lookup_jid', (b, c) => lookupJid(b, jidParam(c))],
  [
    'jobs.list_job',
    (b, c) => {
      const jid = jidParam(c);
      const job = b.jobs.getJob(jid);
      if (!job) return {};
      return { jid, ...jobSummary(job), Minions: job.minions, Result: Object.fromEntries(Object.entries(lookupJid(b, jid)).map(([m, r]) => [m, { return: r }])) };
    },
  ],
  [
    'jobs.active',
    async (b) => {
      const out: Record<string, unknown> = {};
      for (const jid of await b.activeJids()) {
        const job = b.jobs.getJob(jid);
        if (!job) continue;
        const returned = new Set(b.jobs.getReturns(jid).map((r) => r.minion));
        out[jid] = { ...jobSummary(job), Running: job.minions.filter((m) => !returned.has(m)), Returned: [...returned] };
      }
      return out;
    },
  ],
  ['manage.status', (b) => upDown(b)],
  ['manage.up', async (b) => (await upDown(b)).up],
  ['manage.down', async (b) => (await upDown(b)).down],
  [
    'manage.presence',
    async (b) => {
      const list = await b.presence();
      const listed = new Set(list.map((s) => s.id));
      for (const id of b.keys.list('pending')) if (!listed.has(id)) list.push({ id, state: 'pending', reconnects: 0 });
      return list.sort((x, y) => x.id.localeCompare(y.id));
    },
  ],
  [
    'manage.match',
    async (b, c) => {
      const tgt = param(c, 'tgt', 0);
      const tgtType = param(c, 'tgt_type', 1) ?? 'glob';
      if (!(typeof tgt === 'string' || (Array.isArray(tgt) && tgt.every((t) => typeof t === 'string')))) throw new BrineError('BAD_ARGUMENTS', 'manage.match: tgt must be a target expression');
      if (typeof tgtType !== 'string') throw new BrineError('BAD_ARGUMENTS', 'manage.match: tgt_type must be a string');
      const { matched, missing } = await b.matchTarget(tgt as string | string[], tgtType);
      const connected = new Set((await b.presence()).filter((s) => s.state === 'connected').map((s) => s.id));
      return { minions: matched, not_connected: matched.filter((m) => !connected.has(m)), missing };
    },
  ],
]);
