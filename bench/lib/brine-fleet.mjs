// The brine half of bench/fleet.mjs: a real master, `brine emulate` with N minions, then memory,
// idle CPU, test.ping rounds and a SIGKILL restart of the master, all measured from outside.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { stopChild } from './cleanup.mjs';
import { BenchMaster, freePort, startEmulator } from './brine-procs.mjs';
import { cpuSeconds, idleWindow, median, msSince, rssKb, sleep } from './procfs.mjs';

/** Seconds after `from` at which cumulative `connects - base` first reached each fraction of n. */
function spread(history, from, base, n) {
  const marks = [0.01, 0.1, 0.5, 0.9, 0.99, 1];
  const out = {};
  for (const f of marks) {
    const hit = history.find((s) => s.at >= from && s.connects - base >= Math.ceil(f * n));
    out[`p${Math.round(f * 100)}`] = hit ? (hit.at - from) / 1000 : null;
  }
  return out;
}

/** Why emulated minions failed to get in so far, from the emulator's warning lines. */
function failureReasons(logFile) {
  const counts = {};
  for (const m of fs.readFileSync(logFile, 'utf8').matchAll(/Cannot connect to master \S+ \(([a-z_]+)\)/g)) counts[m[1]] = (counts[m[1]] ?? 0) + 1;
  return counts;
}

function minus(after, before) {
  const out = {};
  for (const [k, v] of Object.entries(after)) if (v - (before[k] ?? 0) > 0) out[k] = v - (before[k] ?? 0);
  return out;
}

/**
 * write(2)-family syscalls the process made so far (/proc/PID/io syscw): a TLS record to a minion
 * is one, so per minion per round it counts the master's writes exactly, whatever the load.
 */
function writeSyscalls(pid) {
  return Number(/^syscw:\s*(\d+)$/m.exec(fs.readFileSync(`/proc/${pid}/io`, 'utf8'))[1]);
}

/** The kernel's count of connections dropped because a listen queue was full (whole host). */
function listenOverflows() {
  const lines = fs
    .readFileSync('/proc/net/netstat', 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('TcpExt:'));
  const names = lines[0].split(/\s+/);
  const values = lines[1].split(/\s+/);
  return Number(values[names.indexOf('ListenOverflows')]);
}

/** Whether this build's `brine emulate` takes --gc-stats (older builds refuse unknown flags). */
function emulatorHasGcStats(build) {
  const help = spawnSync(process.execPath, [build.cli, 'emulate', '--help'], { encoding: 'utf8' });
  return help.stdout.includes('--gc-stats');
}

/**
 * The master's V8 collections logged by --trace-gc since byte `from` of its log: count and pause
 * ms of scavenges (minor) and mark-compacts (major), the pause being the first figure after "MB,".
 */
function gcLines(logFile, from) {
  const fd = fs.openSync(logFile, 'r');
  const size = fs.fstatSync(fd).size;
  const buf = Buffer.alloc(Math.max(0, size - from));
  fs.readSync(fd, buf, 0, buf.length, from);
  fs.closeSync(fd);
  const out = { minorN: 0, minorMs: 0, majorN: 0, majorMs: 0 };
  for (const m of buf.toString('utf8').matchAll(/ms: (Scavenge|Minor Mark-Compact|Mark-Compact|Mark-sweep)[^\n]*?MB, ([\d.]+) /g)) {
    const major = m[1] === 'Mark-Compact' || m[1] === 'Mark-sweep';
    out[major ? 'majorN' : 'minorN']++;
    out[major ? 'majorMs' : 'minorMs'] += Number(m[2]);
  }
  out.minorMs = Math.round(out.minorMs * 10) / 10;
  out.majorMs = Math.round(out.majorMs * 10) / 10;
  return out;
}

/** opts: { count, ramp, authRate, heartbeatInterval, heartbeatTimeout, reconDefault, reconMax, authTimeout, idleMs, rounds, restart, tmp, build, log } */
export async function runBrineFleet(opts) {
  const n = opts.count;
  const port = await freePort();
  const masterSettings = { heartbeat_interval: opts.heartbeatInterval, heartbeat_timeout: opts.heartbeatTimeout };
  if (opts.authRate > 0) masterSettings.auth_rate = opts.authRate;
  if (opts.handshakeConcurrency >= 0) masterSettings.handshake_concurrency = opts.handshakeConcurrency;
  if (opts.ackCarryDelay >= 0) masterSettings.ack_carry_delay = opts.ackCarryDelay;
  // every emulated minion connects from 127.0.0.1: the per-address limits must not be what is measured
  Object.assign(masterSettings, { auth_rate_per_source: opts.authRate > 0 ? opts.authRate : 1000, preauth_max_connections_per_source: 0, preauth_max_connections: 0 });
  // --profile DIR: V8 CPU profiles of the master (written when the restarted one stops after the
  // restart phase) and of the emulator (emulator.cpuprofile, the whole run; the restart phase is
  // its last readyAgain + 2 s)
  const nodeArgs = opts.profile ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(opts.profile)] : [];
  const emulatorNodeArgs = [...(opts.profile ? [...nodeArgs, '--cpu-prof-name', 'emulator.cpuprofile'] : []), ...(opts.emulatorV8 ? opts.emulatorV8.split(/\s+/).filter(Boolean) : [])];
  // --trace-gc: the master's V8 collections go to its log (counted per round below), the
  // emulator's come with its stats lines (--gc-stats, where the build has it)
  const masterNodeArgs = opts.traceGc ? [...nodeArgs, '--trace-gc'] : nodeArgs;
  const emulatorGcStats = opts.traceGc && emulatorHasGcStats(opts.build);
  const master = new BenchMaster(opts.build, path.join(opts.tmp, 'master'), port, masterSettings, masterNodeArgs);
  const emuLog = path.join(opts.tmp, 'emulator.log');
  let emu;
  try {
    await master.start();
    // the master alone: the RSS and CPU that do not depend on minions
    const [alone] = await idleWindow([master.pid], 3000);
    const idleRss = alone.rssKb;

    const overflows0 = listenOverflows();
    const t0 = process.hrtime.bigint();
    const t0Wall = Date.now();
    emu = startEmulator(opts.build, {
      port,
      count: n,
      prefix: 'emu-',
      pkiDir: path.join(opts.tmp, 'emulator-pki'),
      ramp: opts.ramp,
      heartbeatInterval: opts.heartbeatInterval,
      heartbeatTimeout: opts.heartbeatTimeout,
      reconDefault: opts.reconDefault,
      reconMax: opts.reconMax,
      authTimeout: opts.authTimeout,
      logFile: emuLog,
      nodeArgs: emulatorNodeArgs,
      ...(emulatorGcStats ? { extraArgs: ['--gc-stats'] } : {}),
    });
    // generous: first enrolment writes every key (fsync) and may run well below auth_rate under load
    const slowest = Math.min(opts.ramp > 0 ? opts.ramp : Infinity, opts.authRate > 0 ? opts.authRate : 1000, 200);
    // busy-loop processes alongside (--load) slow everything down: the deadline grows with them
    await emu
      .waitUntil((s) => s.ready === n, (60_000 + (n / slowest) * 3000) * (1 + (opts.load ?? 0)), `${n} emulated minions to be ready`)
      .catch((err) => {
        // say how far the fleet got and why attempts failed (loaded hosts: handshake timeouts)
        const s = emu.stats;
        throw new Error(`${err.message}; ${s?.ready ?? 0} ready, ${s?.connects ?? 0} sign-ins; failed attempts ${JSON.stringify(failureReasons(emuLog))}`);
      });
    const readyMs = msSince(t0);
    const firstReadyMs = emu.history.find((s) => s.ready > 0)?.at - t0Wall;
    const startFailures = failureReasons(emuLog);
    const startOverflows = listenOverflows() - overflows0;
    opts.log(`brine: ${n} minions ready in ${(readyMs / 1000).toFixed(1)} s`);

    // past one tick of the master's 5 s key-store check, which runs after keys were written
    await sleep(opts.settleMs);
    opts.log(`brine: measuring idle CPU and RSS for ${opts.idleMs / 1000} s`);
    const dropsBefore = emu.stats.drops;
    const [m, e] = await idleWindow([master.pid, emu.child.pid], opts.idleMs);
    const idleDrops = emu.stats.drops - dropsBefore;
    const rss = m.rssKb;

    opts.log('brine: test.ping rounds');
    const cli = await master.cliPing('emu-*');
    const cliOverhead = await master.cliPing('no-such-minion-*');
    const rounds = [];
    for (let i = 0; i < opts.rounds; i++) {
      const cpu0 = cpuSeconds(master.pid);
      const writes0 = writeSyscalls(master.pid);
      const emuCpu0 = cpuSeconds(emu.child.pid);
      const log0 = opts.traceGc ? fs.statSync(master.logFile).size : 0;
      const emuGc0 = emu.stats.gc;
      const round = await master.pingRound('emu-*', n);
      round.masterCpuS = cpuSeconds(master.pid) - cpu0;
      round.emulatorCpuS = cpuSeconds(emu.child.pid) - emuCpu0;
      // issue 27: with carried acks ~1 per minion (the job, the previous round's ack riding on it)
      round.masterWritesPerMinion = (writeSyscalls(master.pid) - writes0) / n;
      if (opts.traceGc) round.masterGc = gcLines(master.logFile, log0);
      rounds.push(round);
      await sleep(300);
      // the emulator's stats line comes every 100 ms: its collections of the round and the 300 ms after
      if (emuGc0 && emu.stats.gc) round.emulatorGc = Object.fromEntries(Object.entries(emu.stats.gc).map(([k, v]) => [k, Math.round((v - emuGc0[k]) * 10) / 10]));
    }
    const cli2 = await master.cliPing('emu-*');
    const rssAfterPing = rssKb(master.pid);

    let restart;
    if (opts.restart) {
      opts.log('brine: SIGKILL the master and start it again');
      const base = emu.stats.connects;
      const failures0 = failureReasons(emuLog);
      const overflows1 = listenOverflows();
      const killAt = Date.now();
      await master.kill('SIGKILL');
      await master.start();
      const upMs = Date.now() - killAt;
      await emu.waitUntil((s) => s.at > killAt && s.ready === n && s.connects >= base + n, 300_000 * (1 + (opts.load ?? 0)), `${n} minions to come back after the restart`);
      const readyAgainMs = emu.stats.at - killAt;
      const restartCpuS = cpuSeconds(master.pid);
      restart = {
        masterCpuS: restartCpuS,
        failures: minus(failureReasons(emuLog), failures0),
        listenOverflows: listenOverflows() - overflows1,
        masterUpMs: upMs,
        readyAgainMs,
        spreadS: spread(emu.history, killAt, base, n),
      };
      opts.log(`brine: all ${n} back ${(readyAgainMs / 1000).toFixed(1)} s after the kill`);
      // memory of resumed sessions, measured as after the first enrolment: settle, then the
      // median over an idle window, against the first master's RSS alone (same build, config)
      await sleep(opts.settleMs);
      opts.log(`brine: measuring RSS after the restart for ${opts.idleMs / 1000} s`);
      const [after] = await idleWindow([master.pid], opts.idleMs);
      restart.rssKb = after.rssKb;
      restart.rssMaxKb = after.rssMaxKb;
      restart.perMinionBytes = ((after.rssKb - idleRss) * 1024) / n;
    }
    return {
      readyMs,
      firstReadyMs,
      startFailures,
      startOverflows,
      idleRssKb: idleRss,
      rssKb: rss,
      perMinionBytes: ((rss - idleRss) * 1024) / n,
      rssAfterPingKb: rssAfterPing,
      rssMaxKb: m.rssMaxKb,
      emulatorRssKb: e.rssKb,
      masterAloneCpuPct: alone.cpuPct,
      idleCpuPct: m.cpuPct,
      emulatorIdleCpuPct: e.cpuPct,
      idleDrops,
      cliPing: { first: cli, last: cli2, overhead: cliOverhead },
      rounds,
      roundMs: median(rounds.map((r) => r.ms)),
      restart,
      final: emu.stats,
    };
  } finally {
    if (emu) await stopChild(emu.child, 'SIGTERM', 5000);
    if (master.child) await stopChild(master.child, 'SIGTERM', 5000);
    // --keep-logs DIR: the emulator's and the master's logs, for reading why attempts failed
    if (opts.keepLogs) {
      fs.mkdirSync(opts.keepLogs, { recursive: true });
      for (const f of [emuLog, master.logFile]) if (fs.existsSync(f)) fs.copyFileSync(f, path.join(opts.keepLogs, path.basename(f)));
    }
  }
}
