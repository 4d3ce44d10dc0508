// `brine jobs list|show JID|active`: the master's job cache (Salt's jobs.list_jobs /
// jobs.lookup_jid), read straight from the SQLite file, so returns that arrived after the CLI
// stopped waiting show; `active` asks the minions (jobs-active.ts).

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Command } from 'commander';
import { JobCache, assertJid } from '../../jobs/index.js';
import { BrineError } from '../../util/errors.js';
import { printable } from '../../util/printable.js';
import { fail, masterOptions, type ConfigFlags, exitWith } from '../common.js';
import { defaultOutputterFor, formatReturn, formatStatic, outputterNames, type Outputter } from '../output/index.js';
import { jobSummary } from '../../api/salt-shapes.js';
import { outIndent } from '../out-indent.js';
import { highstateOptions } from '../state-output-flags.js';
import { activeJobs, type ActiveFlags } from './jobs-active.js';

interface JobsFlags extends ConfigFlags {
  out?: string;
  outIndent?: string;
  limit?: string;
  color?: boolean;
}

function openCache(flags: JobsFlags): JobCache {
  const opts = masterOptions(flags);
  const file = path.join(opts.cachedir, 'jobs.sqlite');
  if (!fs.existsSync(file)) throw new BrineError('MASTER_UNREACHABLE', `no job cache at ${file}: has the master run with this configuration?`);
  return JobCache.open(file, { keepJobsSeconds: 0 });
}

/** --out, else what `brine run` printed the job with (highstate for state runs, as Salt's lookup_jid). */
function outputter(flags: JobsFlags, fun?: string): Outputter {
  const out = (fun === undefined ? (flags.out ?? 'nested') : defaultOutputterFor(fun, flags.out)) as Outputter;
  if (!outputterNames().includes(out)) throw new BrineError('USAGE', `unknown --out '${flags.out}': use one of ${outputterNames().join(', ')}`);
  return out;
}

function show(jid: string, flags: JobsFlags): number {
  assertJid(jid);
  outputter(flags);
  const cache = openCache(flags);
  try {
    const job = cache.getJob(jid);
    if (!job) throw new BrineError('KEY_NOT_FOUND', `no job ${jid} in the job cache (it may have expired: keep_jobs_seconds)`);
    const out = outputter(flags, job.fun);
    const color = flags.color !== false && process.stdout.isTTY === true && !process.env.NO_COLOR;
    const state = highstateOptions(masterOptions(flags), {});
    const returns = cache.getReturns(jid);
    for (const r of returns) process.stdout.write(`${formatReturn(out, r.minion, r.return, { color, state, retcodes: { [r.minion]: r.retcode } })}\n`);
    const missing = job.minions.filter((m) => !returns.some((r) => r.minion === m));
    for (const m of missing) process.stdout.write(`${formatReturn(out, m, 'Minion did not return. [No response]', { color, state, retcodes: { [m]: 1 } })}\n`);
    return returns.length === 0 ? 2 : missing.length > 0 || returns.some((r) => r.retcode !== 0) ? 1 : 0;
  } finally {
    cache.close();
  }
}

function list(flags: JobsFlags): number {
  const limit = flags.limit === undefined ? 50 : Number(flags.limit);
  // --out: Salt's jobs.list_jobs document, {jid: {Function, Arguments, Target, Target-type, User, StartTime}}
  const document = flags.out === undefined || flags.out === 'text' ? undefined : outputter(flags);
  const cache = openCache(flags);
  try {
    const jobs = cache.listJobs({ limit });
    if (document !== undefined) {
      const byJid = new Map(jobs.map((j) => [j.jid, jobSummary(j)] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
      process.stdout.write(formatStatic(document, byJid, flags.outIndent === undefined ? { color: false } : { color: false, indent: outIndent(flags.outIndent) }));
      return 0;
    }
    for (const j of jobs) {
      const returned = cache.countReturns(j.jid);
      const tgt = Array.isArray(j.tgt) ? j.tgt.join(',') : j.tgt;
      // a run the minion's own scheduler started names its schedule job (Salt's `schedule` key)
      const scheduled = j.schedule === undefined ? '' : printable(`  schedule ${j.schedule}`);
      process.stdout.write(`${printable(`${j.jid}  ${new Date(j.startedAt).toISOString()}  ${j.fun}  ${j.tgtType}:${tgt}`)}  returned ${returned}/${j.minions.length}${scheduled}\n`);
    }
    return 0;
  } finally {
    cache.close();
  }
}

export function registerJobs(program: Command): void {
  const jobs = program.command('jobs').description("the master's job cache (Salt's jobs runner)");
  jobs
    .command('list')
    .description('recent jobs, newest first: jid, start time, function, target, returns')
    .option('-c, --config-dir <dir>', 'configuration directory (default /etc/brine, or BRINE_CONFIG_DIR)')
    .option('--limit <n>', 'how many jobs (default 50)')
    .option('--out <outputter>', "text (default: one line per job), or json, yaml, nested, raw: Salt's jobs.list_jobs layout")
    .option('--out-indent <n>', 'indentation for json/yaml output')
    .action((flags: JobsFlags) => {
      try {
        process.exitCode = list(flags);
      } catch (err) {
        fail(err);
      }
    });
  jobs
    .command('active')
    .description("jobs still running on some minion, asked with saltutil.running (Salt's jobs.active)")
    .option('-c, --config-dir <dir>', 'configuration directory (default /etc/brine, or BRINE_CONFIG_DIR)')
    .option('-t, --timeout <seconds>', "seconds to wait for the minions' answers (default: the master's timeout)")
    .option('--out <outputter>', 'nested (default), json, yaml, txt, raw or newline_values_only')
    .option('--no-color', 'never colour the output')
    .action(exitWith((flags: ActiveFlags) => activeJobs(flags)));
  jobs
    .command('show')
    .description('the returns of one job, including those that arrived after the CLI stopped waiting')
    .argument('<jid>', 'the job id (20 digits)')
    .option('-c, --config-dir <dir>', 'configuration directory (default /etc/brine, or BRINE_CONFIG_DIR)')
    .option('--out <outputter>', 'nested (default; highstate for state runs), json, yaml, txt, raw or highstate')
    .option('--no-color', 'never colour the output')
    .action((jid: string, flags: JobsFlags & { color?: boolean }) => {
      try {
        process.exitCode = show(jid, flags);
      } catch (err) {
        fail(err);
      }
    });
}
