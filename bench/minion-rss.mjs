#!/usr/bin/env node
// Minion memory benchmark: one real `brine minion` connected to a real master, its RSS after an
// idle period, against two processes started at the same moment: a bare
// `node -e "setInterval(()=>{},1000)"`, and the floor, a raw node:tls client with a client
// certificate holding one mutual TLS 1.3 connection and sending a 32 B heartbeat every
// --floor-heartbeat-ms (bench/lib/raw-idle-client.mjs): what any connected idle agent costs.

import { fork, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseFlags, resolveBuild } from './lib/args.mjs';
import { closeForked, nextMessage, stopChild, tempDir, track } from './lib/cleanup.mjs';
import { BenchMaster, freePort, tail, waitFor } from './lib/brine-procs.mjs';
import { childPids, idleWindow, rssKb, sleep } from './lib/procfs.mjs';
import { anchorLines, mb, pct, printReport, progress, showRatio } from './lib/report.mjs';
import { writeTree } from './lib/state-tree.mjs';

const USAGE = `usage: npm run bench:minion-rss -- [--idle-seconds S] [--pings N] [--states N] [--floor-heartbeat-ms MS] [--build-dir DIR]
  --idle-seconds S  how long the minion idles before its RSS counts (default 10)
  --floor-heartbeat-ms MS  the raw TLS floor's heartbeat interval (default 5000)
  --pings N         test.ping rounds timed after the first (median reported; default 10)
  --states N        states in the tree applied after the pings (bench:states' tree; default 20, 0: none)
  --build-dir DIR   compiled tree to run (default dist)`;
const f = parseFlags(process.argv.slice(2), { idleSeconds: 10, pings: 10, states: 20, floorHeartbeatMs: 5000, buildDir: 'dist' }, USAGE);

/** state.apply (the highstate of the master's file_roots) over the control socket; its wall time and how many states succeeded. */
async function applyRound(build, sockPath, target) {
  const { openControl } = await import(build.module('cli/control-client.js'));
  const conn = await openControl(sockPath);
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    let ret;
    conn.onMessage((m) => {
      if (m.t === 'ret') ret = m.ret;
      else if (m.t === 'done') {
        const states = ret !== null && typeof ret === 'object' && !Array.isArray(ret) ? Object.values(ret) : [];
        resolve({ ms: performance.now() - t0, states: states.length, ok: states.filter((r) => r?.result === true).length });
        conn.close('shutdown');
      } else if (m.t === 'error') reject(new Error(`publish failed: ${m.code}: ${m.message}`));
    });
    conn.onClose((info) => reject(new Error(`the control connection closed before state.apply finished (${info.reason})`)));
    conn.send({ t: 'publish', tgt: target, tgtType: 'glob', fun: 'state.apply', arg: [], kwarg: {}, timeout: 300, user: 'bench' });
  });
}

/**
 * The floor: a raw TLS server (forked; its memory does not count) and the idle client (spawned
 * without IPC), connected. Returns both children.
 */
async function startFloor(build, tmp) {
  const { loadOrCreateIdentity } = await import(build.module('pki/index.js'));
  const srvId = await loadOrCreateIdentity({ pkiDir: path.join(tmp, 'raw-server'), name: 'master', commonName: 'raw-server' });
  const cliId = await loadOrCreateIdentity({ pkiDir: path.join(tmp, 'raw-client'), name: 'minion', commonName: 'raw-client' });
  const here = path.join(path.dirname(new URL(import.meta.url).pathname), 'lib');
  const server = track(fork(path.join(here, 'raw-tls-server.mjs'), [JSON.stringify({ keyFile: srvId.paths.key, certFile: srvId.paths.cert })], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  const { port } = await nextMessage(server, 'listening', 10_000, 'the raw TLS server to listen');
  const args = JSON.stringify({ port, keyFile: cliId.paths.key, certFile: cliId.paths.cert, heartbeatMs: f.floorHeartbeatMs });
  const client = track(spawn(process.execPath, [path.join(here, 'raw-idle-client.mjs'), args], { stdio: ['ignore', 'pipe', 'inherit'] }));
  let out = '';
  client.stdout.on('data', (d) => {
    out += d;
  });
  await waitFor(
    () => {
      if (client.exitCode !== null) throw new Error(`the raw TLS client exited with code ${client.exitCode}`);
      return out.includes('connected TLSv1.3');
    },
    10_000,
    'the raw TLS client to connect',
  );
  return { server, client };
}

/** RSS of a process and all its descendants (a minion may run workers). */
function treeRssKb(pid) {
  let total = rssKb(pid) ?? 0;
  for (const c of childPids(pid)) total += treeRssKb(c);
  return total;
}

async function main() {
  const build = resolveBuild(f.buildDir);
  const tmp = tempDir('brine-bench-minion-');
  const port = await freePort();
  // under the master's root_dir (every brine path option lies under it)
  const fileRoot = path.join(tmp, 'master', 'srv');
  if (f.states > 0) writeTree(fileRoot, `'${path.join(tmp, 'applied')}'`, f.states);
  const master = new BenchMaster(build, path.join(tmp, 'master'), port, { file_roots: { base: [fileRoot] } });
  const { requestOnce } = await import(build.module('cli/control-client.js'));
  let minion;
  let bare;
  let floor;
  try {
    await master.start();
    const dir = path.join(tmp, 'minion');
    fs.mkdirSync(path.join(dir, 'etc'), { recursive: true });
    const settings = { root_dir: dir, master: '127.0.0.1', master_port: port, id: 'bench-minion', log_level: 'warning' };
    fs.writeFileSync(
      path.join(dir, 'etc', 'minion'),
      `${Object.entries(settings)
        .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
        .join('\n')}\n`,
    );
    const log = fs.openSync(path.join(dir, 'minion.log'), 'a');
    minion = track(spawn(process.execPath, [build.cli, 'minion', '-c', path.join(dir, 'etc')], { stdio: ['ignore', log, log] }));
    bare = track(spawn(process.execPath, ['-e', 'setInterval(()=>{},1000)'], { stdio: 'ignore' }));
    fs.closeSync(log);
    floor = await startFloor(build, tmp);
    await waitFor(
      async () => {
        if (minion.exitCode !== null) throw new Error(`the minion exited with code ${minion.exitCode}:\n${tail(path.join(dir, 'minion.log'))}`);
        const reply = await requestOnce(master.sockPath, { t: 'sessions' }, 'sessions');
        return reply.sessions.some((s) => s.id === 'bench-minion' && s.state === 'connected');
      },
      30_000,
      'the minion to connect',
    );
    progress(`minion connected; idling ${f.idleSeconds} s`);
    await sleep(Math.max(0, f.idleSeconds * 1000 - 3000));
    const [m, b, r] = await idleWindow([minion.pid, bare.pid, floor.client.pid], 3000);
    const tree = treeRssKb(minion.pid);
    const hwm = Number(/^VmHWM:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${minion.pid}/status`, 'utf8'))?.[1]);
    const ping = await master.pingRound('bench-minion', 1);
    await sleep(2000);
    const afterPing = treeRssKb(minion.pid);
    // test.ping round trips once the worker thread exists: a heap setting must not slow jobs down
    const times = [];
    for (let i = 0; i < f.pings; i++) times.push((await master.pingRound('bench-minion', 1)).ms);
    times.sort((x, y) => x - y);
    const pingMedianMs = times.length > 0 ? times[Math.floor(times.length / 2)] : undefined;
    // a state run: the worker loads the state compiler, the renderers and the file client
    const apply = f.states > 0 ? await applyRound(build, master.sockPath, 'bench-minion') : undefined;
    if (apply !== undefined && apply.ok !== f.states) throw new Error(`state.apply: ${apply.ok} of ${apply.states} states succeeded, ${f.states} expected:\n${tail(path.join(dir, 'minion.log'))}`);
    if (apply !== undefined) await sleep(2000);
    const afterApply = apply === undefined ? undefined : treeRssKb(minion.pid);
    const result = {
      minionRssKb: m.rssKb,
      minionTreeRssKb: tree,
      minionPeakKb: hwm,
      minionIdleCpuPct: m.cpuPct,
      bareRssKb: b.rssKb,
      ratio: m.rssKb / b.rssKb,
      floorRssKb: r.rssKb,
      floorIdleCpuPct: r.cpuPct,
      floorRatio: m.rssKb / r.rssKb,
      overFloorKb: m.rssKb - r.rssKb,
      afterPingTreeRssKb: afterPing,
      pingReturns: ping.returns,
      firstPingMs: ping.ms,
      pingMedianMs,
      applyStates: apply?.states,
      applyMs: apply?.ms,
      afterApplyTreeRssKb: afterApply,
    };
    // issue 27's target (issue 12's was 50 MiB)
    const anchors = [{ name: 'minion agent RSS idle', target: '<= 45 MiB', value: mb(tree), pass: tree <= 45 * 1024 }];
    printReport(
      `minion RSS benchmark (after ${f.idleSeconds} s connected and idle)`,
      [
        [
          'brine minion',
          [
            `RSS ${mb(m.rssKb)} (with children ${mb(tree)}, peak ${mb(hwm)}), idle CPU ${pct(m.cpuPct)}; after one test.ping ${mb(afterPing)}`,
            `test.ping: first ${ping.ms.toFixed(1)} ms, median of ${f.pings} more ${pingMedianMs?.toFixed(1)} ms`,
            apply === undefined ? 'no state.apply (--states 0)' : `state.apply of ${apply.states} states ${apply.ms.toFixed(0)} ms; RSS after it ${mb(afterApply)}`,
          ],
        ],
        ['bare node -e "setInterval(()=>{},1000)"', [`RSS ${mb(b.rssKb)}`]],
        [`floor: raw node:tls client, one mutual TLS 1.3 connection, heartbeat every ${f.floorHeartbeatMs} ms`, [`RSS ${mb(r.rssKb)}, idle CPU ${pct(r.cpuPct)}`]],
        ['brine / floor', [`${showRatio(result.floorRatio)} (${mb(result.overFloorKb)} over the floor)`]],
        ['brine / bare', [showRatio(result.ratio)]],
        ['anchors (docs/anchors.md)', anchorLines(anchors)],
      ],
      { bench: 'minion-rss', flags: f, ...result, anchors },
    );
  } finally {
    if (minion) await stopChild(minion, 'SIGTERM', 5000);
    if (bare) await stopChild(bare, 'SIGKILL', 1000);
    if (floor) {
      await stopChild(floor.client, 'SIGKILL', 1000);
      await closeForked(floor.server);
    }
    if (master.child) await stopChild(master.child, 'SIGTERM', 5000);
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`bench:minion-rss failed: ${err.stack ?? err}\n`);
    process.exit(1);
  },
);
