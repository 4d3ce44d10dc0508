// The `saltutil` module: the minion's own jobs (running, find_job, kill_job, signal_job) and
// grain refresh. It reads the job runner through ctx.jobs, so every function runs inline.

import { constants as osConstants } from 'node:os';
import { BrineError } from '../util/errors.js';
import type { ExecContext, ModuleFunction, RunningJobs } from './types.js';
import { defineFunction } from './define-function.js';

const JID = /^\d{20}$/;

// Signal names and numbers this platform knows, e.g. SIGTERM -> 15 (a Map: names are user input).
const SIGNALS: ReadonlyMap<string, number> = new Map(Object.entries(osConstants.signals));
const SIGNAL_NAMES: ReadonlyMap<number, NodeJS.Signals> = new Map([...SIGNALS].map(([name, n]) => [n, name as NodeJS.Signals]));

function jobsOf(ctx: ExecContext, fun: string): RunningJobs {
  if (!ctx.jobs) throw new BrineError('EXEC_FAILED', `${fun} needs the minion's job runner and cannot run here (brine call --local has no running jobs)`);
  return ctx.jobs;
}

function jidArg(fun: string, value: unknown): string {
  const jid = typeof value === 'number' ? String(value) : value;
  if (typeof jid !== 'string' || !JID.test(jid)) {
    throw new BrineError('INVALID_JID', `${fun}: '${String(value).slice(0, 64)}' is not a jid (20 digits, as printed by brine run -v or brine jobs list)`);
  }
  return jid;
}

/** SIGTERM, TERM, term or 15 -> 'SIGTERM'. */
export function parseSignal(value: unknown): NodeJS.Signals {
  if (typeof value === 'number' || (typeof value === 'string' && /^\d+$/.test(value))) {
    const name = SIGNAL_NAMES.get(Number(value));
    if (name) return name;
  } else if (typeof value === 'string') {
    const upper = value.trim().toUpperCase();
    const name = upper.startsWith('SIG') ? upper : `SIG${upper}`;
    if (SIGNALS.has(name)) return name as NodeJS.Signals;
  }
  throw new BrineError('BAD_ARGUMENTS', `saltutil.signal_job: '${String(value).slice(0, 32)}' is not a signal; use a name such as SIGTERM or HUP, or a number such as 15`);
}

function notRunning(jid: string): string {
  return `Job ${jid} is not running on this minion`;
}

export const saltutilFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'saltutil.running',
    doc: 'List the jobs running (or queued) on this minion: jid, fun, arg, pid, started, queued.',
    params: [],
    inline: true,
    // the job asking is itself running; Salt leaves it out too
    run: (ctx) =>
      jobsOf(ctx, 'saltutil.running')
        .list()
        .filter((j) => j.jid !== ctx.jid),
  }),
  defineFunction({
    name: 'saltutil.find_job',
    doc: 'Return the data of a job running on this minion, or {} when it does not run here.',
    params: [{ name: 'jid', type: 'any', required: true, doc: 'the job id (20 digits)' }],
    inline: true,
    run: (ctx, a) => jobsOf(ctx, 'saltutil.find_job').get(jidArg('saltutil.find_job', a.named.jid)) ?? {},
  }),
  defineFunction({
    name: 'saltutil.kill_job',
    doc: 'Kill a running job and every process it started (SIGKILL to its process group).',
    params: [{ name: 'jid', type: 'any', required: true, doc: 'the job id (20 digits)' }],
    inline: true,
    run: (ctx, a) => {
      const jid = jidArg('saltutil.kill_job', a.named.jid);
      const jobs = jobsOf(ctx, 'saltutil.kill_job');
      const info = jobs.get(jid);
      if (!info || !jobs.kill(jid)) return notRunning(jid);
      return `Signal 9 sent to job ${jid} at pid ${info.pid}`;
    },
  }),
  defineFunction({
    name: 'saltutil.signal_job',
    doc: "Send a signal to a running job's process group (SIGTERM, HUP, 15, ...).",
    params: [
      { name: 'jid', type: 'any', required: true, doc: 'the job id (20 digits)' },
      { name: 'signal', type: 'any', required: true, doc: 'a signal name (SIGTERM, TERM) or number (15)' },
    ],
    inline: true,
    run: (ctx, a) => {
      const jid = jidArg('saltutil.signal_job', a.named.jid);
      const sig = parseSignal(a.named.signal);
      const jobs = jobsOf(ctx, 'saltutil.signal_job');
      const info = jobs.get(jid);
      if (!info || !jobs.signal(jid, sig)) return notRunning(jid);
      return `Signal ${SIGNALS.get(sig) ?? sig} sent to job ${jid} at pid ${info.pid}`;
    },
  }),
  defineFunction({
    name: 'saltutil.refresh_grains',
    doc: "Collect this minion's grains again (and send them to the master), then get its pillar again (rendered with them); returns true.",
    params: [{ name: 'refresh_pillar', type: 'bool', default: true, doc: 'also get the pillar again, as the master renders it with the new grains (Salt default True)' }],
    inline: true,
    run: async (ctx, { named }) => {
      // refreshGrains is an optional context hook; older runners do not offer it
      const refresh = ctx.refreshGrains;
      if (typeof refresh !== 'function') {
        throw new BrineError('EXEC_FAILED', 'saltutil.refresh_grains: this minion cannot re-collect its grains here; restart the minion to refresh them');
      }
      await refresh.call(ctx, { refreshPillar: named.refresh_pillar === true });
      return true;
    },
  }),
];
