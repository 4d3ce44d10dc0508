#!/usr/bin/env node
// Fleet benchmark: a real master with N emulated minions against a raw node:tls floor measured
// in the same run; reports brine/raw ratios and judges brine's anchors (docs: bench/README.md).

import { parseFlags, resolveBuild } from './lib/args.mjs';
import { tempDir } from './lib/cleanup.mjs';
import { ensureFdLimit } from './lib/fd-limit.mjs';
import { runBrineFleet } from './lib/brine-fleet.mjs';
import { runRawBaseline } from './lib/raw-baseline.mjs';
import { startCpuHogs } from './lib/cpu-hog.mjs';
import { anchorLines, kb, mb, pct, printReport, progress, ratio, secs, showRatio } from './lib/report.mjs';

const USAGE = `usage: npm run bench:fleet -- [--count N] [options]
  --count N              emulated minions and raw connections (default 2000; 10000 for the anchors)
  --ramp N               new minion connections per second at start (default: the auth rate)
  --auth-rate N          master auth_rate; 0 = the master's default (default 0)
  --idle-seconds S       idle CPU window (default 10)
  --settle-seconds S     wait after all are ready before the idle window (default 8)
  --rounds N             test.ping rounds through the control socket (default 3)
  --heartbeat-interval S / --heartbeat-timeout S   (default 10 / 30, production)
  --recon-default MS / --recon-max MS / --auth-timeout S   emulator backoff (default 1000 / 10000 / 5, production)
  --load N               N busy-loop processes alongside for the whole run (raw floor included)
  --handshake-concurrency N   the master's handshake_concurrency (default: the master's default; 0 = no door)
  --ack-carry-delay S    the master's ack_carry_delay (default: the master's default; 0 = an ack frame per return, as before issue 27)
  --skip-raw             skip the raw TLS baseline
  --skip-restart         skip the SIGKILL-and-restart phase
  --keep-logs DIR        copy the emulator's and the master's logs into DIR at the end
  --trace-gc             count V8 collections per round: the master's (--trace-gc, in its log) and the emulator's (--gc-stats)
  --emulator-v8 FLAGS    extra V8/node flags for the emulator process only, space-separated (e.g. --max-semi-space-size=64)
  --profile DIR          write V8 CPU profiles into DIR: the master (the restarted one if restarting) and the emulator (emulator.cpuprofile)
  --build-dir DIR        compiled tree to run (default dist)`;

const f = parseFlags(
  process.argv.slice(2),
  {
    count: 2000,
    ramp: 0,
    authRate: 0,
    idleSeconds: 10,
    settleSeconds: 8,
    rounds: 3,
    heartbeatInterval: 10,
    heartbeatTimeout: 30,
    reconDefault: 1000,
    reconMax: 10000,
    authTimeout: 5,
    load: 0,
    handshakeConcurrency: -1,
    ackCarryDelay: -1,
    skipRaw: false,
    skipRestart: false,
    traceGc: false,
    emulatorV8: '',
    profile: '',
    keepLogs: '',
    buildDir: 'dist',
  },
  USAGE,
);
if (!Number.isInteger(f.count) || f.count < 1) {
  process.stderr.write('--count must be a positive integer\n');
  process.exit(2);
}
ensureFdLimit(f.count + 1024);
// the master's default auth_rate is 1000/s; ramping faster only earns busy answers
if (f.ramp <= 0) f.ramp = f.authRate > 0 ? f.authRate : 1000;

// Anchors stated for 10k are judged on the value measured at N; below 10k that only says
// something when it misses (fixed costs make linear extrapolation meaningless).
const note = (n) => (n >= 10_000 ? undefined : `stated for 10k, measured at N=${n}`);

/** --trace-gc: a round's collections, "GC master 3+0 (12 ms), emulator 2+1 (80 ms)" (minor+major). */
const gcNote = (r) => {
  const one = (who, g) => (g ? `${who} ${g.minorN}+${g.majorN} (${Math.round(g.minorMs + g.majorMs)} ms)` : undefined);
  const parts = [one('master', r.masterGc), one('emulator', r.emulatorGc)].filter(Boolean);
  return parts.length > 0 ? `; GC ${parts.join(', ')}` : '';
};

const failures = (counts) =>
  Object.entries(counts)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ') || 'none';

async function main() {
  const build = resolveBuild(f.buildDir);
  const tmp = tempDir('brine-bench-fleet-');
  const idleMs = f.idleSeconds * 1000;
  progress(`fleet benchmark: N=${f.count}, build ${build.root}${f.load > 0 ? `, ${f.load} busy-loop processes alongside` : ''}`);
  const stopHogs = startCpuHogs(f.load);
  try {
    await measure(build, tmp, idleMs);
  } finally {
    await stopHogs();
  }
}

async function measure(build, tmp, idleMs) {
  const raw = f.skipRaw ? undefined : await runRawBaseline({ count: f.count, heartbeatMs: f.heartbeatInterval * 1000, idleMs, rounds: f.rounds, tmp, build, log: progress });
  const brine = await runBrineFleet({ ...f, idleMs, settleMs: f.settleSeconds * 1000, restart: !f.skipRestart, tmp, build, log: progress });

  const ratios = raw
    ? {
        memoryPerConnection: ratio(brine.perMinionBytes, raw.perConnBytes),
        memoryPerConnectionAfterRestart: brine.restart ? ratio(brine.restart.perMinionBytes, raw.perConnBytes) : null,
        idleCpu: ratio(brine.idleCpuPct, raw.idleCpuPct, 0.05),
        pingRound: ratio(brine.roundMs, raw.roundMs),
        // the raw client opening N connections is the floor for N minions coming back
        restartVsRawConnect: brine.restart ? ratio(brine.restart.readyAgainMs, raw.connectMs) : null,
      }
    : undefined;
  const n = f.count;
  const allReturned = brine.rounds.every((r) => r.returns === n && r.trueReturns === n) && brine.cliPing.first.returns === n && brine.cliPing.last.returns === n;
  const anchors = [
    { name: 'master memory per minion', target: '<= 40 KiB', value: kb(brine.perMinionBytes), pass: brine.perMinionBytes <= 40 * 1024 },
    { name: 'master idle CPU at 10k', target: '< 5% of a core', value: pct(brine.idleCpuPct), pass: brine.idleCpuPct < 5, note: note(n) },
    {
      name: 'test.ping every return',
      target: `${n}/${n}`,
      value: `${Math.min(...brine.rounds.map((r) => r.returns), brine.cliPing.first.returns, brine.cliPing.last.returns)}/${n}`,
      pass: allReturned,
    },
    { name: 'test.ping round at 10k', target: '< 1 s', value: secs(brine.roundMs), pass: brine.roundMs < 1000, note: note(n) },
  ];
  if (ratios) anchors.push({ name: 'test.ping vs raw echo', target: '<= 1.5x', value: showRatio(ratios.pingRound), pass: ratios.pingRound <= 1.5 });
  if (brine.restart) anchors.push({ name: 'back after master restart', target: '<= 15 s at 10k', value: secs(brine.restart.readyAgainMs), pass: brine.restart.readyAgainMs <= 15_000, note: note(n) });

  const r = brine.restart;
  const sections = [
    [
      `brine (master + brine emulate, N=${n}, ramp ${f.ramp}/s, auth_rate ${f.authRate || 'default'}, handshake_concurrency ${f.handshakeConcurrency < 0 ? 'default' : f.handshakeConcurrency}${f.load > 0 ? `, --load ${f.load}` : ''})`,
      [
        `all ready in ${secs(brine.readyMs)} (first after ${secs(brine.firstReadyMs)}); failed attempts ${failures(brine.startFailures)}; listen-queue overflows ${brine.startOverflows}`,
        `master RSS ${mb(brine.idleRssKb)} alone -> ${mb(brine.rssKb)} connected (median of ${f.idleSeconds} s) = ${kb(brine.perMinionBytes)} per minion (peak ${mb(brine.rssMaxKb)}, after pings ${mb(brine.rssAfterPingKb)})`,
        `master idle CPU ${pct(brine.idleCpuPct)} of a core over ${f.idleSeconds} s, heartbeats ${f.heartbeatInterval}/${f.heartbeatTimeout} s (alone ${pct(brine.masterAloneCpuPct)}; emulator ${pct(brine.emulatorIdleCpuPct)}, ${brine.idleDrops} drops)`,
        `test.ping via control socket: ${brine.rounds.map((x) => `${secs(x.ms)} (${x.returns} returns, master CPU ${x.masterCpuS.toFixed(2)} s, emulator CPU ${x.emulatorCpuS.toFixed(2)} s, ${x.masterWritesPerMinion.toFixed(2)} writes/minion${gcNote(x)})`).join(', ')}; median ${secs(brine.roundMs)}`,
        `brine run 'emu-*' test.ping: ${secs(brine.cliPing.first.ms)} then ${secs(brine.cliPing.last.ms)} wall, ${brine.cliPing.first.returns} and ${brine.cliPing.last.returns} returns; CLI with no match ${secs(brine.cliPing.overhead.ms)}`,
        ...(r
          ? [
              `restart: master listening ${secs(r.masterUpMs)} after SIGKILL (restarted master used ${r.masterCpuS.toFixed(1)} s CPU until all were back); all back ${secs(r.readyAgainMs)} after it; share back at 1/10/50/90/99/100%: ${Object.values(
                r.spreadS,
              )
                .map((v) => (v === null ? '-' : v.toFixed(1)))
                .join(' / ')} s; failed attempts (auth_busy = turned away by auth_rate) ${failures(r.failures)}; listen-queue overflows ${r.listenOverflows}`,
              `after the restart (resumed sessions): master RSS ${mb(r.rssKb)} (median of ${f.idleSeconds} s) = ${kb(r.perMinionBytes)} per minion over the first master alone`,
            ]
          : []),
      ],
    ],
  ];
  if (raw) {
    sections.push([
      `raw node:tls floor (same N, same heartbeat schedule)`,
      [
        `${n} connections opened in ${secs(raw.connectMs)} (64 handshakes in flight)`,
        `server RSS ${mb(raw.idleRssKb)} idle -> ${mb(raw.rssKb)} = ${kb(raw.perConnBytes)} per connection`,
        `server idle CPU ${pct(raw.idleCpuPct)} (client ${pct(raw.clientIdleCpuPct)})`,
        `write 256 B to all, collect 64 B: ${raw.roundsMs.map((x, i) => `${secs(x)} (CPU server ${raw.roundsCpuS[i].server.toFixed(2)} s, client ${raw.roundsCpuS[i].client.toFixed(2)} s)`).join(', ')}; median ${secs(raw.roundMs)}`,
      ],
    ]);
    sections.push([
      'brine / raw',
      [
        `memory per connection ${showRatio(ratios.memoryPerConnection)}${ratios.memoryPerConnectionAfterRestart === null ? '' : ` (after the restart ${showRatio(ratios.memoryPerConnectionAfterRestart)})`}, idle CPU ${showRatio(ratios.idleCpu)}, ping round ${showRatio(ratios.pingRound)}${ratios.restartVsRawConnect === null ? '' : `, restart vs raw connect ${showRatio(ratios.restartVsRawConnect)}`}`,
      ],
    ]);
  }
  sections.push(['anchors (docs/anchors.md)', anchorLines(anchors)]);
  printReport(`fleet benchmark, N=${n}`, sections, { bench: 'fleet', count: n, flags: f, brine, raw, ratios, anchors });
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`bench:fleet failed: ${err.stack ?? err}\n`);
    process.exit(1);
  },
);
