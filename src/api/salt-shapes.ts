// Salt's shapes for job listings (jobs.list_jobs, GET /jobs) and its StartTime format.

import type { JobRecord } from '../jobs/index.js';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const p2 = (n: number) => String(n).padStart(2, '0');

/** Salt's jid-derived StartTime: '2024, Jan 05 12:00:00.123000' (UTC here). */
export function saltTime(epochMs: number): string {
  const d = new Date(epochMs);
  const micros = String(d.getUTCMilliseconds() * 1000).padStart(6, '0');
  return `${d.getUTCFullYear()}, ${MONTHS[d.getUTCMonth()]} ${p2(d.getUTCDate())} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}.${micros}`;
}

/** The arguments as Salt lists them: positional, then a {__kwarg__: true, ...} mapping when any. */
export function saltArguments(job: JobRecord): unknown[] {
  return Object.keys(job.kwarg).length > 0 ? [...job.arg, { ...job.kwarg, __kwarg__: true }] : [...job.arg];
}

export function jobSummary(job: JobRecord): Record<string, unknown> {
  return { Function: job.fun, Arguments: saltArguments(job), Target: job.tgt, 'Target-type': job.tgtType, User: job.user, StartTime: saltTime(job.startedAt) };
}
