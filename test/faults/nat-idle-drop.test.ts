// Fault suite, seed 000: a NAT that silently forgets flows idle for longer than X (the proxy's
// idleDrop, no FIN, no RST). Heartbeats shorter than X keep the flow alive forever; heartbeats
// longer than X lose it every cycle, and the minion notices within heartbeat_timeout, reconnects
// by itself, and the master flags it as flapping with the idle cycle as its typical uptime.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { waitUntil } from '../helpers/cluster.js';
import { FAST, ProxiedMaster, logLines, readyMasters, waitForReady } from './proxied-master.js';
import { nothingFor } from '../helpers/wait.js';

/** The NAT's idle timeout (Azure's 240 s, scaled down). */
const IDLE_MS = 2000;

describe('NAT idle drop (seed 000)', () => {
  const masters: ProxiedMaster[] = [];
  after(async () => {
    await Promise.all(masters.map((m) => m.close()));
  });

  it('heartbeats shorter than the idle timeout: the connection never drops and jobs work', async () => {
    const pm = await ProxiedMaster.start();
    masters.push(pm);
    pm.proxy.idleDrop(IDLE_MS);
    const minion = pm.cluster.startMinion('steady', { ...FAST, master: pm.viaProxy });
    await waitForReady(minion, 0, 15_000);

    // several idle periods with nothing but heartbeats on the wire
    await nothingFor(4 * IDLE_MS, 'an idle drop or a second connection', () => (pm.proxy.stats.idleDrops > 0 || pm.proxy.stats.flowsOpened !== 1) && { ...pm.proxy.stats });
    assert.equal(pm.proxy.stats.idleDrops, 0, 'the heartbeat kept the flow from ever going idle');
    assert.equal(pm.proxy.stats.flowsOpened, 1, 'one connection the whole time');
    const row = await pm.status('steady');
    assert.equal(row?.state, 'connected');
    assert.equal(row?.reconnects, 0);
    assert.equal(row?.drops, undefined, JSON.stringify(row));
    assert.deepEqual(logLines(minion, ' lost ('), [], minion.output);

    const ping = await pm.ping('steady');
    assert.ok(ping.ok, ping.stdout + ping.stderr);
    assert.equal(readyMasters(minion).length, 1);
    assert.equal(pm.proxy.stats.idleDrops, 0);
  });

  it('heartbeats longer than the idle timeout: lost within heartbeat_timeout, reconnected, flagged as flapping', async () => {
    // a heartbeat every 3 s cannot keep a 2 s NAT entry alive
    const liveness = { heartbeat_interval: 3, heartbeat_timeout: 4.5 };
    const pm = await ProxiedMaster.start(liveness);
    masters.push(pm);
    pm.proxy.idleDrop(IDLE_MS);
    const minion = pm.cluster.startMinion('sleepy', { ...FAST, ...liveness, master: pm.viaProxy });
    await waitForReady(minion, 0, 15_000);

    // the first loss: the flow is dropped after 2 s idle, the minion gives up on it 4.5 s after
    // the last byte it received and reconnects by itself
    await minion.waitForOutput(/Connection to master 127\.0\.0\.1 lost \(heartbeat_timeout\); reconnecting/, 4500 + 10_000);
    const lost = logLines(minion, 'lost (heartbeat_timeout)')[0]!;
    assert.match(lost, /no traffic from master 127\.0\.0\.1 for [45] s \(heartbeat_timeout\)/, lost);
    await waitForReady(minion, 1, 10_000);
    assert.ok(pm.proxy.stats.idleDrops >= 1, 'the proxy did drop the idle flow');

    // three drops in the hour: the master flags it, with the idle cycle as the typical uptime
    const row = await pm.waitForStatus('sleepy', (r) => (r.drops ?? 0) >= 3, 30_000, 'three drops recorded');
    assert.equal(row.flapping, true, JSON.stringify(row));
    for (const reason of row.dropReasons ?? []) assert.ok(['heartbeat_timeout', 'replaced'].includes(reason), `unexpected drop reason ${reason}`);
    // connected for the heartbeat timeout after the last byte (plus reconnect time), not minutes
    const typical = row.typicalConnectedMs ?? 0;
    assert.ok(typical >= IDLE_MS && typical <= 4500 + 5000, `typicalConnectedMs ${typical}`);
    // every drop but possibly the latest was followed by a reconnect
    assert.ok(row.reconnects >= (row.drops ?? 0) - 1, JSON.stringify(row));

    // the minion keeps recovering by itself: a job sent on a fresh connection succeeds
    let answered = false;
    for (let i = 0; i < 5 && !answered; i++) {
      await waitForReady(minion, readyMasters(minion).length, 15_000);
      answered = (await pm.ping('sleepy', 3)).ok;
    }
    assert.ok(answered, `no test.ping answer on any of 5 fresh connections\n${minion.output}`);
    assert.ok(minion.running, 'the minion never exited');
    await waitUntil(() => pm.proxy.stats.idleDrops >= 3, 1000, 'idle drops counted by the proxy');
  });
});
