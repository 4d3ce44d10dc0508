// Fault suite, multi-master (issue 3 item 2): two masters, each behind its own FaultProxy. With
// master_type failover the minion moves to the other master whenever the active path dies (20
// times in a row, one process), fails back to the first master once it is healthy, and keeps
// retrying quietly while every master is down. With master_type str one dead master never
// blocks the other.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { freePort, type Proc } from '../helpers/cluster.js';
import { FaultProxy } from './index.js';
import { FAST, HB_TIMEOUT, ProxiedMaster, logLines, readyMasters, waitForLog, waitForReady } from './proxied-master.js';
import { nothingFor, waitUntil } from '../helpers/wait.js';

const ROUNDS = 20;
/** A dead path is noticed within heartbeat_timeout (at once for an RST); then a handshake. */
const MOVE_WAIT_MS = HB_TIMEOUT * 1000 + 10_000;

describe('multi-master failover and hot/hot', () => {
  let a: ProxiedMaster;
  let b: ProxiedMaster;
  const extraProxies: FaultProxy[] = [];

  before(async () => {
    a = await ProxiedMaster.start();
    b = await ProxiedMaster.start({}, a);
  });
  after(async () => {
    await Promise.all([...extraProxies.map((p) => p.close()), a?.close(), b?.close()]);
  });

  const failoverMinion = (id: string, extra: Record<string, unknown> = {}): Proc => a.cluster.startMinion(id, { ...FAST, master: [a.viaProxy, b.viaProxy], master_type: 'failover', ...extra });

  it(`the active path dies ${ROUNDS} times in a row: the minion moves to the other master each time, no restart`, async () => {
    const minion = failoverMinion('fo');
    assert.equal(await waitForReady(minion, 0, 15_000), a.viaProxy, 'the first master in the list comes first');
    const pid = minion.child.pid;
    let active = a;
    let other = b;
    for (let round = 1; round <= ROUNDS; round++) {
      const seen = readyMasters(minion).length;
      // every fourth round the path dies silently (only heartbeats can tell); the others get an RST
      const silent = round % 4 === 0;
      if (silent) active.proxy.blackhole();
      else active.proxy.resetAll();
      const now = await waitForReady(minion, seen, MOVE_WAIT_MS);
      assert.equal(now, other.viaProxy, `round ${round}: moved to the other master`);
      if (silent) active.proxy.restore();
      const [row, ping] = await Promise.all([other.waitForStatus('fo', (r) => r.state === 'connected', 5000, `round ${round}: connected on the other master`), other.ping('fo')]);
      assert.equal(row.state, 'connected');
      assert.ok(ping.ok, `round ${round}: test.ping through the new master\n${ping.stdout}${ping.stderr}`);
      assert.ok(minion.running, `round ${round}: the minion is still running`);
      [active, other] = [other, active];
    }
    assert.equal(minion.child.pid, pid);
    assert.equal(logLines(minion, 'minion ID is').length, 1, 'started once');
    assert.equal(readyMasters(minion).length, ROUNDS + 1);
    await minion.kill();
  });

  it('fails back to the first master once it is healthy again (master_failback)', async () => {
    a.proxy.blackhole();
    a.proxy.resetAll();
    const minion = failoverMinion('fb', { master_failback: true, master_failback_interval: 1 });
    assert.equal(await waitForReady(minion, 0, 20_000), b.viaProxy, 'the first master is down: the second one');
    // probes of the dead first master fail quietly and leave the minion where it is
    await nothingFor(2500, 'a failback or a new session while the first master is down', () => (readyMasters(minion).length !== 1 || logLines(minion, 'Failing back').length > 0) && minion.output);
    assert.equal(readyMasters(minion).length, 1, minion.output);
    assert.deepEqual(logLines(minion, 'Failing back'), []);

    a.proxy.restore();
    await minion.waitForOutput(/Failing back to the first master 127\.0\.0\.1/, 15_000);
    // "Failing back" is logged before the new session is ready: wait for its ready line
    assert.equal(await waitForReady(minion, 1, 15_000), a.viaProxy);
    await a.waitForStatus('fb', (r) => r.state === 'connected', 5000, 'connected on the first master');
    const left = await b.waitForStatus('fb', (r) => r.state === 'disconnected', 5000, 'gone from the second master');
    assert.equal(left.lastDisconnectReason, 'failback');
    assert.equal(left.drops, undefined, 'a failback is not a drop');
    const ping = await a.ping('fb');
    assert.ok(ping.ok, ping.stdout + ping.stderr);
    await minion.kill();
  });

  it('with every master down the minion keeps retrying, logs per change of state, and never exits', async () => {
    // proxies in front of ports nobody listens on: each attempt is accepted, then closed at once
    const dead = await Promise.all([freePort(), freePort()]);
    const [p1, p2] = await Promise.all(dead.map((port) => FaultProxy.start({ target: { host: '127.0.0.1', port } })));
    extraProxies.push(p1!, p2!);
    const minion = a.cluster.startMinion('lonely', { ...FAST, recon_max: 500, master: [`127.0.0.1:${p1!.port}`, `127.0.0.1:${p2!.port}`], master_type: 'failover' });
    await minion.waitForOutput(/minion ID is/, 15_000);
    // enough attempts that the log-line bound below (at most 8 lines, one per 3 attempts) can hold
    await waitUntil(() => p1!.stats.flowsOpened + p2!.stats.flowsOpened >= 24, 60_000, '24 connection attempts to the dead masters');

    const attempts = p1!.stats.flowsOpened + p2!.stats.flowsOpened;
    const complaints = logLines(minion, /\[(WARNING|ERROR|INFO)\s*\]/).filter((l) => !/minion ID is/.test(l));
    const why = `${complaints.length} log lines for ${attempts} attempts:\n${complaints.join('\n')}`;
    assert.ok(attempts >= 10, why);
    // a closing peer fails either the TCP connect or the TLS handshake: at most two reasons a master
    const warned = complaints.filter((l) => l.includes('Cannot connect to master')).map((l) => `${/master=(\S+)/.exec(l)?.[1]} ${/reason=(\S+)/.exec(l)?.[1]}`);
    assert.equal(new Set(warned).size, warned.length, `each master and reason once: ${why}`);
    assert.ok(complaints.length <= 8 && complaints.length * 3 <= attempts, why);
    assert.ok(minion.running, 'the minion never exits');

    // a master appears behind the first address: the minion finds it by itself
    p1!.retarget('127.0.0.1', a.cluster.port);
    assert.equal(await waitForReady(minion, 0, 10_000), `127.0.0.1:${p1!.port}`);
    const ping = await a.ping('lonely');
    assert.ok(ping.ok, ping.stdout + ping.stderr);
    await minion.kill();
  });

  it('hot/hot (master_type str): one master down never blocks the other', async () => {
    a.proxy.restore();
    b.proxy.restore();
    const minion = a.cluster.startMinion('hh', { ...FAST, master: [a.viaProxy, b.viaProxy] });
    await waitForLog(minion, () => new Set(readyMasters(minion)).size === 2, 15_000, 'ready on both masters');
    const [pa, pb] = await Promise.all([a.ping('hh'), b.ping('hh')]);
    assert.ok(pa.ok && pb.ok, `${pa.stdout}${pa.stderr}${pb.stdout}${pb.stderr}`);

    a.proxy.blackhole();
    // at once, before anyone noticed the dead path, and again after A has dropped the minion
    const during = await b.ping('hh');
    assert.ok(during.ok, during.stdout + during.stderr);
    const row = await a.waitForStatus('hh', (r) => r.state === 'disconnected', HB_TIMEOUT * 1000 + 8000, 'A to drop hh');
    assert.equal(row.lastDisconnectReason, 'heartbeat_timeout');
    const still = await b.ping('hh');
    assert.ok(still.ok, still.stdout + still.stderr);
    assert.equal((await b.status('hh'))?.state, 'connected');

    const seen = readyMasters(minion).length;
    a.proxy.restore();
    assert.equal(await waitForReady(minion, seen, 15_000), a.viaProxy);
    const [again, other] = await Promise.all([a.ping('hh'), b.ping('hh')]);
    assert.ok(again.ok && other.ok, `${again.stdout}${again.stderr}${other.stdout}${other.stderr}`);
    assert.ok(minion.running);
    await minion.kill();
  });
});
