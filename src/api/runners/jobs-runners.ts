// Salt's jobs runner over brine's job cache: list_jobs (search_function / search_target as a
// pattern, a comma-separated string or a list; brine's `limit`), list_job and print_job (with
// each minion's {return, retcode, success, out} as Salt's job cache gives it), lookup_jid
// (returned / missing) and active (saltutil.running on the minions, as Salt asks them).

import { isJid, type JobRecord } from '../../jobs/index.js';
import { globMatch } from '../../util/glob.js';
import { BrineError } from '../../util/errors.js';
import type { RunnerBackend } from '../backend.js';
import { boolParam, listParam, param, type RunnerCall } from '../runner-call.js';
import { jobSummary, saltTime } from '../salt-shapes.js';
import { fleetCall } from './fleet-call.js';

type Runner = (b: RunnerBackend, c: RunnerCall) => unknown;

/** The functions whose returns Salt's minion marks `out: highstate` (their __outputter__). */
const HIGHSTATE_OUT = new Set([
  'state.apply',
  'state.highstate',
  'state.sls',
  'state.sls_id',
  'state.single',
  'state.top',
  'state.template',
  'state.template_str',
  'state.test',
  'state.request',
  'state.run_request',
  'state.check_request',
]);

function jidParam(c: RunnerCall): string {
  const jid = param(c, 'jid', 0);
  if (!isJid(jid)) throw new BrineError('INVALID_JID', `jid ${JSON.stringify(jid)?.slice(0, 40) ?? 'missing'} is not 20 digits`);
  return jid;
}

/** The jid's returns as brine has always answered lookups: {minion: return}, with the error beside a failed one. */
export function lookupJid(b: RunnerBackend, jid: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const r of b.jobs.getReturns(jid)) out[r.minion] = r.error ? { error: r.error, return: r.return } : r.return;
  return out;
}

/** Salt's get_jid: {minion: {return, retcode, success, out?}}. */
function jobResult(b: RunnerBackend, jid: string): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const r of b.jobs.getReturns(jid)) {
    out[r.minion] = { return: r.error ? { error: r.error, return: r.return } : r.return, retcode: r.retcode, success: r.success, ...(HIGHSTATE_OUT.has(r.fun) ? { out: 'highstate' } : {}) };
  }
  return out;
}

/** Salt's _format_jid_instance for a job the cache does not have. */
function missingJob(jid: string): Record<string, unknown> {
  const d = jid;
  const ms = Date.UTC(+d.slice(0, 4), +d.slice(4, 6) - 1, +d.slice(6, 8), +d.slice(8, 10), +d.slice(10, 12), +d.slice(12, 14), +d.slice(14, 17));
  return { Error: 'Cannot contact returner or no job with this jid', StartTime: Number.isNaN(ms) ? '' : saltTime(ms) };
}

function matchesAny(values: readonly string[], patterns: readonly string[]): boolean {
  return values.some((v) => patterns.some((p) => globMatch(p, v)));
}

function listJobs(b: RunnerBackend, c: RunnerCall): Record<string, unknown> {
  const funs = listParam(param(c, 'search_function', 99));
  const tgts = listParam(param(c, 'search_target', 99));
  const limit = Number(param(c, 'limit', 99) ?? 100);
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new BrineError('BAD_ARGUMENTS', 'jobs.list_jobs: limit must be from 1 to 10000');
  const out: Record<string, unknown> = {};
  for (const job of b.jobs.listJobs({ limit })) {
    if (funs && !matchesAny([job.fun], funs)) continue;
    if (tgts && !matchesAny(typeof job.tgt === 'string' ? [job.tgt] : job.tgt, tgts)) continue;
    out[job.jid] = jobSummary(job);
  }
  return out;
}

function listJob(b: RunnerBackend, jid: string): Record<string, unknown> {
  const job: JobRecord | undefined = b.jobs.getJob(jid);
  if (!job) return { jid, ...missingJob(jid), Result: {} };
  return { jid, ...jobSummary(job), Minions: job.minions, Result: jobResult(b, jid) };
}

async function active(b: RunnerBackend, c: RunnerCall): Promise<Record<string, unknown>> {
  const { returns } = await fleetCall(b, { tgt: '*', tgtType: 'glob', fun: 'saltutil.running', user: c.user ?? 'root', ...(c.timeout === undefined ? {} : { timeout: c.timeout }) });
  const out: Record<string, Record<string, unknown> & { Running: Array<Record<string, unknown>>; Returned: string[] }> = {};
  for (const [minion, r] of returns) {
    if (!Array.isArray(r.ret)) continue;
    for (const e of r.ret as Array<Record<string, unknown>>) {
      if (typeof e?.jid !== 'string') continue;
      const job = b.jobs.getJob(e.jid);
      const slot = out[e.jid] ?? {
        ...(job ? jobSummary(job) : { Function: e.fun, Arguments: e.arg ?? [], Target: e.tgt ?? 'unknown-target', 'Target-type': e.tgt_type ?? 'list', User: e.user ?? 'root', StartTime: '' }),
        Running: [],
        Returned: [],
      };
      slot.Running.push({ [minion]: e.pid ?? null });
      out[e.jid] = slot;
    }
  }
  for (const [jid, slot] of Object.entries(out)) for (const r of b.jobs.getReturns(jid)) if (!slot.Returned.includes(r.minion)) slot.Returned.push(r.minion);
  return out;
}

export const JOBS_RUNNERS: ReadonlyArray<[string, Runner]> = [
  ['jobs.list_jobs', listJobs],
  [
    'jobs.lookup_jid',
    (b, c) => {
      const jid = jidParam(c);
      const out = boolParam(c, 'returned', 2, true) ? lookupJid(b, jid) : {};
      if (boolParam(c, 'missing', 3, false)) {
        const returned = new Set(b.jobs.getReturns(jid).map((r) => r.minion));
        for (const m of b.jobs.getJob(jid)?.minions ?? []) if (!returned.has(m)) out[m] = 'Minion did not return';
      }
      return out;
    },
  ],
  ['jobs.list_job', (b, c) => listJob(b, jidParam(c))],
  [
    'jobs.print_job',
    (b, c) => {
      const jid = jidParam(c);
      const { jid: _jid, ...rest } = listJob(b, jid);
      return { [jid]: rest };
    },
  ],
  ['jobs.active', active],
];
