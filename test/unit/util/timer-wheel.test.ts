// TimerWheel against a fake clock (issue 12: one timer for every session's silence check): a
// callback runs no earlier than asked and at most one tick later, cancel works from anywhere,
// and the wheel leaves no timer behind when it is empty or closed.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../../src/util/clock.js';
import { TimerWheel } from '../../../src/util/timer-wheel.js';

test('a callback runs at the first tick at or after its deadline, never before', () => {
  const clock = new FakeClock(0);
  const wheel = new TimerWheel(clock, 100);
  const ran: Array<[string, number]> = [];
  wheel.setTimeout(() => ran.push(['a', clock.monotonic()]), 250);
  wheel.setTimeout(() => ran.push(['b', clock.monotonic()]), 300);
  wheel.setTimeout(() => ran.push(['c', clock.monotonic()]), 0);
  clock.advance(249);
  assert.deepEqual(ran, [['c', 100]]);
  clock.advance(51);
  assert.deepEqual(ran, [
    ['c', 100],
    ['a', 300],
    ['b', 300],
  ]);
});

test('the deadline counts from the call, also when the wheel started between ticks', () => {
  const clock = new FakeClock(1_000_050);
  const wheel = new TimerWheel(clock, 100);
  let at = -1;
  wheel.setTimeout(() => (at = clock.monotonic()), 1000);
  clock.advance(999);
  assert.equal(at, -1);
  clock.advance(1);
  assert.equal(at, 1_001_050, 'ticks count from when the wheel started');
  wheel.setTimeout(() => (at = clock.monotonic()), 30);
  clock.advance(99);
  assert.equal(at, 1_001_050);
  clock.advance(1);
  assert.equal(at, 1_001_150, 'rounded up to the next tick');
});

test('cancel removes an entry, also one in the slot being run', () => {
  const clock = new FakeClock(0);
  const wheel = new TimerWheel(clock, 100);
  const ran: string[] = [];
  const a = wheel.setTimeout(() => ran.push('a'), 500);
  wheel.setTimeout(() => {
    ran.push('b');
    c.cancel();
  }, 500);
  const c = wheel.setTimeout(() => ran.push('c'), 500);
  a.cancel();
  a.cancel();
  clock.advance(1000);
  assert.deepEqual(ran, ['b']);
  assert.equal(wheel.size, 0);
});

test('a callback may schedule again, including with no delay (next tick)', () => {
  const clock = new FakeClock(0);
  const wheel = new TimerWheel(clock, 100);
  const ran: number[] = [];
  const again = () => {
    ran.push(clock.monotonic());
    if (ran.length < 3) wheel.setTimeout(again, 0);
  };
  wheel.setTimeout(again, 100);
  clock.advance(1000);
  assert.deepEqual(ran, [100, 200, 300]);
});

test('slots missed while the loop was blocked all run at the next tick, in order', () => {
  const clock = new FakeClock(0);
  let blocked = false;
  // a clock whose interval is late once, as after a long synchronous task
  const wheel = new TimerWheel(
    {
      now: () => clock.now(),
      monotonic: () => clock.monotonic() + (blocked ? 450 : 0),
      setTimeout: (fn, ms) => clock.setTimeout(fn, ms),
      setInterval: (fn, ms) => clock.setInterval(fn, ms),
    },
    100,
  );
  const ran: string[] = [];
  wheel.setTimeout(() => ran.push('200'), 200);
  wheel.setTimeout(() => ran.push('400'), 400);
  wheel.setTimeout(() => ran.push('900'), 900);
  blocked = true;
  clock.advance(100);
  assert.deepEqual(ran, ['200', '400']);
});

test('an empty wheel keeps no timer; close drops everything and ignores later calls', () => {
  const clock = new FakeClock(0);
  const wheel = new TimerWheel(clock, 100);
  assert.equal(clock.pending, 0);
  const h = wheel.setTimeout(() => undefined, 1000);
  assert.equal(clock.pending, 1, 'one timer for the wheel');
  for (let i = 0; i < 100; i++) wheel.setTimeout(() => undefined, 1000 + i * 10);
  assert.equal(clock.pending, 1, 'still one timer for 101 entries');
  h.cancel();
  clock.advance(3000);
  assert.equal(wheel.size, 0);
  assert.equal(clock.pending, 0, 'the timer stops once the wheel is empty');
  let ran = false;
  wheel.setTimeout(() => (ran = true), 100);
  wheel.close();
  assert.equal(clock.pending, 0);
  wheel.setTimeout(() => (ran = true), 100);
  clock.advance(1000);
  assert.equal(ran, false);
});

test('a throwing callback does not stop the rest of its slot', () => {
  const clock = new FakeClock(0);
  const errors: unknown[] = [];
  const wheel = new TimerWheel(clock, 100, (err) => errors.push(err));
  const ran: string[] = [];
  wheel.setTimeout(() => {
    throw new Error('boom');
  }, 100);
  wheel.setTimeout(() => ran.push('after'), 100);
  clock.advance(100);
  assert.deepEqual(ran, ['after']);
  assert.equal((errors[0] as Error | undefined)?.message, 'boom');
});

test('deadlines set far ahead and cancelled early (carried acks, every round) do not pile up in the slots', () => {
  const clock = new FakeClock(0);
  const wheel = new TimerWheel(clock, 100);
  const keep = wheel.setTimeout(() => undefined, 60_000);
  // 300,000 deadlines 5 s ahead, each cancelled before the next is set, the clock moving 1 ms each
  for (let i = 0; i < 300_000; i++) {
    wheel.setTimeout(() => assert.fail('a cancelled entry ran'), 5000).cancel();
    if (i % 100 === 0) clock.advance(1);
  }
  assert.equal(wheel.size, 1, 'only the kept entry is scheduled');
  assert.ok(wheel.held <= 2 * 65_536 + 1, `cancelled entries are swept out: ${wheel.held} held`);
  let ran = 0;
  keep.cancel();
  wheel.setTimeout(() => ran++, 100);
  clock.advance(100_000);
  assert.equal(ran, 1);
  assert.equal(wheel.size, 0);
  assert.equal(wheel.held, 0);
  assert.equal(clock.pending, 0, 'the timer stops once only cancelled entries were left');
});

test('a handle cancelled after it ran, or twice, or after close changes nothing', () => {
  const clock = new FakeClock(0);
  const wheel = new TimerWheel(clock, 100);
  const ran: string[] = [];
  const a = wheel.setTimeout(() => ran.push('a'), 100);
  const b = wheel.setTimeout(() => ran.push('b'), 300);
  clock.advance(100);
  a.cancel();
  a.cancel();
  assert.equal(wheel.size, 1, 'b is still scheduled');
  clock.advance(200);
  assert.deepEqual(ran, ['a', 'b']);
  b.cancel();
  assert.equal(wheel.size, 0);
  const c = wheel.setTimeout(() => ran.push('c'), 100);
  wheel.close();
  c.cancel();
  assert.equal(wheel.size, 0);
  clock.advance(1000);
  assert.deepEqual(ran, ['a', 'b']);
});
