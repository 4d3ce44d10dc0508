#!/usr/bin/env node
// State-run benchmark: a tree of 500 states (files from a template, directories, commands with
// `unless`) applied with `brine call --local state.apply`, first run then the no-change run, next
// to a raw floor (bench/lib/state-floor.mjs: the same work in a plain script) run alongside; then
// `brine run '*' state.apply` through a real master to real minions (file server included).

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseFlags, resolveBuild } from './lib/args.mjs';
import { stopChild, tempDir, track } from './lib/cleanup.mjs';
import { BenchMaster, freePort, tail, waitFor } from './lib/brine-procs.mjs';
import { median } from './lib/procfs.mjs';
import { printReport, progress, ratio, showRatio } from './lib/report.mjs';
import { writeTree } from './lib/state-tree.mjs';

const USAGE = `usage: npm run bench:states -- [--states N] [--rounds R] [--minions M] [--build-dir DIR]
  --states N     states in the tree (default 500)
  --rounds R     no-change runs to take the median of (default 3)
  --minions M    real minions for the run through the master (default 20; 0 skips it)
  --build-dir D  compiled tree to run (default dist)`;
const f = parseFlags(process.argv.slice(2), { states: 500, rounds: 3, minions: 20, buildDir: 'dist' }, USAGE);
const FLOOR = fileURLToPath(new URL('./lib/state-floor.mjs', import.meta.url));

function writeConfig(file, settings) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(
    file,
    `${Object.entries(settings)
      .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
      .join('\n')}\n`,
  );
}

/** Runs a command to its end; resolves with wall ms, stdout and the exit code. */
function timed(argv, env = {}) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = track(spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', ...env } }));
    const out = [];
    const err = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => err.push(d));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }));
  });
}

/** Counts a state.apply return: states, failures, changed. */
function tally(ret) {
  if (typeof ret !== 'object' || ret === null || Array.isArray(ret)) throw new Error(`not a state return: ${JSON.stringify(ret).slice(0, 400)}`);
  const states = Object.values(ret);
  const failed = states.filter((s) => s.result === false);
  if (failed.length > 0) throw new Error(`${failed.length} states failed, e.g. ${JSON.stringify(failed[0]).slice(0, 400)}`);
  return { states: states.length, changed: states.filter((s) => Object.keys(s.changes ?? {}).length > 0).length };
}

async function brineCall(build, configDir) {
  const r = await timed([process.execPath, build.cli, 'call', '--local', '-c', configDir, '--out', 'json', 'state.apply']);
  if (r.code !== 0) throw new Error(`brine call exited ${r.code}: ${r.stderr}\n${r.stdout.slice(0, 2000)}`);
  return { ms: r.ms, ...tally(JSON.parse(r.stdout).local) };
}

async function floor(dest, id) {
  const r = await timed([process.execPath, FLOOR, dest, String(f.states), id]);
  if (r.code !== 0) throw new Error(`the floor script exited ${r.code}: ${r.stderr}`);
  return { ms: r.ms, ...JSON.parse(r.stdout) };
}

async function local(build, tmp) {
  const dir = path.join(tmp, 'local');
  // file_roots, like every brine path option, lie under root_dir
  const roots = path.join(dir, 'srv');
  const brineDest = path.join(tmp, 'out-brine');
  const floorDest = path.join(tmp, 'out-floor');
  writeTree(roots, `'${brineDest}'`, f.states);
  writeConfig(path.join(dir, 'etc', 'minion'), { root_dir: dir, id: 'bench-local', file_client: 'local', file_roots: { base: [roots] }, log_level: 'warning' });
  progress(`${f.states} states: first run`);
  const floorFirst = await floor(floorDest, 'bench-local');
  const brineFirst = await brineCall(build, path.join(dir, 'etc'));
  if (brineFirst.states !== f.states) throw new Error(`brine ran ${brineFirst.states} states, expected ${f.states}`);
  const floorAgain = [];
  const brineAgain = [];
  for (let i = 0; i < f.rounds; i++) {
    progress(`no-change run ${i + 1}/${f.rounds}`);
    floorAgain.push(await floor(floorDest, 'bench-local'));
    const b = await brineCall(build, path.join(dir, 'etc'));
    if (b.changed !== 0) throw new Error(`the no-change run reported ${b.changed} changed states`);
    brineAgain.push(b);
  }
  return { floorFirst, brineFirst, floorAgain: median(floorAgain.map((x) => x.ms)), brineAgain: median(brineAgain.map((x) => x.ms)) };
}

async function fleet(build, tmp) {
  const roots = path.join(tmp, 'master', 'srv');
  const dest = path.join(tmp, 'fleet-out');
  writeTree(roots, `'${dest}/' ~ grains['id']`, f.states);
  const port = await freePort();
  const master = new BenchMaster(build, path.join(tmp, 'master'), port, { file_roots: { base: [roots] } });
  const minions = [];
  try {
    await master.start();
    for (let i = 0; i < f.minions; i++) {
      const dir = path.join(tmp, `minion-${i}`);
      writeConfig(path.join(dir, 'etc', 'minion'), { root_dir: dir, master: '127.0.0.1', master_port: port, id: `bench-${i}`, log_level: 'warning' });
      const log = fs.openSync(path.join(dir, 'minion.log'), 'a');
      minions.push(track(spawn(process.execPath, [build.cli, 'minion', '-c', path.join(dir, 'etc')], { stdio: ['ignore', log, log] })));
      fs.closeSync(log);
    }
    const { requestOnce } = await import(build.module('cli/control-client.js'));
    await waitFor(
      async () => {
        const reply = await requestOnce(master.sockPath, { t: 'sessions' }, 'sessions');
        return reply.sessions.filter((s) => s.state === 'connected').length === f.minions;
      },
      60_000,
      `${f.minions} minions to connect`,
    );
    const run = async (label) => {
      progress(`${f.minions} minions through the master: ${label}`);
      const r = await timed([process.execPath, build.cli, 'run', '-c', master.configDir, '-t', '600', '--out', 'json', '--static', 'bench-*', 'state.apply']);
      if (r.code !== 0) throw new Error(`brine run exited ${r.code}: ${r.stderr}\n${r.stdout.slice(0, 2000)}\n${tail(master.logFile)}`);
      const all = JSON.parse(r.stdout);
      const counts = Object.values(all).map(tally);
      if (counts.length !== f.minions) throw new Error(`${counts.length} of ${f.minions} minions returned`);
      return { ms: r.ms, changed: counts.reduce((a, c) => a + c.changed, 0) };
    };
    return { first: await run('first run'), again: await run('no-change run') };
  } finally {
    await Promise.all(minions.map((m) => stopChild(m)));
    if (master.child) await stopChild(master.child);
  }
}

async function main() {
  const build = resolveBuild(f.buildDir);
  const tmp = tempDir('brine-bench-states-');
  const l = await local(build, tmp);
  const fl = f.minions > 0 ? await fleet(build, tmp) : undefined;
  const r1 = ratio(l.brineFirst.ms, l.floorFirst.ms);
  const r2 = ratio(l.brineAgain, l.floorAgain);
  const sections = [
    [
      `brine call --local state.apply, ${f.states} states (wall time incl. process start)`,
      [
        `first run:      brine ${l.brineFirst.ms.toFixed(0)} ms (${l.brineFirst.changed} changed)   floor ${l.floorFirst.ms.toFixed(0)} ms   ratio ${showRatio(r1)}`,
        `no-change run:  brine ${l.brineAgain.toFixed(0)} ms   floor ${l.floorAgain.toFixed(0)} ms   ratio ${showRatio(r2)}  (median of ${f.rounds}; target within 2x)`,
      ],
    ],
  ];
  if (fl)
    sections.push([
      `brine run state.apply through the master to ${f.minions} real minions`,
      [`first run:      ${fl.first.ms.toFixed(0)} ms (${fl.first.changed} changed states)`, `no-change run:  ${fl.again.ms.toFixed(0)} ms (${fl.again.changed} changed)`],
    ]);
  printReport('bench:states', sections, { states: f.states, local: l, ratioFirst: r1, ratioAgain: r2, fleet: fl });
}

main().catch((err) => {
  process.stderr.write(`bench:states failed: ${err instanceof Error ? err.stack : err}\n`);
  process.exitCode = 1;
});
