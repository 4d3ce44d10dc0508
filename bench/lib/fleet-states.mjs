// bench:states' runs through a master: a master with the state tree and metrics_port, real
// `brine minion` processes started with bounded concurrency, and `brine run TARGET state.apply`
// timed while the master is watched (CPU, RSS, longest event-loop stall). Each minion's return
// is checked: a missing return, a string in place of the states (a master-side timeout, an
// error), or a failed state counts as that minion failing, with the reason.

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { track } from './cleanup.mjs';
import { BenchMaster, freePort, tail, waitFor, writeConfig } from './brine-procs.mjs';
import { watchMaster } from './master-watch.mjs';
import { treeCpuSeconds } from './procfs.mjs';
import { progress } from './report.mjs';

/** Runs a command to its end; resolves with wall ms, stdout, stderr and the exit code. */
export function timed(argv, env = {}) {
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

/** Why one minion's state.apply return is not a success, or undefined when it is; counts states. */
export function judge(ret, expectedStates) {
  if (typeof ret !== 'object' || ret === null || Array.isArray(ret)) return { failure: `no state return: ${JSON.stringify(ret).slice(0, 200)}` };
  const states = Object.values(ret);
  const failed = states.filter((s) => s?.result === false);
  const changed = states.filter((s) => Object.keys(s?.changes ?? {}).length > 0).length;
  if (failed.length > 0) return { failure: `${failed.length} states failed, e.g. ${JSON.stringify(failed[0]).slice(0, 200)}`, changed };
  if (states.length !== expectedStates) return { failure: `${states.length} states returned, expected ${expectedStates}`, changed };
  return { changed };
}

/** A master for the fleet runs: file_roots, metrics_port for the stall probe, extra settings. */
export async function startMaster(build, dir, roots, settings = {}, nodeArgs = []) {
  const port = await freePort();
  const metricsPort = await freePort();
  const master = new BenchMaster(build, dir, port, { file_roots: { base: [roots] }, metrics_port: metricsPort, metrics_host: '127.0.0.1', ...settings }, nodeArgs);
  master.metricsPort = metricsPort;
  await master.start();
  return master;
}

export async function connectedCount(build, master) {
  const { requestOnce } = await import(build.module('cli/control-client.js'));
  const reply = await requestOnce(master.sockPath, { t: 'sessions' }, 'sessions');
  return reply.sessions.filter((s) => s.state === 'connected').length;
}

/**
 * Starts `ids.length` real minions, `batch` at a time (each batch connected before the next);
 * `nice` > 0 lowers their CPU priority (their job workers and shells inherit it).
 */
export async function startMinions(build, tmp, master, ids, batch = 10, nice = 0) {
  const children = [];
  for (let i = 0; i < ids.length; i += batch) {
    for (const id of ids.slice(i, i + batch)) {
      const dir = path.join(tmp, `minion-${id}`);
      writeConfig(path.join(dir, 'etc', 'minion'), { root_dir: dir, master: '127.0.0.1', master_port: master.port, id, log_level: 'warning' });
      const log = fs.openSync(path.join(dir, 'minion.log'), 'a');
      const child = track(spawn(process.execPath, [build.cli, 'minion', '-c', path.join(dir, 'etc')], { stdio: ['ignore', log, log] }));
      // set before the minion has started anything, so its workers and shells inherit it
      if (nice > 0) os.setPriority(child.pid, nice);
      children.push(child);
      fs.closeSync(log);
    }
    const want = Math.min(ids.length, i + batch);
    await waitFor(async () => (await connectedCount(build, master)) >= want, 120_000, `${want} minions to connect`);
    if (ids.length > batch) progress(`${want}/${ids.length} minions connected`);
  }
  return children;
}

/** The temp dir goes at exit: a copy of the master's log for the post-mortem, in $TMPDIR. */
export function keepLog(master) {
  const kept = path.join(os.tmpdir(), `brine-bench-states-master-${Date.now()}.log`);
  fs.copyFileSync(master.logFile, kept);
  return kept;
}

/**
 * `brine run TARGET state.apply` while the master is watched. Resolves with the wall time, the
 * master's figures, changed states, failures ([{ id, why }]) and the raw returns by minion.
 */
export async function applyRun(build, master, target, ids, states, label, minionPids = []) {
  progress(`${ids.length} minions through the master: ${label}`);
  const cpu = () => minionPids.reduce((sum, pid) => sum + treeCpuSeconds(pid), 0);
  const cpu0 = cpu();
  const watch = await watchMaster(master.pid, master.metricsPort);
  const r = await timed([process.execPath, build.cli, 'run', '-c', master.configDir, '-t', '600', '--out', 'json', '--static', target, 'state.apply']);
  const m = await watch.stop();
  const minionCpuSeconds = cpu() - cpu0;
  let all;
  try {
    all = JSON.parse(r.stdout);
  } catch {
    const kept = keepLog(master);
    throw new Error(`brine run exited ${r.code} without a JSON answer (master log kept in ${kept}): ${r.stderr.slice(0, 2000)}\n${r.stdout.slice(0, 2000)}\n${tail(master.logFile)}`);
  }
  const failures = [];
  let changed = 0;
  for (const id of ids) {
    const v = id in all ? judge(all[id], states) : { failure: 'no return' };
    changed += v.changed ?? 0;
    if (v.failure) failures.push({ id, why: v.failure });
  }
  const kept = failures.length > 0 ? keepLog(master) : undefined;
  if (kept) progress(`${failures.length} minions failed; the master's log is kept in ${kept}`);
  return { ms: r.ms, exitCode: r.code, masterLog: kept, minions: ids.length, minionCpuSeconds, changed, failures: failures.length, failureSample: failures.slice(0, 5), master: m, returns: all };
}
