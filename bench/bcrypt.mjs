#!/usr/bin/env node
// What checking one htpasswd bcrypt password costs the master (issue 24, libs): bcryptVerify's
// wall time per cost, and the longest the event loop went without running a 1 ms timer meanwhile
// (what every session on the master waits during a login). Pass --build-dir of an older build to
// compare before/after (the hand-written bcrypt yielded every 32 rounds; bcryptjs runs in a worker).

import { parseFlags, resolveBuild } from './lib/args.mjs';
import { median } from './lib/procfs.mjs';
import { printReport, progress } from './lib/report.mjs';

const USAGE = `usage: npm run bench:bcrypt -- [--rounds N] [--build-dir DIR]
  --rounds N     checks timed per cost, median reported (default 5)
  --build-dir D  compiled tree to run (default dist)`;
const f = parseFlags(process.argv.slice(2), { rounds: 5, buildDir: 'dist' }, USAGE);
const COSTS = [5, 8, 10, 12];
const SALT = 'CCCCCCCCCCCCCCCCCCCCC.';

/** Wall time of fn and the largest gap between ticks of a 1 ms interval while it ran. */
async function measure(fn) {
  let last = performance.now();
  let worstGap = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worstGap = Math.max(worstGap, now - last);
    last = now;
  }, 1);
  const t0 = performance.now();
  try {
    await fn();
  } finally {
    clearInterval(timer);
  }
  worstGap = Math.max(worstGap, performance.now() - last);
  return { ms: performance.now() - t0, gap: worstGap };
}

async function main() {
  const build = resolveBuild(f.buildDir);
  const { bcryptHash, bcryptVerify } = await import(build.module('auth/bcrypt.js'));
  const lines = [];
  const m = {};
  for (const cost of COSTS) {
    progress(`cost ${cost}: ${f.rounds} checks`);
    const hash = bcryptHash('s3cret', '2y', cost, SALT);
    const runs = [];
    for (let i = 0; i < f.rounds; i++) {
      runs.push(
        await measure(async () => {
          if ((await bcryptVerify('s3cret', hash)) !== true) throw new Error(`cost ${cost}: the right password did not verify`);
        }),
      );
    }
    m[`cost${cost}_ms`] = median(runs.map((r) => r.ms));
    m[`cost${cost}_worst_loop_gap_ms`] = Math.max(...runs.map((r) => r.gap));
    lines.push(`cost ${cost}: median ${m[`cost${cost}_ms`].toFixed(1)} ms, longest event-loop stall ${m[`cost${cost}_worst_loop_gap_ms`].toFixed(1)} ms`);
  }
  printReport(`bench:bcrypt (${build.root})`, [['bcryptVerify', lines]], m);
}

main().catch((err) => {
  process.stderr.write(`bench:bcrypt failed: ${err.stack ?? err}\n`);
  process.exit(1);
});
