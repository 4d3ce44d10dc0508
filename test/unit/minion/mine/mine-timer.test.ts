// When mine.update runs, with a fake clock: not before a master session, at the first session,
// every interval after it, again at a later session, and never two at once (a request during a
// run makes exactly one more).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../../../src/util/clock.js';
import { MineTimer } from '../../../../src/minion/mine/mine-timer.js';
import { settle } from '../../../helpers/wait.js';

/** Lets the timer's promise callbacks run. */

test('first run at the first session, then every interval; stop ends it', async () => {
  const clock = new FakeClock();
  let runs = 0;
  const timer = new MineTimer(clock, 60_000, async () => {
    runs++;
  });
  clock.advance(600_000);
  assert.equal(runs, 0, 'nothing before a master session');
  timer.onReady();
  await settle();
  assert.equal(runs, 1);
  clock.advance(59_999);
  await settle();
  assert.equal(runs, 1);
  clock.advance(1);
  await settle();
  assert.equal(runs, 2);
  timer.onReady();
  await settle();
  assert.equal(runs, 3, 'a later session (restarted master) gets the mine at once');
  clock.advance(60_000);
  await settle();
  assert.equal(runs, 4, 'one interval, not two');
  timer.stop();
  clock.advance(600_000);
  timer.trigger();
  await settle();
  assert.equal(runs, 4);
  assert.equal(clock.pending, 0);
});

test('runs never overlap: requests during a run coalesce into one more run; a failed run does not stop the timer', async () => {
  const clock = new FakeClock();
  const finishers: Array<() => void> = [];
  let runs = 0;
  const timer = new MineTimer(clock, 1000, () => {
    runs++;
    if (runs === 1) return Promise.reject(new Error('master went away'));
    return new Promise<void>((resolve) => finishers.push(resolve));
  });
  timer.onReady();
  await settle();
  assert.equal(runs, 1);
  clock.advance(1000);
  await settle();
  assert.equal(runs, 2);
  assert.equal(timer.busy, true);
  clock.advance(1000);
  timer.trigger();
  clock.advance(1000);
  await settle();
  assert.equal(runs, 2, 'no second run while one is in flight');
  finishers.shift()!();
  await settle();
  await settle();
  assert.equal(runs, 3, 'exactly one more run');
  finishers.shift()!();
  await settle();
  assert.equal(timer.busy, false);
  timer.stop();
});
