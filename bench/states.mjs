#!/usr/bin/env node
// State-run benchmark: a tree of 500 states (files from a template, directories, commands with
// `unless`) applied with `brine call --local state.apply`, first run then the no-change run, next
// to a raw floor (bench/lib/state-floor.mjs: the same work in a plain script) run alongside; then
// `brine run state.apply` of a --fleet-states tree through a real master: to ONE real minion (the
// reference), to M real minions, and to N emulated minions (the master-side load of N minions
// on the wire, next to a raw TLS floor of the same bytes): bench/lib/fleet-runs.mjs.

import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseFlags, resolveBuild } from './lib/args.mjs';
import { tempDir } from './lib/cleanup.mjs';
import { emulatedFleet, realFleet, record } from './lib/fleet-runs.mjs';
import { writeConfig } from './lib/brine-procs.mjs';
import { timed } from './lib/fleet-states.mjs';
import { median } from './lib/procfs.mjs';
import { printReport, progress, ratio, showRatio } from './lib/report.mjs';
import { writeTree } from './lib/state-tree.mjs';

const USAGE = `usage: npm run bench:states -- [--states N] [--rounds R] [--minions M] [--emulate N] [--fleet-states S] [--skip-local] [--build-dir DIR]
  --states N        states in the tree of the local runs (default 500)
  --rounds R        no-change local runs to take the median of (default 3)
  --minions M       real minions for the run through the master (default 20; 0 skips it)
  --emulate N       emulated minions for a second run through a master (default 0: skipped)
  --fleet-states S  states in the tree of the runs through a master (default 100)
  --skip-local      skip the brine call --local runs
  --profile DIR     write a V8 CPU profile of the emulated run's master into DIR
  --master-args A   extra node flags for the emulated run's master, space-separated (e.g.
                    '--trace-gc'); its log (stdout/stderr included) is then kept in $TMPDIR
  --nice N          run the real minions (one and M) at niceness N (default 0): the master and the
                    idle probe keep 0, modelling minions on other machines (see bench/README.md)
  --build-dir D     compiled tree to run (default dist)`;
const f = parseFlags(process.argv.slice(2), { states: 500, rounds: 3, minions: 20, emulate: 0, fleetStates: 100, skipLocal: false, profile: '', masterArgs: '', nice: 0, buildDir: 'dist' }, USAGE);
const FLOOR = fileURLToPath(new URL('./lib/state-floor.mjs', import.meta.url));

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

const ms = (x) => `${(x / 1000).toFixed(2)} s`;
const masterLine = (m) =>
  `master: ${m.cpuSeconds.toFixed(1)} CPU s, RSS peak ${(m.rssPeakKb / 1024).toFixed(0)} MiB median ${(m.rssMedianKb / 1024).toFixed(0)} MiB, longest event-loop stall ${m.maxStallMs === null ? 'n/a' : `${m.maxStallMs.toFixed(0)} ms`} (an idle node process meanwhile: ${m.probeStallMs.toFixed(0)} ms)`;
const failLine = (r) => `failed minions: ${r.failures}${r.failures ? ` (${r.failureSample.map((x) => `${x.id}: ${x.why}`).join('; ')})` : ''}`;

function runLines(label, r, solo) {
  return [
    `${label}: ${ms(r.ms)} to all ${r.minions} returns (${r.changed} changed states), ${showRatio(ratio(r.ms, solo.ms))} one minion's ${ms(solo.ms)}`,
    `  ${masterLine(r.master)}`,
    `  ${failLine(r)}`,
  ];
}

async function main() {
  const build = resolveBuild(f.buildDir);
  const tmp = tempDir('brine-bench-states-');
  const l = f.skipLocal ? undefined : await local(build, tmp);
  const fleetWanted = f.minions > 0 || f.emulate > 0;
  const solo = fleetWanted ? await realFleet(build, tmp, 'one', 1, f.fleetStates, f.nice) : undefined;
  const fl = f.minions > 0 ? await realFleet(build, tmp, 'bench', f.minions, f.fleetStates, f.nice) : undefined;
  let emu;
  if (f.emulate > 0) {
    const runs = await record(build, tmp, f.fleetStates);
    emu = await emulatedFleet(build, tmp, f.emulate, f.fleetStates, runs, f.profile, f.masterArgs.split(' ').filter(Boolean));
  }
  const sections = [];
  const json = { fleetStates: f.fleetStates, nice: f.nice };
  if (l) {
    const r1 = ratio(l.brineFirst.ms, l.floorFirst.ms);
    const r2 = ratio(l.brineAgain, l.floorAgain);
    Object.assign(json, { states: f.states, local: l, ratioFirst: r1, ratioAgain: r2 });
    sections.push([
      `brine call --local state.apply, ${f.states} states (wall time incl. process start)`,
      [
        `first run:      brine ${l.brineFirst.ms.toFixed(0)} ms (${l.brineFirst.changed} changed)   floor ${l.floorFirst.ms.toFixed(0)} ms   ratio ${showRatio(r1)}`,
        `no-change run:  brine ${l.brineAgain.toFixed(0)} ms   floor ${l.floorAgain.toFixed(0)} ms   ratio ${showRatio(r2)}  (median of ${f.rounds}; issue 27 target within 1.5x)`,
      ],
    ]);
  }
  if (solo) {
    json.one = solo;
    sections.push([
      `brine run state.apply (${f.fleetStates} states) through a master to ONE real minion (wall time of brine run)`,
      [...runLines('first run', solo.first, solo.first), ...runLines('no-change run', solo.again, solo.again)],
    ]);
  }
  if (fl) {
    // the physical floor of M real minions on this host: M times one minion's CPU for the run, over the cores
    const cores = os.availableParallelism();
    const cpuFloor = (one) => Math.max(one.ms, ((f.minions * one.minionCpuSeconds) / cores) * 1000);
    const floors = { first: cpuFloor(solo.first), again: cpuFloor(solo.again) };
    json.fleet = {
      ...fl,
      minions: f.minions,
      cores,
      ratioFirst: ratio(fl.first.ms, solo.first.ms),
      ratioAgain: ratio(fl.again.ms, solo.again.ms),
      cpuFloorMs: floors,
      cpuFloorRatioFirst: ratio(fl.first.ms, floors.first),
      cpuFloorRatioAgain: ratio(fl.again.ms, floors.again),
    };
    const floorLine = (r, fms, one) =>
      `  minions' CPU ${r.minionCpuSeconds.toFixed(1)} s (one minion: ${one.minionCpuSeconds.toFixed(1)} s); CPU floor ${f.minions} x ${one.minionCpuSeconds.toFixed(1)} s / ${cores} cores = ${ms(fms)}; brine ${showRatio(ratio(r.ms, fms))} that floor`;
    sections.push([
      `... to ${f.minions} real minions (target: within 3x one minion's time, no failures, no stall over 100 ms)`,
      [
        ...runLines('first run', fl.first, solo.first),
        floorLine(fl.first, floors.first, solo.first),
        ...runLines('no-change run', fl.again, solo.again),
        floorLine(fl.again, floors.again, solo.again),
      ],
    ]);
  }
  if (emu) {
    const { sizes, ...rest } = emu;
    json.emulated = {
      ...rest,
      minions: f.emulate,
      requests: [sizes[0]?.requests.length, sizes[1]?.requests.length],
      ratioFirst: ratio(emu.first.ms, solo.first.ms),
      ratioAgain: ratio(emu.again.ms, solo.again.ms),
      floorRatioFirst: ratio(emu.first.ms, emu.rawFirst.ms),
      floorRatioAgain: ratio(emu.again.ms, emu.rawAgain.ms),
    };
    const floorLine = (r, raw) => `  raw TLS floor (same bytes and round trips, ${f.emulate} clients): ${ms(raw.ms)}; brine ${showRatio(ratio(r.ms, raw.ms))} the floor`;
    sections.push([
      `... to ${f.emulate} emulated minions (each: ${sizes[0]?.requests.length} file requests on the first run, ${sizes[1]?.requests.length} on the no-change run, then a return of ${sizes[0]?.ret} B / ${sizes[1]?.ret} B)`,
      [
        ...runLines('first run', emu.first, solo.first),
        floorLine(emu.first, emu.rawFirst),
        ...runLines('no-change run', emu.again, solo.again),
        floorLine(emu.again, emu.rawAgain),
        `file server errors seen by the emulated minions: ${emu.fileErrors}${emu.errors.length ? ` (${emu.errors.join('; ')})` : ''}`,
      ],
    ]);
  }
  printReport('bench:states', sections, json);
}

main().catch((err) => {
  process.stderr.write(`bench:states failed: ${err instanceof Error ? err.stack : err}\n`);
  process.exitCode = 1;
});
