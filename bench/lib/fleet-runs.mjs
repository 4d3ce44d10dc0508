// bench:states' three runs through a master, each on its own master and temp dir:
// - solo: ONE real minion (the reference: "one minion's time"), first run then no-change run;
// - recorder: one more real minion on a master logging at trace, whose file server requests
//   (from the master's log) and returns are what the emulated minions replay;
// - fleet: M real minions; emulated: N emulated minions (bench/lib/state-emulator.mjs) with the
//   raw TLS floor of the same bytes and round trips (bench/lib/raw-state-floor.mjs).

import { fork } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { nextMessage, stopChild, track } from './cleanup.mjs';
import { tail, waitFor } from './brine-procs.mjs';
import { applyRun, keepLog, startMaster, startMinions } from './fleet-states.mjs';
import { rawStateRound } from './raw-state-floor.mjs';
import { progress } from './report.mjs';
import { writeTree } from './state-tree.mjs';

const EMULATOR = fileURLToPath(new URL('./state-emulator.mjs', import.meta.url));
export const RECORDER_ID = 'rec-0';

/** A master with a fresh state tree (`states` states, written under `<tmp>/<name>-out/<id>`). */
async function masterWithTree(build, tmp, name, states, settings, nodeArgs) {
  const roots = path.join(tmp, name, 'srv');
  writeTree(roots, `'${path.join(tmp, `${name}-out`)}/' ~ grains['id']`, states);
  return startMaster(build, path.join(tmp, name), roots, settings, nodeArgs);
}

async function stopAll(master, children) {
  await Promise.all(children.map((c) => stopChild(c)));
  if (master?.child) await stopChild(master.child);
}

/** Strips the raw returns (kept only by the recorder) from a run's figures. */
const figures = ({ returns: _r, ...rest }) => rest;

/** M real minions named <prefix><i>: first run and no-change run; `nice` > 0 runs them at that niceness. */
export async function realFleet(build, tmp, name, count, states, nice = 0) {
  const ids = Array.from({ length: count }, (_, i) => `${name}-${i}`);
  let master;
  let children = [];
  try {
    master = await masterWithTree(build, tmp, name, states);
    children = await startMinions(build, tmp, master, ids, 10, nice);
    const pids = children.map((c) => c.pid);
    const first = await applyRun(build, master, `${name}-*`, ids, states, 'first run', pids);
    const again = await applyRun(build, master, `${name}-*`, ids, states, 'no-change run', pids);
    return { first: figures(first), again: figures(again) };
  } finally {
    await stopAll(master, children);
  }
}

/** The file server requests the master logged (trace, json) for `id` after byte `from`. */
function requestsIn(logFile, from, id) {
  const text = fs.readFileSync(logFile).subarray(from).toString('utf8');
  const out = [];
  for (const line of text.split('\n')) {
    if (!line.includes('file server request')) continue;
    const rec = JSON.parse(line);
    if (rec.id === id && rec.req) out.push(rec.req);
  }
  return out;
}

/** One real minion on a master logging at trace: its requests and returns, per run. */
export async function record(build, tmp, states) {
  let master;
  let children = [];
  try {
    master = await masterWithTree(build, tmp, 'rec', states, { log_level: 'trace', log_fmt: 'json' });
    children = await startMinions(build, tmp, master, [RECORDER_ID]);
    const runs = [];
    for (const label of ['recording the first run', 'recording the no-change run']) {
      const from = fs.statSync(master.logFile).size;
      const r = await applyRun(build, master, RECORDER_ID, [RECORDER_ID], states, label);
      if (r.failures > 0) throw new Error(`the recorded minion failed: ${JSON.stringify(r.failureSample)}`);
      // the trace lines of the last replies may still be on their way to the log file
      await waitFor(() => requestsIn(master.logFile, from, RECORDER_ID).length > 0, 10_000, 'the file server requests in the master log');
      runs.push({ requests: requestsIn(master.logFile, from, RECORDER_ID), ret: JSON.stringify(r.returns[RECORDER_ID]) });
    }
    if (runs[0].requests.length === 0) throw new Error(`no file server requests in the master's trace log:\n${tail(master.logFile)}`);
    return runs;
  } finally {
    await stopAll(master, children);
  }
}

function emulatorStats(child) {
  child.send({ t: 'stats' });
  return nextMessage(child, 'stats', 180_000, 'the state emulator stats');
}

/** N emulated minions replaying `runs`, then the raw floor of the same bytes and round trips. */
export async function emulatedFleet(build, tmp, count, states, runs, profileDir = '', masterArgs = []) {
  const ids = Array.from({ length: count }, (_, i) => `emu-${i}`);
  let master;
  let emu;
  let figs;
  try {
    // --profile: a V8 CPU profile of this master, written when it stops (SIGTERM)
    const nodeArgs = [...masterArgs, ...(profileDir ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(profileDir)] : [])];
    master = await masterWithTree(build, tmp, 'emu', states, {}, nodeArgs);
    const cfg = { build: pathToFileURL(build.root).href, port: master.port, count, prefix: 'emu-', pkiDir: path.join(tmp, 'emu-pki'), soloId: RECORDER_ID, runs };
    emu = track(fork(EMULATOR, [JSON.stringify(cfg)], { stdio: ['ignore', 'inherit', fs.openSync(path.join(tmp, 'emulator.log'), 'a'), 'ipc'] }));
    progress(`${count} emulated minions connecting`);
    await waitFor(
      async () => {
        const s = await emulatorStats(emu);
        return s.ready === count && s.pillars === count;
      },
      600_000,
      `${count} emulated minions to sign in and get their pillar`,
    );
    const first = await applyRun(build, master, 'emu-*', ids, states, 'first run (emulated)');
    const again = await applyRun(build, master, 'emu-*', ids, states, 'no-change run (emulated)');
    const s = await emulatorStats(emu);
    figs = { first: figures(first), again: figures(again), fileErrors: s.fileErrors, errors: s.errors, sizes: s.sizes };
  } finally {
    if (emu?.connected) emu.send({ t: 'close' });
    if (emu) await stopChild(emu, emu.connected ? null : 'SIGTERM', 5000);
    await stopAll(master, []);
    if (master && masterArgs.length > 0) progress(`the emulated run's master log (node flags ${masterArgs.join(' ')}) is kept in ${keepLog(master)}`);
  }
  progress(`raw TLS floor: ${count} connections, the same bytes and round trips`);
  figs.rawFirst = await rawStateRound(build, tmp, count, figs.sizes[0]);
  figs.rawAgain = await rawStateRound(build, tmp, count, figs.sizes[1]);
  return figs;
}
