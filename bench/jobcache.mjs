#!/usr/bin/env node
// Job cache at scale (issue 12): a real SQLite job cache holding --returns stored returns, then
// `brine jobs list` and `brine jobs show` as fresh processes (wall time, against `node -e 0`
// started the same way: the floor any CLI pays), and keep_jobs_seconds purging half of it while
// a timer measures the longest event-loop stall (what a master's minions would feel).

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { parseFlags, REPO_ROOT, resolveBuild } from './lib/args.mjs';
import { tempDir } from './lib/cleanup.mjs';
import { printReport, progress, ratio, showRatio } from './lib/report.mjs';

const USAGE = `usage: npm run bench:jobcache -- [--returns N] [--per-job N] [--rounds N] [--build-dir DIR]
  --returns N    stored returns (default 1000000)
  --per-job N    returns per job (default 500; so 2,000 jobs at the default)
  --rounds N     runs of each CLI command, median reported (default 5)
  --build-dir D  compiled tree to run (default dist)
  --keep DIR     build the cache in DIR and leave it there, with a copy from before the purge
                 (jobs.sqlite.before-purge), for profiling by hand`;
const f = parseFlags(process.argv.slice(2), { returns: 1_000_000, perJob: 500, rounds: 5, buildDir: 'dist', keep: '' }, USAGE);

const DAY_MS = 86_400_000;

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Wall time of one fresh process, in ms; fails loudly if it fails. */
function timed(args) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } });
  const ms = performance.now() - t0;
  if (r.status !== 0 && r.status !== 1) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { ms, stdout: r.stdout };
}

/** Jobs and returns written straight through SQLite in one transaction (filling is not measured). */
function fill(file, jobs, perJob, now) {
  const require = createRequire(path.join(REPO_ROOT, 'package.json'));
  const Database = require('better-sqlite3');
  const db = new Database(file);
  const insJob = db.prepare('INSERT INTO jobs (jid, fun, arg, kwarg, tgt, tgt_type, user, minions, started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const insSent = db.prepare('INSERT INTO job_sent (jid, minions) VALUES (?, ?)');
  const insRet = db.prepare('INSERT INTO returns (jid, minion, fun, ret, retcode, success, error, received_at) VALUES (?, ?, ?, ?, ?, ?, NULL, ?)');
  const minions = Array.from({ length: perJob }, (_, i) => `web-${String(i).padStart(5, '0')}`);
  const minionsJson = JSON.stringify(minions);
  const jids = [];
  db.transaction(() => {
    for (let j = 0; j < jobs; j++) {
      // the first half two days old (purged by a 1-day keep_jobs_seconds), the rest within the last hour
      const startedAt = j < jobs / 2 ? now - 2 * DAY_MS + j * 1000 : now - 3_600_000 + j * 100;
      const jid = new Date(startedAt)
        .toISOString()
        .replace(/\D/g, '')
        .slice(0, 17)
        .padEnd(20, String(j % 10));
      const unique = `${jid.slice(0, 14)}${String(j).padStart(6, '0')}`;
      jids.push(unique);
      insJob.run(unique, 'cmd.run', '["uptime"]', '{}', '"web-*"', 'glob', 'root', minionsJson, startedAt);
      insSent.run(unique, minionsJson);
      for (const m of minions) insRet.run(unique, m, 'cmd.run', JSON.stringify(` 12:00:00 up 42 days,  3:14,  1 user,  load average: 0.${j % 10}0, 0.05, 0.01 (${m})`), 0, 1, startedAt + 50);
    }
  })();
  db.close();
  return jids;
}

async function main() {
  const build = resolveBuild(f.buildDir);
  const { JobCache } = await import(build.module('jobs/index.js'));
  const tmp = f.keep ? path.resolve(f.keep) : tempDir('brine-bench-jobcache-');
  if (f.keep) fs.rmSync(tmp, { recursive: true, force: true });
  const etc = path.join(tmp, 'etc');
  fs.mkdirSync(etc, { recursive: true });
  fs.writeFileSync(path.join(etc, 'master'), `root_dir: ${JSON.stringify(tmp)}\ncachedir: /cache\n`);
  const file = path.join(tmp, 'cache', 'jobs.sqlite');
  JobCache.open(file).close();

  const jobs = Math.max(2, Math.round(f.returns / f.perJob));
  progress(`filling ${jobs} jobs x ${f.perJob} returns = ${jobs * f.perJob} returns`);
  const now = Date.now();
  const t0 = performance.now();
  const jids = fill(file, jobs, f.perJob, now);
  progress(`filled in ${((performance.now() - t0) / 1000).toFixed(1)} s (${(fs.statSync(file).size / 2 ** 20).toFixed(0)} MiB)`);
  // opening once as the master does (indexes created by a newer brine are built here, not timed)
  JobCache.open(file).close();

  const floor = [];
  const list = [];
  const show = [];
  const recent = jids.at(-1);
  for (let i = 0; i < f.rounds; i++) {
    floor.push(timed(['-e', '0']).ms);
    list.push(timed([build.cli, 'jobs', 'list', '-c', etc]).ms);
    const s = timed([build.cli, 'jobs', 'show', recent, '-c', etc, '--out', 'json']);
    show.push(s.ms);
    if (i === 0 && !s.stdout.includes('web-00000')) throw new Error(`jobs show printed no returns:\n${s.stdout.slice(0, 500)}`);
  }
  progress(`CLI runs done (${f.rounds} rounds)`);

  // purge half while a 5 ms timer runs alongside, as the master's timers and sockets would: the
  // longest gap between its ticks is the longest the event loop was blocked
  if (f.keep) fs.copyFileSync(file, `${file}.before-purge`);
  const cache = JobCache.open(file, { keepJobsSeconds: 86_400 });
  const gaps = [];
  let last = performance.now();
  const ticker = setInterval(() => {
    const t = performance.now();
    gaps.push(t - last);
    last = t;
  }, 5);
  await new Promise((resolve) => setTimeout(resolve, 50));
  const p0 = performance.now();
  const purged = await (cache.purgeExpiredInBatches ? cache.purgeExpiredInBatches() : cache.purgeExpired());
  const purgeMs = performance.now() - p0;
  await new Promise((resolve) => setTimeout(resolve, 50));
  clearInterval(ticker);
  const h = { max: Math.max(...gaps), p99: [...gaps].sort((a, b) => a - b)[Math.floor(gaps.length * 0.99)] };
  const left = cache.listJobs({ limit: 1_000_000 }).length;
  cache.close();
  if (left !== jobs - jobs / 2) throw new Error(`after the purge ${left} jobs are left, expected ${jobs - jobs / 2}`);

  const r = {
    returns: jobs * f.perJob,
    jobs,
    perJob: f.perJob,
    nodeFloorMs: median(floor),
    jobsListMs: median(list),
    jobsShowMs: median(show),
    purge: { rowsDeleted: purged, ms: purgeMs, maxStallMs: h.max, p99StallMs: h.p99, batched: typeof cache.purgeExpiredInBatches === 'function' },
  };
  printReport(
    'bench:jobcache',
    [
      [
        `job cache with ${r.returns} returns (${jobs} jobs of ${f.perJob}), median of ${f.rounds} fresh processes`,
        [
          `node -e 0 (floor):        ${r.nodeFloorMs.toFixed(0)} ms`,
          `brine jobs list:          ${r.jobsListMs.toFixed(0)} ms  (${showRatio(ratio(r.jobsListMs, r.nodeFloorMs))} the floor; target < 1000 ms)`,
          `brine jobs show (${f.perJob}):   ${r.jobsShowMs.toFixed(0)} ms  (${showRatio(ratio(r.jobsShowMs, r.nodeFloorMs))} the floor; target < 1000 ms)`,
        ],
      ],
      [
        `purge of ${jobs / 2} expired jobs and their returns (${purged} rows${r.purge.batched ? ', in batches' : ', one transaction'})`,
        [`took ${(purgeMs / 1000).toFixed(2)} s; longest event-loop stall ${r.purge.maxStallMs.toFixed(0)} ms (p99 ${r.purge.p99StallMs.toFixed(0)} ms)`],
      ],
    ],
    r,
  );
}

main().catch((err) => {
  process.stderr.write(`bench:jobcache failed: ${err.stack ?? err}\n`);
  process.exit(1);
});
