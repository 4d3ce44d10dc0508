// Failover and failback (issue 3 item 2) on fake DNS/dial and a fake clock: MasterPool order and
// passes, MasterLink moving to the next master at once and backing off only after a full pass,
// and failback to the first master through a probe that replaces the current connection.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MasterLink, MasterPool, type LinkOptions, type MasterEndpoint } from '../../../src/session/index.js';
import { CONN_OPTS, FakeDeps, auth, flush } from './fakes.js';

const M1: MasterEndpoint = { host: 'm1', port: 4501 };
const M2: MasterEndpoint = { host: 'm2', port: 4502 };
const M3: MasterEndpoint = { host: 'm3', port: 4503 };

const LINK_OPTS: LinkOptions = {
  backoff: { baseMs: 1_000, maxMs: 8_000, randomize: false, floorMs: 50 },
  acceptanceWaitMs: 10_000,
  acceptanceWaitMaxMs: 0,
  rejectedRetry: false,
  failbackIntervalMs: 5_000,
};

test('MasterPool keeps list order, and with failback a shuffle keeps the first master first', () => {
  const plain = new MasterPool([M1, M2, M3], { failover: true, randomMaster: false, failback: false });
  assert.deepEqual(
    plain.records().map((r) => r.endpoint.host),
    ['m1', 'm2', 'm3'],
  );
  // a random source that always picks index 0 reverses positions it touches
  const shuffled = new MasterPool([M1, M2, M3], { failover: true, randomMaster: true, failback: true }, () => 0);
  assert.equal(shuffled.records()[0]!.endpoint.host, 'm1');
  assert.deepEqual(new Set(shuffled.records().map((r) => r.endpoint.host)), new Set(['m1', 'm2', 'm3']));
  const free = new MasterPool([M1, M2, M3], { failover: true, randomMaster: true, failback: false }, () => 0);
  assert.notEqual(free.records()[0]!.endpoint.host, 'm1', 'without failback the first entry is shuffled too');
});

test('MasterPool reports a full pass only after every master failed since the last success', () => {
  const pool = new MasterPool([M1, M2, M3], { failover: true, randomMaster: false, failback: false });
  assert.equal(pool.noteFailure('connect_failed'), false);
  assert.equal(pool.current().host, 'm2');
  assert.equal(pool.noteFailure('connect_failed'), false);
  assert.equal(pool.noteFailure('connect_failed'), true, 'third failure completes the pass');
  assert.equal(pool.current().host, 'm1');
  pool.noteFailure('connect_failed');
  pool.noteReady();
  assert.equal(pool.noteFailure('heartbeat_timeout'), false, 'a success starts a new pass');
  const single = MasterPool.single(M1);
  assert.equal(single.noteFailure('reset'), true);
  assert.equal(single.current().host, 'm1');
});

function failoverLink(deps: FakeDeps, opts: Partial<LinkOptions> = {}, failback = false) {
  const retries: number[] = [];
  const link = new MasterLink(
    new MasterPool([M1, M2, M3], { failover: true, randomMaster: false, failback }),
    deps,
    CONN_OPTS,
    { ...LINK_OPTS, ...opts },
    { onRetryScheduled: (d) => retries.push(d) },
    () => 0.5,
  );
  return { link, retries };
}

test('a failing master is skipped at once; the backoff applies only after the whole list failed', async () => {
  const deps = new FakeDeps({ autoDial: false });
  const { link, retries } = failoverLink(deps);
  link.start();
  await flush();
  assert.equal(deps.dials[0]!.port, 4501);
  deps.dials[0]!.result.reject(new Error('ECONNREFUSED'));
  await flush();
  assert.deepEqual(retries, [50], 'next master after the short failover step');
  deps.clock.advance(50);
  await flush();
  assert.equal(deps.dials[1]!.port, 4502);
  deps.dials[1]!.result.reject(new Error('ECONNREFUSED'));
  await flush();
  deps.clock.advance(50);
  await flush();
  assert.equal(deps.dials[2]!.port, 4503);
  deps.dials[2]!.result.reject(new Error('ECONNREFUSED'));
  await flush();
  assert.deepEqual(retries, [50, 50, 1000], 'after a full pass: recon_default');
  deps.clock.advance(999);
  await flush();
  assert.equal(deps.dials.length, 3);
  deps.clock.advance(1);
  await flush();
  assert.equal(deps.dials[3]!.port, 4501, 'the next pass starts again at the first master');
  assert.equal(link.state, 'connecting');
});

test('when the active master drops, the link moves to the next master and is ready there', async () => {
  const deps = new FakeDeps();
  const { link } = failoverLink(deps);
  const ready: string[] = [];
  link.start();
  await flush();
  deps.lastChannel.deliver(auth('accepted'));
  assert.equal(link.state, 'ready');
  assert.equal(link.endpoint.host, 'm1');
  for (let round = 0; round < 20; round++) {
    const before = link.endpoint.host;
    deps.lastChannel.drop('heartbeat_timeout');
    assert.equal(link.state, 'waiting');
    deps.clock.advance(50);
    await flush();
    deps.lastChannel.deliver(auth('accepted'));
    assert.equal(link.state, 'ready', `round ${round}`);
    assert.notEqual(link.endpoint.host, before, 'never back to the master that just failed');
    ready.push(link.endpoint.host);
  }
  assert.deepEqual(ready.slice(0, 4), ['m2', 'm3', 'm1', 'm2']);
  assert.equal(deps.maxConcurrent, 1, 'single flight: one connection at a time');
});

test('failback: while on another master the first one is probed and takes over once it is ready', async () => {
  const deps = new FakeDeps({ autoDial: false });
  const { link } = failoverLink(deps, {}, true);
  link.start();
  await flush();
  deps.dials[0]!.result.reject(new Error('ECONNREFUSED'));
  await flush();
  deps.clock.advance(50);
  await flush();
  deps.dials[1]!.onTcpConnected();
  const { FakeChannel } = await import('./fakes.js');
  const onM2 = new FakeChannel();
  deps.dials[1]!.result.resolve(onM2);
  await flush();
  onM2.deliver(auth('accepted'));
  assert.equal(link.endpoint.host, 'm2');
  // the first probe fails: the link stays on m2 and probes again later
  deps.clock.advance(5_000);
  await flush();
  assert.equal(deps.dials[2]!.port, 4501);
  deps.dials[2]!.result.reject(new Error('ECONNREFUSED'));
  await flush();
  assert.equal(link.state, 'ready');
  assert.equal(onM2.closed, false);
  deps.clock.advance(5_000);
  await flush();
  assert.equal(deps.dials[3]!.port, 4501);
  const onM1 = new FakeChannel();
  deps.dials[3]!.onTcpConnected();
  deps.dials[3]!.result.resolve(onM1);
  await flush();
  onM1.deliver(auth('accepted'));
  assert.equal(link.state, 'ready');
  assert.equal(link.endpoint.host, 'm1');
  assert.equal(link.connection?.state, 'ready');
  assert.deepEqual(
    onM2.closeCalls.map((c) => c.reason),
    ['failback'],
  );
  assert.deepEqual(onM2.sentOfType('bye'), [{ t: 'bye', reason: 'failback' }]);
  // on the first master no more probes are made
  deps.clock.advance(20_000);
  await flush();
  assert.equal(deps.dials.length, 4);
});

test('after a failback onConnectionState keeps firing for the live connection (issue 8 structure)', async () => {
  const deps = new FakeDeps({ autoDial: false });
  const changes: string[] = [];
  const states: string[] = [];
  const link = new MasterLink(
    new MasterPool([M1, M2], { failover: true, randomMaster: false, failback: true }),
    deps,
    CONN_OPTS,
    LINK_OPTS,
    { onConnectionState: (from, to) => changes.push(`${from}>${to}`) },
    () => 0.5,
  );
  link.start();
  await flush();
  deps.dials[0]!.result.reject(new Error('ECONNREFUSED'));
  await flush();
  deps.clock.advance(50);
  await flush();
  const { FakeChannel } = await import('./fakes.js');
  const onM2 = new FakeChannel();
  deps.dials[1]!.onTcpConnected();
  deps.dials[1]!.result.resolve(onM2);
  await flush();
  onM2.deliver(auth('accepted'));
  states.push(link.state);
  deps.clock.advance(5_000);
  await flush();
  states.push(link.state);
  changes.length = 0;
  const onM1 = new FakeChannel();
  deps.dials[2]!.onTcpConnected();
  deps.dials[2]!.result.resolve(onM1);
  await flush();
  assert.deepEqual(changes, [], 'the probe is not the live connection: its states are not reported');
  onM1.deliver(auth('accepted'));
  states.push(link.state);
  assert.equal(link.endpoint.host, 'm1');
  assert.deepEqual(states, ['ready', 'probing', 'ready']);
  changes.length = 0;
  // the live connection (the former probe) drops: its owner must hear about it
  onM1.drop('reset');
  assert.deepEqual(changes, ['ready>closed']);
  assert.equal(link.state, 'waiting');
  link.stop();
});

test('MasterLink transitions: stopped is terminal, probing only from ready', async () => {
  const { canLinkTransition, LINK_STATES } = await import('../../../src/session/index.js');
  for (const to of LINK_STATES) assert.equal(canLinkTransition('stopped', to), false);
  for (const from of LINK_STATES) assert.equal(canLinkTransition(from, 'probing'), from === 'ready', from);
});
