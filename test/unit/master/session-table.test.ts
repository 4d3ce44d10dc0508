// SessionTable with a fake clock: one live session per ID, stale detaches ignored, reconnects
// counted over the last hour, and the info shown by `brine minions status`.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SessionTable, type LiveSession } from '../../../src/master/session-table.js';
import type { CloseReason } from '../../../src/protocol/index.js';
import { FakeClock } from '../../../src/util/clock.js';

const MIN = 60_000;

class FakeSession implements LiveSession {
  readonly closes: CloseReason[] = [];
  rttMs: number | undefined = undefined;
  lastSeen: number;
  constructor(
    readonly id: string,
    readonly remoteAddress: string,
    clock: FakeClock,
    readonly agent = 'brine/0.1.0',
    readonly fingerprint = 'ab:cd',
    readonly protocolVersion = 1,
  ) {
    this.lastSeen = clock.now();
  }
  close(reason: CloseReason): void {
    this.closes.push(reason);
  }
}

function setup() {
  const clock = new FakeClock(1_700_000_000_000);
  return { clock, table: new SessionTable(clock), t0: clock.now() };
}

test('attach registers a live session; a second attach for the ID returns the one it replaces', () => {
  const { clock, table } = setup();
  const a = new FakeSession('web1', '10.0.0.1:5000', clock);
  assert.equal(table.attach(a), undefined);
  assert.equal(table.get('web1'), a);
  assert.equal(table.isConnected('web1'), true);
  clock.advance(MIN);
  const b = new FakeSession('web1', '10.0.0.2:6000', clock);
  assert.equal(table.attach(b), a);
  assert.equal(table.get('web1'), b);
  assert.equal(table.connectedCount, 1);
  assert.deepEqual(table.connected(), [b]);
  const info = table.info('web1')!;
  assert.equal(info.remote, '10.0.0.2:6000');
  assert.equal(info.lastDisconnectReason, 'replaced');
  assert.equal(info.lastDisconnectAt, clock.now());
  assert.deepEqual(a.closes, [], "the table reports the replaced session; closing it is the caller's job");
});

test('a late detach of the replaced session is ignored', () => {
  const { clock, table } = setup();
  const a = new FakeSession('web1', '10.0.0.1:5000', clock);
  const b = new FakeSession('web1', '10.0.0.2:6000', clock);
  table.attach(a);
  clock.advance(1_000);
  table.attach(b);
  clock.advance(1_000);
  table.detach(a, 'peer_closed');
  assert.equal(table.isConnected('web1'), true);
  assert.equal(table.get('web1'), b);
  const info = table.info('web1')!;
  assert.equal(info.state, 'connected');
  assert.equal(info.lastDisconnectReason, 'replaced', 'not overwritten by the old session');
});

test('detach of the current session records why and when; the entry stays for status', () => {
  const { clock, table, t0 } = setup();
  const a = new FakeSession('web1', '10.0.0.1:5000', clock);
  table.attach(a);
  clock.advance(5 * MIN);
  a.lastSeen = clock.now() - 30_000;
  a.rttMs = 12.5;
  table.detach(a, 'heartbeat_timeout');
  clock.advance(MIN);
  assert.equal(table.isConnected('web1'), false);
  assert.equal(table.get('web1'), undefined);
  assert.equal(table.connectedCount, 0);
  assert.deepEqual(table.info('web1'), {
    id: 'web1',
    state: 'disconnected',
    reconnects: 0,
    remote: '10.0.0.1:5000',
    lastSeen: t0 + 5 * MIN - 30_000,
    agent: 'brine/0.1.0',
    protocol: 1,
    rttMs: 12.5,
    lastDisconnectReason: 'heartbeat_timeout',
    lastDisconnectAt: t0 + 5 * MIN,
    drops: 1,
    flapping: false,
    typicalConnectedMs: 5 * MIN,
    typicalSilentMs: 30_000,
    dropReasons: ['heartbeat_timeout'],
  });
  // detaching again changes nothing
  clock.advance(MIN);
  table.detach(a, 'shutdown');
  assert.equal(table.info('web1')!.lastDisconnectReason, 'heartbeat_timeout');
});

test('info of a connected session reads live values from the session', () => {
  const { clock, table, t0 } = setup();
  const a = new FakeSession('web1', '10.0.0.1:5000', clock, 'brine/9', 'ff:ee', 1);
  table.attach(a);
  clock.advance(10_000);
  a.lastSeen = clock.now();
  a.rttMs = 3;
  assert.deepEqual(table.info('web1'), {
    id: 'web1',
    state: 'connected',
    reconnects: 0,
    remote: '10.0.0.1:5000',
    connectedSince: t0,
    lastSeen: t0 + 10_000,
    agent: 'brine/9',
    protocol: 1,
    rttMs: 3,
  });
  assert.equal(table.info('nobody'), undefined);
});

test('reconnects counts connections after the first within the last hour', () => {
  const { clock, table } = setup();
  const connect = () => {
    const s = new FakeSession('web1', '10.0.0.1:5000', clock);
    table.attach(s);
    return s;
  };
  let s = connect(); // t = 0
  assert.equal(table.info('web1')!.reconnects, 0);
  for (let i = 0; i < 3; i++) {
    clock.advance(10 * MIN);
    table.detach(s, 'reset');
    s = connect(); // t = 10, 20, 30 min
  }
  assert.equal(table.info('web1')!.reconnects, 3);
  clock.advance(30 * MIN - 1); // t = 60 min - 1 ms: all four in the window
  assert.equal(table.info('web1')!.reconnects, 3);
  clock.advance(1); // t = 60 min: the first falls out
  assert.equal(table.info('web1')!.reconnects, 2);
  clock.advance(25 * MIN); // t = 85 min: only the 30-min one is left
  assert.equal(table.info('web1')!.reconnects, 0);
  clock.advance(60 * MIN);
  assert.equal(table.info('web1')!.reconnects, 0, 'never negative');
});

test('list() is sorted by ID; forget() drops an ID entirely', () => {
  const { clock, table } = setup();
  for (const id of ['db2', 'app1', 'web1']) table.attach(new FakeSession(id, '10.0.0.1:1', clock));
  assert.deepEqual(
    table.list().map((i) => i.id),
    ['app1', 'db2', 'web1'],
  );
  table.forget('db2');
  assert.deepEqual(
    table.list().map((i) => i.id),
    ['app1', 'web1'],
  );
  assert.equal(table.info('db2'), undefined);
  assert.equal(table.connectedCount, 2);
});

test('infos() holds what list() holds, in any order (the metrics count it without a sort)', () => {
  const { clock, table } = setup();
  const sessions = ['db2', 'app1', 'web1'].map((id) => new FakeSession(id, '10.0.0.1:1', clock));
  for (const s of sessions) table.attach(s);
  table.detach(sessions[0] as FakeSession, 'peer_closed');
  const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : 1);
  assert.deepEqual([...table.infos()].sort(byId), table.list());
  assert.deepEqual(table.infos().find((i) => i.id === 'db2')?.state, 'disconnected');
});

test('sessions for different IDs are independent', () => {
  const { clock, table } = setup();
  const a = new FakeSession('web1', '10.0.0.1:1', clock);
  const b = new FakeSession('web2', '10.0.0.2:1', clock);
  table.attach(a);
  assert.equal(table.attach(b), undefined);
  table.detach(a, 'reset');
  assert.equal(table.isConnected('web2'), true);
  assert.equal(table.info('web2')!.lastDisconnectReason, undefined);
});

test('three unplanned drops in an hour flag a minion as flapping, with the typical time up before each', () => {
  const { clock, table } = setup();
  // a NAT that forgets idle flows after 240 s: each connection lives ~240 s
  for (const up of [238_000, 241_000, 240_000]) {
    const s = new FakeSession('web1', '10.0.0.1:5000', clock);
    table.attach(s);
    clock.advance(up);
    s.lastSeen = clock.now() - 30_000;
    table.detach(s, 'heartbeat_timeout');
    clock.advance(2_000);
  }
  const info = table.info('web1')!;
  assert.equal(info.flapping, true);
  assert.equal(info.drops, 3);
  assert.equal(info.typicalConnectedMs, 240_000);
  assert.equal(info.typicalSilentMs, 30_000);
  assert.deepEqual(info.dropReasons, ['heartbeat_timeout']);
});

test('planned ends (shutdown, failback) are not drops; drops older than an hour are forgotten', () => {
  const { clock, table } = setup();
  for (const reason of ['shutdown', 'failback', 'shutdown', 'reset'] as const) {
    const s = new FakeSession('web1', '10.0.0.1:5000', clock);
    table.attach(s);
    clock.advance(60_000);
    table.detach(s, reason);
  }
  assert.equal(table.info('web1')!.drops, 1);
  assert.equal(table.info('web1')!.flapping, false);
  clock.advance(61 * MIN);
  assert.equal(table.info('web1')!.drops, undefined);
});

test('a replaced session counts as a drop: the minion noticed the dead connection first', () => {
  const { clock, table } = setup();
  const old = new FakeSession('web1', '10.0.0.1:5000', clock);
  table.attach(old);
  clock.advance(240_000);
  old.lastSeen = clock.now() - 12_000;
  table.attach(new FakeSession('web1', '10.0.0.1:5001', clock));
  const info = table.info('web1')!;
  assert.equal(info.drops, 1);
  assert.deepEqual(info.dropReasons, ['replaced']);
  assert.equal(info.typicalConnectedMs, 240_000);
  assert.equal(info.typicalSilentMs, 12_000);
});
