// Fault suite, soak (issue 3): 50 emulated minions behind a fault proxy are reset eleven times
// (550 forced disconnects, the first round a warm-up for the baseline). Afterwards the master's
// and the emulator's open file descriptors are back at their baseline, memory has not run away,
// both processes are alive and neither logged an unhandled rejection.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, waitUntil } from '../helpers/cluster.js';
import { FaultProxy } from './index.js';
import { lastStats } from './emulator-stats.js';

const COUNT = 50;
const ROUNDS = 10;
const FD_TOLERANCE = 5;
const RSS_GROWTH_LIMIT = 50 * 1024 * 1024;

function fdCount(pid: number): number {
  return fs.readdirSync(`/proc/${pid}/fd`).length;
}

function rssBytes(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  assert.ok(m, `VmRSS of ${pid}`);
  return Number(m[1]) * 1024;
}

interface Sample {
  masterFds: number;
  emuFds: number;
  masterRss: number;
  emuRss: number;
}

describe('soak: hundreds of forced disconnects', { skip: process.platform === 'linux' ? false : 'reads /proc' }, () => {
  let cluster: Cluster | undefined;
  let proxy: FaultProxy | undefined;
  after(async () => {
    await proxy?.close();
    await cluster?.cleanup();
  });

  it(`resets ${COUNT} sessions ${ROUNDS + 1} times; fds and memory return to baseline, nothing crashes`, async (t) => {
    cluster = await Cluster.create();
    const c = cluster;
    const master = await c.startMaster({ auto_accept: true, heartbeat_interval: 0.5, heartbeat_timeout: 1.5 });
    proxy = await FaultProxy.start({ target: { host: '127.0.0.1', port: c.port } });
    const p = proxy;
    const emu = c.spawnBrine('emulator', [
      'emulate',
      '--master',
      `127.0.0.1:${p.port}`,
      '--count',
      String(COUNT),
      '--prefix',
      'soak-',
      '--pki-dir',
      path.join(c.root, 'emu-pki'),
      '--heartbeat-interval',
      '0.5',
      '--heartbeat-timeout',
      '1.5',
      '--recon-default',
      '100',
      '--recon-max',
      '500',
      '--auth-timeout',
      '5',
      '--stats-interval',
      '0.1',
    ]);
    const masterPid = master.child.pid!;
    const emuPid = emu.child.pid!;
    const connected = async () => {
      const r = await c.brine(['minions', 'status', '--out', 'sessions']);
      return (JSON.parse(r.stdout) as { state: string }[]).filter((s) => s.state === 'connected').length;
    };
    await waitUntil(() => lastStats(emu)?.ready === COUNT, 30_000, `${COUNT} emulated minions ready\n${emu.output.slice(-2000)}`);

    /** One forced disconnect of every session, then wait until all are back on both sides. */
    const round = async (n: number) => {
      p.resetAll();
      // a stats line printed after the drops were counted, showing everyone back
      await waitUntil(
        () => {
          const s = lastStats(emu);
          return s !== undefined && s.drops >= n * COUNT && s.ready === COUNT;
        },
        20_000,
        `round ${n}: every emulated minion back\n${emu.output.slice(-1000)}`,
      );
      await waitUntil(async () => (await connected()) === COUNT, 10_000, `round ${n}: the master shows ${COUNT} connected`);
    };
    const sample = (): Sample => ({ masterFds: fdCount(masterPid), emuFds: fdCount(emuPid), masterRss: rssBytes(masterPid), emuRss: rssBytes(emuPid) });

    await round(1); // warm-up: lazily created buffers and caches are part of the baseline
    const base = sample();
    for (let n = 2; n <= ROUNDS + 1; n++) await round(n);

    const stats = lastStats(emu)!;
    assert.equal(stats.drops, (ROUNDS + 1) * COUNT, 'every reset was a disconnect the emulator noticed');
    assert.equal(stats.connects, (ROUNDS + 2) * COUNT);
    assert.equal(stats.fatal, 0);
    assert.ok(p.stats.flowsOpened >= (ROUNDS + 2) * COUNT);
    const disconnects = (master.output.match(/minion soak-\d+ disconnected/g) ?? []).length;
    assert.equal(disconnects, (ROUNDS + 1) * COUNT, 'the master saw every forced disconnect');

    // closed sockets go away asynchronously; give them a moment
    const end = await waitUntil(
      () => {
        const s = sample();
        return s.masterFds <= base.masterFds + FD_TOLERANCE && s.emuFds <= base.emuFds + FD_TOLERANCE ? s : undefined;
      },
      10_000,
      `file descriptors back to baseline (master ${base.masterFds}, emulator ${base.emuFds}); now ${JSON.stringify(sample())}`,
    );
    t.diagnostic(`baseline ${JSON.stringify(base)}; after ${JSON.stringify(end)}`);
    assert.ok(end.masterFds >= base.masterFds - FD_TOLERANCE && end.emuFds >= base.emuFds - FD_TOLERANCE, 'every session is still open');
    assert.ok(end.masterRss - base.masterRss < RSS_GROWTH_LIMIT, `master RSS grew ${end.masterRss - base.masterRss} bytes`);
    assert.ok(end.emuRss - base.emuRss < RSS_GROWTH_LIMIT, `emulator RSS grew ${end.emuRss - base.emuRss} bytes`);

    assert.ok(master.running, `the master is alive:\n${master.output.slice(-2000)}`);
    assert.ok(emu.running, `the emulator is alive:\n${emu.output.slice(-2000)}`);
    for (const proc of [master, emu]) assert.doesNotMatch(proc.output, /unhandledRejection|Unhandled|uncaughtException/i, `${proc.name} logged an unhandled error`);
    const ping = await c.brine(['run', 'soak-*', 'test.ping', '--out', 'txt']);
    assert.equal(ping.stdout.split('\n').filter((l) => / True$/.test(l)).length, COUNT, ping.stderr);
  });
});
