#!/usr/bin/env node
// Pillar benchmark: the realistic tree of bench/lib/pillar-tree.mjs (map.jinja + grains.filter_by,
// 50 keys per minion). (1) In one process: brine's pillar compiler against a raw floor (plain
// nunjucks + yaml rendering the same files and merging them) for every emulated minion's grains.
// (2) A real master with N emulated minions (`brine emulate --pillar`): each asks for its pillar
// at sign-in; then a pillar file changes and `brine run 'emu-*' saltutil.refresh_pillar`
// re-renders all N: wall time and master CPU per render; then the same refresh with nothing
// changed (every answer from the cache).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import nunjucks from 'nunjucks';
import YAML from 'yaml';
import { parseFlags, resolveBuild } from './lib/args.mjs';
import { stopChild, tempDir, track } from './lib/cleanup.mjs';
import { BenchMaster, freePort, startEmulator, tail } from './lib/brine-procs.mjs';
import { ensureFdLimit } from './lib/fd-limit.mjs';
import { cpuSeconds, msSince } from './lib/procfs.mjs';
import { printReport, progress, ratio, secs, showRatio } from './lib/report.mjs';
import { grainsOf, KEYS_PER_MINION, SLS_FILES, writePillarTree } from './lib/pillar-tree.mjs';

const USAGE = `usage: npm run bench:pillar -- [--counts 1000,5000] [--inproc N] [--build-dir DIR]
  --counts LIST  emulated minion counts for the master runs (default 1000,5000; 0 skips them)
  --inproc N     minions rendered in process, brine compiler vs raw floor (default 2000)
  --build-dir D  compiled tree to run (default dist)`;
const f = parseFlags(process.argv.slice(2), { counts: '1000,5000', inproc: 2000, buildDir: 'dist' }, USAGE);
const counts = String(f.counts)
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
if (counts.length > 0) ensureFdLimit(Math.max(...counts) + 1024);

/** The raw floor: nunjucks + yaml over the same files, merged with a shallow-per-SLS assign. */
function rawRenderer(root) {
  const env = new nunjucks.Environment(new nunjucks.FileSystemLoader(root, { noCache: false }), { autoescape: false });
  const filterBy = (grains) => (lookup, opts) => lookup[grains[opts?.grain ?? 'os_family']] ?? lookup.default;
  return (grains) => {
    const ctx = { grains, pillar: {}, salt: { 'grains.filter_by': (lookup, kw) => filterBy(grains)(lookup, kw) } };
    const top = YAML.parse(env.render('top.sls', ctx));
    const pillar = {};
    for (const sls of top.base['*']) Object.assign(pillar, YAML.parse(env.render(`${sls.replace(/\./g, '/')}.sls`, { ...ctx, pillar })));
    return pillar;
  };
}

async function inProcess(build, root) {
  const { compilePillar, PillarRoots } = await import(build.module('pillar/index.js'));
  const source = new PillarRoots({ root_dir: '/', pillar_roots: { base: [root] } });
  const raw = rawRenderer(root);
  const n = f.inproc;
  // as the master renders: the minion's grains are guarded (GRAIN_UNSAFE, threats.md #45)
  const compileOpts = { strategy: 'smart', mergeLists: false, untrustedGrains: true };
  // warm both (template compilation is cached by each)
  const first = await compilePillar(source, { id: 'emu-0', grains: grainsOf('emu-', 0) }, compileOpts);
  if (first.errors.length > 0) throw new Error(`the bench tree does not render: ${first.errors.join('\n')}`);
  if (Object.keys(first.pillar).length !== KEYS_PER_MINION) throw new Error(`expected ${KEYS_PER_MINION} keys, got ${Object.keys(first.pillar).length}`);
  const rawFirst = raw(grainsOf('emu-', 0));
  if (Object.keys(rawFirst).length !== KEYS_PER_MINION) throw new Error(`the raw floor rendered ${Object.keys(rawFirst).length} keys`);
  if (JSON.stringify(rawFirst.web_pkg) !== JSON.stringify(first.pillar.web_pkg)) throw new Error('the raw floor and brine disagree on the map.jinja lookup');
  progress(`in process: raw floor, ${n} renders`);
  let t0 = process.hrtime.bigint();
  let c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) raw(grainsOf('emu-', i));
  const rawMs = msSince(t0);
  const rawCpu = process.cpuUsage(c0);
  progress(`in process: brine compilePillar, ${n} renders`);
  t0 = process.hrtime.bigint();
  c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await compilePillar(source, { id: `emu-${i}`, grains: grainsOf('emu-', i) }, compileOpts);
  const brineMs = msSince(t0);
  const brineCpu = process.cpuUsage(c0);
  const perUs = (cpu) => (cpu.user + cpu.system) / n;
  return { n, rawUsPerRender: perUs(rawCpu), brineUsPerRender: perUs(brineCpu), rawMs, brineMs };
}

function runCli(build, args) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = track(spawn(process.execPath, [build.cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } }));
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ ms: msSince(t0), code, stdout: out, stderr: err }));
  });
}

async function fleet(build, tmp, n) {
  const dir = path.join(tmp, `master-${n}`);
  const pillarRoot = path.join(dir, 'srv', 'pillar');
  writePillarTree(pillarRoot);
  const port = await freePort();
  const master = new BenchMaster(build, dir, port, {
    auth_rate: 1000,
    auth_rate_per_source: 1000,
    preauth_max_connections_per_source: 0,
    preauth_max_connections: 0,
    pillar_roots: { base: [pillarRoot] },
  });
  let emu;
  try {
    await master.start();
    progress(`N=${n}: ${n} emulated minions sign in and fetch their pillar`);
    const cpu0 = cpuSeconds(master.pid);
    const t0 = process.hrtime.bigint();
    emu = startEmulator(build, {
      port,
      count: n,
      prefix: 'emu-',
      pkiDir: path.join(tmp, 'emulator-pki'),
      ramp: 500,
      heartbeatInterval: 10,
      heartbeatTimeout: 30,
      reconDefault: 1000,
      reconMax: 10000,
      authTimeout: 10,
      logFile: path.join(tmp, `emulator-${n}.log`),
      extraArgs: ['--pillar'],
    });
    await emu.waitUntil((s) => s.pillars >= n, 120_000 + n * 60, `${n} pillars at sign-in`);
    const signIn = { ms: msSince(t0), cpuS: cpuSeconds(master.pid) - cpu0, errors: emu.stats.pillarErrors };
    const refresh = async (label) => {
      progress(`N=${n}: brine run 'emu-*' saltutil.refresh_pillar (${label})`);
      const before = emu.stats.pillars;
      const c = cpuSeconds(master.pid);
      const r = await runCli(build, ['run', '-c', master.configDir, '--static', '--out', 'json', '-t', '600', 'emu-*', 'saltutil.refresh_pillar']);
      if (r.code !== 0) throw new Error(`refresh_pillar exited ${r.code}: ${r.stderr}\n${tail(master.logFile)}`);
      const returned = Object.values(JSON.parse(r.stdout)).filter((v) => v === true).length;
      if (returned !== n || emu.stats.pillars - before < n) throw new Error(`${returned} of ${n} refreshed`);
      return { ms: r.ms, cpuS: cpuSeconds(master.pid) - c };
    };
    // a pillar file changes: every minion's cached render is stale
    fs.appendFileSync(path.join(pillarRoot, 'common.sls'), 'bench_touch: 1\n');
    const changed = await refresh('a pillar file changed: N renders');
    const cached = await refresh('nothing changed: N cache hits');
    return { n, signIn, changed, cached };
  } finally {
    if (emu) await stopChild(emu.child);
    if (master.child) await stopChild(master.child);
  }
}

async function main() {
  const build = resolveBuild(f.buildDir);
  const tmp = tempDir('brine-bench-pillar-');
  const root = path.join(tmp, 'tree');
  writePillarTree(root);
  const ip = await inProcess(build, root);
  const runs = [];
  for (const n of counts) runs.push(await fleet(build, tmp, n));
  const inRatio = ratio(ip.brineUsPerRender, ip.rawUsPerRender);
  const sections = [
    [
      `in process, ${ip.n} minions (${SLS_FILES.length} SLS + map.jinja, ${KEYS_PER_MINION} keys each; CPU per render)`,
      [`raw floor (nunjucks + yaml):  ${ip.rawUsPerRender.toFixed(0)} µs`, `brine compilePillar:          ${ip.brineUsPerRender.toFixed(0)} µs   ratio ${showRatio(inRatio)}`],
    ],
  ];
  for (const r of runs) {
    const perRender = (r.changed.cpuS * 1e6) / r.n;
    sections.push([
      `real master, ${r.n} emulated minions`,
      [
        `sign-in + first pillar for all: ${secs(r.signIn.ms)} (master CPU ${r.signIn.cpuS.toFixed(1)} s incl. TLS and sign-in; ${r.signIn.errors} errors)`,
        `refresh all after a file change: ${secs(r.changed.ms)} wall (brine run, incl. CLI start), master CPU ${r.changed.cpuS.toFixed(2)} s = ${perRender.toFixed(0)} µs per minion (job + render + reply); ratio to the raw render ${showRatio(ratio(perRender, ip.rawUsPerRender))}`,
        `refresh all, nothing changed:     ${secs(r.cached.ms)} wall, master CPU ${r.cached.cpuS.toFixed(2)} s = ${((r.cached.cpuS * 1e6) / r.n).toFixed(0)} µs per minion (cache hits)`,
      ],
    ]);
  }
  printReport('bench:pillar', sections, { inProcess: ip, inProcessRatio: inRatio, fleet: runs });
}

main().catch((err) => {
  process.stderr.write(`bench:pillar failed: ${err instanceof Error ? err.stack : err}\n`);
  process.exitCode = 1;
});
