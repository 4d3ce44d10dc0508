#!/usr/bin/env node
// The CLI's fixed cost (issue 12): a real master whose key store holds --keys accepted minions
// (none connected), and `brine run -c DIR 'no-such-minion-*' test.ping` as a fresh process (CLI
// start-up plus the master matching the target against every accepted key), timed next to
// `node -e 0` run alternately in the same loop: the floor any CLI pays.

import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseFlags, resolveBuild } from './lib/args.mjs';
import { stopChild, tempDir } from './lib/cleanup.mjs';
import { BenchMaster, freePort } from './lib/brine-procs.mjs';
import { median } from './lib/procfs.mjs';
import { anchorLines, printReport, progress, ratio, showRatio } from './lib/report.mjs';

const USAGE = `usage: npm run bench:cli -- [--keys N] [--rounds N] [--build-dir DIR]
  --keys N       accepted keys in the master's pki/minions (default 10000)
  --rounds N     runs of each command, median reported (default 9)
  --build-dir D  compiled tree to run (default dist)`;
const f = parseFlags(process.argv.slice(2), { keys: 10_000, rounds: 9, buildDir: 'dist' }, USAGE);

/** Wall time of one fresh process in ms, with its exit code and output. */
function timed(args) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } });
  const ms = performance.now() - t0;
  if (r.error) throw r.error;
  return { ms, code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** N accepted keys written straight into the key store (pki/minions/<id>, SPKI PEM, as KeyStore.write). */
function writeAcceptedKeys(pkiDir, n) {
  const dir = path.join(pkiDir, 'minions');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (let i = 0; i < n; i++) {
    const pem = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' });
    fs.writeFileSync(path.join(dir, `web-${String(i).padStart(5, '0')}`), pem, { mode: 0o644 });
  }
}

async function main() {
  const build = resolveBuild(f.buildDir);
  const tmp = tempDir('brine-bench-cli-');
  const port = await freePort();
  const master = new BenchMaster(build, path.join(tmp, 'master'), port, {});
  try {
    progress(`writing ${f.keys} accepted keys`);
    writeAcceptedKeys(path.join(master.dir, 'pki'), f.keys);
    await master.start();
    const etc = master.configDir;
    const run = [build.cli, 'run', '-c', etc, 'no-such-minion-*', 'test.ping'];
    const keyList = [build.cli, 'key', '-c', etc, '-L'];
    // once each before timing: the page cache holds the code, the master has served one request
    const first = timed(run);
    const listed = timed(keyList);
    if (!listed.stdout.includes(`web-${String(f.keys - 1).padStart(5, '0')}`)) throw new Error(`brine key -L did not list the keys (exit ${listed.code}):\n${listed.stderr.slice(0, 500)}`);
    const floor = [];
    const runs = [];
    const lists = [];
    for (let i = 0; i < f.rounds; i++) {
      floor.push(timed(['-e', '0']).ms);
      const r = timed(run);
      if (r.code !== first.code || r.stderr !== first.stderr) throw new Error(`brine run answered differently in round ${i + 1}: exit ${r.code}, ${r.stderr.slice(0, 300)}`);
      runs.push(r.ms);
      lists.push(timed(keyList).ms);
    }
    progress(`${f.rounds} rounds done`);
    const floorMs = median(floor);
    const runMs = median(runs);
    const targetMs = 1.3 * floorMs + 100;
    const result = {
      keys: f.keys,
      rounds: f.rounds,
      nodeFloorMs: floorMs,
      runNoMatchMs: runMs,
      runExitCode: first.code,
      runStderr: first.stderr.trim(),
      keyListMs: median(lists),
      ratio: ratio(runMs, floorMs),
    };
    const anchors = [{ name: 'brine run fixed cost (no match)', target: '<= 1.3x node -e 0 + 100 ms', value: `${runMs.toFixed(0)} ms (limit ${targetMs.toFixed(0)} ms)`, pass: runMs <= targetMs }];
    printReport(
      `bench:cli (${f.keys} accepted keys, median of ${f.rounds} fresh processes, alternating)`,
      [
        [
          'wall time',
          [
            `node -e 0 (floor):                      ${floorMs.toFixed(0)} ms`,
            `brine run 'no-such-minion-*' test.ping: ${runMs.toFixed(0)} ms (${showRatio(result.ratio)} the floor; exit ${first.code}: ${result.runStderr.split('\n')[0]})`,
            `${`brine key -L (${f.keys} keys):`.padEnd(40)}${result.keyListMs.toFixed(0)} ms (${showRatio(ratio(result.keyListMs, floorMs))} the floor)`,
          ],
        ],
        ['anchors (issue 12)', anchorLines(anchors)],
      ],
      { bench: 'cli-cost', flags: f, ...result, anchors },
    );
  } finally {
    if (master.child) await stopChild(master.child, 'SIGTERM', 5000);
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`bench:cli failed: ${err.stack ?? err}\n`);
    process.exit(1);
  },
);
