// HeartbeatMonitor against a stub host and a fake clock: pings follow *send* silence, the
// timeout follows *receive* silence, and stop() leaves no timer behind.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HeartbeatMonitor, type HeartbeatOptions } from '../../../src/session/index.js';
import { FakeClock } from '../../../src/util/clock.js';
import { TimerWheel } from '../../../src/util/timer-wheel.js';

interface Ping {
  at: number;
  seq: number;
  rtt: number | undefined;
}

function setup(opts: Partial<HeartbeatOptions> = {}) {
  const clock = new FakeClock(0);
  const pings: Ping[] = [];
  const timeouts: Array<{ at: number; silent: number }> = [];
  const hb = new HeartbeatMonitor(
    {
      sendPing: (seq, rtt) => pings.push({ at: clock.monotonic(), seq, rtt }),
      onTimeout: (silent) => timeouts.push({ at: clock.monotonic(), silent }),
    },
    clock,
    { intervalMs: 10_000, timeoutMs: 30_000, sendPings: true, ...opts },
  );
  return { clock, pings, timeouts, hb };
}

test('the first ping goes out after exactly `interval` of send silence', () => {
  const { clock, pings, hb } = setup();
  hb.start();
  clock.advance(9_999);
  assert.equal(pings.length, 0);
  clock.advance(1);
  assert.deepEqual(pings, [{ at: 10_000, seq: 0, rtt: undefined }]);
  clock.advance(10_000);
  assert.deepEqual(
    pings.map((p) => [p.at, p.seq]),
    [
      [10_000, 0],
      [20_000, 1],
    ],
  );
});

test('sending other traffic postpones the next ping (pings fill silence, they are not periodic)', () => {
  const { clock, pings, hb } = setup();
  hb.start();
  clock.advance(6_000);
  hb.noteSent();
  clock.advance(9_999); // t = 15 999: a fixed 10 s schedule would have pinged at 10 000
  assert.equal(pings.length, 0);
  clock.advance(1);
  assert.deepEqual(
    pings.map((p) => p.at),
    [16_000],
  );
  // steady traffic every 5 s means no pings at all
  for (let i = 0; i < 4; i++) {
    clock.advance(5_000);
    hb.noteSent();
    hb.noteReceived();
  }
  assert.equal(pings.length, 1);
});

test('received traffic does not postpone pings (only sending does)', () => {
  const { clock, pings, hb } = setup();
  hb.start();
  clock.advance(5_000);
  hb.noteReceived();
  clock.advance(5_000);
  assert.deepEqual(
    pings.map((p) => p.at),
    [10_000],
  );
});

test('the timeout fires once, exactly `timeout` after the last receive, never before', () => {
  const { clock, pings, timeouts, hb } = setup();
  hb.start();
  clock.advance(29_999);
  assert.equal(timeouts.length, 0);
  assert.equal(pings.length, 2, 'pinged at 10 s and 20 s while waiting');
  clock.advance(1);
  assert.deepEqual(timeouts, [{ at: 30_000, silent: 30_000 }]);
  assert.equal(pings.length, 2, 'no ping in the same instant as the timeout');
  clock.advance(120_000);
  assert.equal(timeouts.length, 1, 'exactly once');
  assert.equal(pings.length, 2, 'no pings after the timeout');
  assert.equal(clock.pending, 0);
});

test('sending does not keep a dead peer alive; receiving does', () => {
  const { clock, timeouts, hb } = setup();
  hb.start();
  // we keep talking, the peer says nothing
  for (let t = 0; t < 29; t++) {
    clock.advance(1_000);
    hb.noteSent();
  }
  clock.advance(1_000);
  assert.equal(timeouts.length, 1, 'sending alone must not reset the receive timer');
});

test('each receive restarts the timeout window', () => {
  const { clock, timeouts, hb } = setup();
  hb.start();
  clock.advance(20_000);
  hb.noteReceived();
  clock.advance(29_999); // t = 49 999
  assert.equal(timeouts.length, 0);
  assert.equal(hb.lastReceivedAt, 20_000);
  clock.advance(1);
  assert.deepEqual(timeouts, [{ at: 50_000, silent: 30_000 }]);
});

test('a timeout shorter than the interval still fires on time', () => {
  const { clock, timeouts, pings, hb } = setup({ intervalMs: 10_000, timeoutMs: 4_000 });
  hb.start();
  clock.advance(3_999);
  assert.equal(timeouts.length, 0);
  clock.advance(1);
  assert.equal(timeouts.length, 1);
  assert.equal(pings.length, 0);
});

test('handlePong measures the round trip; the next ping carries it', () => {
  const { clock, pings, hb } = setup();
  hb.start();
  clock.advance(10_000);
  assert.equal(hb.rttMs, undefined);
  clock.advance(150);
  hb.handlePong(pings[0]!.seq);
  assert.equal(hb.rttMs, 150);
  hb.handlePong(pings[0]!.seq); // a duplicate pong later changes nothing
  clock.advance(500);
  hb.handlePong(pings[0]!.seq);
  hb.handlePong(99); // never sent
  assert.equal(hb.rttMs, 150);
  clock.advance(10_000);
  assert.deepEqual(pings[1], { at: 20_000, seq: 1, rtt: 150 });
});

test('recordPeerRtt shows what the peer measured', () => {
  const { hb } = setup({ sendPings: false });
  hb.recordPeerRtt(42);
  assert.equal(hb.rttMs, 42);
});

test('master mode (sendPings false) never pings but still times out', () => {
  const { clock, pings, timeouts, hb } = setup({ sendPings: false });
  hb.start();
  clock.advance(25_000);
  hb.noteReceived();
  clock.advance(29_999);
  assert.equal(timeouts.length, 0);
  clock.advance(1);
  assert.deepEqual(timeouts, [{ at: 55_000, silent: 30_000 }]);
  clock.advance(100_000);
  assert.equal(pings.length, 0);
  assert.equal(timeouts.length, 1);
});

test('stop() cancels every timer; nothing fires afterwards and start() cannot revive it', () => {
  const { clock, pings, timeouts, hb } = setup();
  hb.start();
  clock.advance(5_000);
  assert.ok(clock.pending >= 1);
  hb.stop();
  assert.equal(clock.pending, 0);
  hb.start();
  assert.equal(clock.pending, 0);
  clock.advance(1_000_000);
  assert.equal(pings.length, 0);
  assert.equal(timeouts.length, 0);
  hb.stop(); // idempotent
});

test('start() twice keeps one timer', () => {
  const { clock, pings, hb } = setup();
  hb.start();
  hb.start();
  assert.equal(clock.pending, 1);
  clock.advance(10_000);
  assert.equal(pings.length, 1);
});

test('nothing runs before start()', () => {
  const { clock, pings, timeouts } = setup();
  clock.advance(100_000);
  assert.equal(pings.length + timeouts.length, 0);
  assert.equal(clock.pending, 0);
});

test('on a shared TimerWheel (the master): the timeout comes at most one tick late, never early', () => {
  const clock = new FakeClock(0);
  const wheel = new TimerWheel(clock, 500);
  const timeouts: number[] = [];
  const monitors = [0, 1, 2].map(
    () => new HeartbeatMonitor({ sendPing: () => undefined, onTimeout: () => timeouts.push(clock.monotonic()) }, clock, { intervalMs: 10_000, timeoutMs: 30_000, sendPings: false }, wheel),
  );
  for (const m of monitors) m.start();
  assert.equal(clock.pending, 1, 'one timer for all monitors');
  clock.advance(20_000);
  monitors[1]!.noteReceived();
  monitors[2]!.stop();
  clock.advance(9_999);
  assert.deepEqual(timeouts, []);
  clock.advance(501);
  assert.deepEqual(timeouts, [30_000]);
  clock.advance(19_499);
  assert.deepEqual(timeouts, [30_000]);
  clock.advance(501);
  assert.deepEqual(timeouts, [30_000, 50_000]);
  assert.equal(clock.pending, 0, 'nothing left scheduled');
});
