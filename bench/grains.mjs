#!/usr/bin/env node
// What collecting the minion's grains costs at start-up (issue 22, grains): collectMinionGrains
// in process, cold (empty cachedir: python3 and systemctl run) and warm (their answers read from
// <cachedir>/grain-probes.json), with and without the fqdns reverse lookups, next to a raw floor
// measured in the same run (reading /proc/cpuinfo, /proc/meminfo and os.networkInterfaces()).
// Pass --build-dir of an older build to compare before/after.

import { readFile } from 'node:fs/promises';
import os from 'node:os';
import * as path from 'node:path';
import { parseFlags, resolveBuild } from './lib/args.mjs';
import { tempDir } from './lib/cleanup.mjs';
import { median } from './lib/procfs.mjs';
import { printReport, progress, ratio, showRatio } from './lib/report.mjs';

const USAGE = `usage: npm run bench:grains -- [--rounds N] [--build-dir DIR]
  --rounds N     warm collections timed, median reported (default 15)
  --build-dir D  compiled tree to run (default dist)`;
const f = parseFlags(process.argv.slice(2), { rounds: 15, buildDir: 'dist' }, USAGE);

const logger = { info() {}, warn() {}, error() {} };

async function timeIt(fn) {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

async function main() {
  const build = resolveBuild(f.buildDir);
  const { collectMinionGrains } = await import(build.module('minion/minion-grains.js'));
  const tmp = tempDir('brine-bench-grains-');
  const config = (extra) => ({ id: 'bench', cachedir: path.join(tmp, 'cache'), ...extra });
  const collect = (extra = {}) => collectMinionGrains({ id: 'bench', config: config(extra), logger });
  const floorOnce = () => Promise.all([readFile('/proc/cpuinfo', 'utf8'), readFile('/proc/meminfo', 'utf8'), Promise.resolve(os.networkInterfaces())]);

  progress('cold collection (empty cachedir)');
  const cold = await timeIt(() => collect());
  const grainCount = Object.keys((await collect()).grains).length;
  const warm = [];
  const noFqdns = [];
  const floor = [];
  progress(`${f.rounds} warm rounds of each`);
  for (let i = 0; i < f.rounds; i++) {
    floor.push(await timeIt(floorOnce));
    warm.push(await timeIt(() => collect()));
    noFqdns.push(await timeIt(() => collect({ enable_fqdns_grains: false })));
  }
  const m = { cold_ms: cold, warm_ms: median(warm), warm_no_fqdns_ms: median(noFqdns), floor_ms: median(floor), grains: grainCount };
  printReport(
    `bench:grains (${build.root})`,
    [
      [
        'collectMinionGrains',
        [
          `grains reported: ${grainCount}`,
          `cold (probes run): ${cold.toFixed(1)} ms`,
          `warm median: ${m.warm_ms.toFixed(1)} ms`,
          `warm, enable_fqdns_grains: false: ${m.warm_no_fqdns_ms.toFixed(1)} ms`,
        ],
      ],
      ['floor', [`raw reads median: ${m.floor_ms.toFixed(2)} ms`, `warm/floor: ${showRatio(ratio(m.warm_ms, m.floor_ms))}`]],
    ],
    m,
  );
}

main().catch((err) => {
  process.stderr.write(`bench:grains failed: ${err.stack ?? err}\n`);
  process.exit(1);
});
