// Fault suite, "one busy minion does not hide a dead one" (issue 3): 200 emulated minions keep
// the master busy over direct connections while one real minion, behind a fault proxy, is
// blackholed. The master marks the real one disconnected within heartbeat_timeout and the 200
// keep answering jobs without a single drop.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { Cluster, waitUntil } from '../helpers/cluster.js';
import { FaultProxy } from './index.js';
import { lastStats } from './emulator-stats.js';
import { logTime } from '../helpers/log-lines.js';

const HB_INTERVAL = 0.5;
const HB_TIMEOUT = 1.5;
const LIVENESS = { heartbeat_interval: HB_INTERVAL, heartbeat_timeout: HB_TIMEOUT };
const COUNT = 200;

describe('one busy minion does not hide a dead one', () => {
  let cluster: Cluster | undefined;
  let proxy: FaultProxy | undefined;
  after(async () => {
    await proxy?.close();
    await cluster?.cleanup();
  });

  it(`marks a blackholed minion disconnected within heartbeat_timeout while ${COUNT} others keep working`, async (t) => {
    cluster = await Cluster.create();
    const master = await cluster.startMaster({ auto_accept: true, ...LIVENESS });
    const emu = cluster.spawnBrine('emulator', [
      'emulate',
      '--master',
      `127.0.0.1:${cluster.port}`,
      '--count',
      String(COUNT),
      '--prefix',
      'emu-',
      '--pki-dir',
      path.join(cluster.root, 'emu-pki'),
      '--heartbeat-interval',
      String(HB_INTERVAL),
      '--heartbeat-timeout',
      String(HB_TIMEOUT),
      '--recon-default',
      '100',
      '--recon-max',
      '1000',
      '--auth-timeout',
      '5',
      '--stats-interval',
      '0.2',
    ]);
    proxy = await FaultProxy.start({ target: { host: '127.0.0.1', port: cluster.port } });
    const real = cluster.startMinion('real', { master: '127.0.0.1', master_port: proxy.port, ...LIVENESS, auth_timeout: 2 });
    await real.waitForOutput(/ready to receive requests/);
    await waitUntil(() => lastStats(emu)?.ready === COUNT, 30_000, `${COUNT} emulated minions ready\n${emu.output.slice(-2000)}`);
    const dropsBefore = lastStats(emu)!.drops;

    // on a loaded machine an earlier session of `real` may have ended before the blackhole (and
    // come back); that is not what this test is about
    const mark = master.output.length;
    const darkAt = Date.now();
    proxy.blackhole();
    // the master is kept busy by the crowd while the real minion goes silent
    const ping = cluster.brine(['run', 'emu-*', 'test.ping', '--out', 'txt', '-t', '20']);

    // the blackholed session's end (only what the master logged from the blackhole on)
    const line = await waitUntil(
      () => /^.*minion real disconnected \((\w+)\).*$/m.exec(master.output.slice(mark)) ?? undefined,
      15_000,
      `the blackholed session of real to end\n${master.output.slice(-2000)}`,
    );
    assert.equal(line[1], 'heartbeat_timeout');
    const detectedMs = logTime(line[0]) - darkAt;
    t.diagnostic(`master dropped the dead minion ${detectedMs} ms into the blackhole`);
    assert.ok(detectedMs >= HB_TIMEOUT * 1000 - 600, `not before heartbeat_timeout minus one interval (${detectedMs} ms)`);
    assert.ok(detectedMs <= HB_TIMEOUT * 1000 + 3000, `within heartbeat_timeout (+3 s for a loaded machine); took ${detectedMs} ms`);
    const status = JSON.parse((await cluster.brine(['minions', 'status', '--out', 'sessions'])).stdout) as { id: string; state: string; lastDisconnectReason?: string }[];
    const realInfo = status.find((s) => s.id === 'real');
    assert.deepEqual([realInfo?.state, realInfo?.lastDisconnectReason], ['disconnected', 'heartbeat_timeout']);
    assert.equal(status.filter((s) => s.id.startsWith('emu-') && s.state === 'connected').length, COUNT);

    const r = await ping;
    assert.equal(r.code, 0, r.stderr + r.stdout.slice(-500));
    const trues = r.stdout.split('\n').filter((l) => /^emu-\d+: True$/.test(l));
    assert.equal(new Set(trues).size, COUNT, r.stdout.slice(-500));
    assert.equal(lastStats(emu)!.drops, dropsBefore, 'no emulated minion lost its connection');
    assert.equal(lastStats(emu)!.fatal, 0);

    // the real minion noticed too and keeps retrying; with the path back it returns by itself
    await real.waitForOutput(/Connection to master 127\.0\.0\.1 lost \(heartbeat_timeout\)/, 10_000);
    proxy.restore();
    await waitUntil(() => (real.output.match(/ready to receive requests/g) ?? []).length >= 2, 15_000, `the real minion back\n${real.output}`);
    const back = await cluster.brine(['run', 'real', 'test.ping', '--out', 'txt']);
    assert.equal(back.stdout, 'real: True\n');
    assert.ok(master.running && emu.running && real.running);
  });
});
