// Beacon timing (issue 25 point 6): Salt's per-beacon interval count (the first tick only starts
// it), and the runner's ticks on a fake clock (loop_interval apart, never overlapping a slow poll).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BeaconIntervals } from '../../../src/beacons/index.js';
import { BeaconRunner } from '../../../src/minion/beacons/beacon-runner.js';
import { FakeClock } from '../../../src/util/clock.js';
import { silentLogger } from '../../../src/util/logger.js';

test('interval: polls on the tick where ticks * loop_interval reaches it, then counts again', () => {
  const iv = new BeaconIntervals();
  // loop_interval 1 s, interval 3 s: tick 1 starts the count, ticks 2 and 3 count, tick 4 polls
  const polls = Array.from({ length: 10 }, () => iv.due('load', 3, 1));
  assert.deepEqual(polls, [false, false, false, true, false, false, true, false, false, true]);
  assert.equal(iv.due('other', 0, 1), true, 'no interval polls every tick');
  iv.forget('load');
  assert.equal(iv.due('load', 3, 1), false, 'a forgotten beacon starts its count again');
});

test('interval: a fractional loop_interval is counted the same way', () => {
  const iv = new BeaconIntervals();
  const polls = Array.from({ length: 12 }, () => iv.due('d', 1, 0.25));
  // 1 s at 0.25 s a tick: the count reaches 4 on the fifth tick
  assert.deepEqual(polls.map((p, i) => (p ? i + 1 : 0)).filter(Boolean), [5, 9]);
});

function runnerOn(clock: FakeClock, config: Record<string, unknown>, stateRunning = () => false) {
  const fired: { tag: string; data: Record<string, unknown> }[] = [];
  const runner = new BeaconRunner({
    id: 'm1',
    clock,
    logger: silentLogger(),
    loopIntervalS: 1,
    config: () => config,
    fire: (tag, data) => fired.push({ tag, data }),
    stateRunning,
    call: async () => true,
    disable: (name) => {
      config[name] = [...(config[name] as unknown[]), { enabled: false }];
    },
  });
  return { runner, fired };
}

/** Lets the runner's tick (a promise chain) finish after the clock fired it. */
const settle = () => new Promise((r) => setImmediate(r));

test('runner: ticks every loop_interval on the clock, fires salt/beacon/<id>/<name>/ with id, honours interval', async () => {
  const clock = new FakeClock();
  const { runner, fired } = runnerOn(clock, { memusage: [{ percent: '0%' }, { interval: 2 }] });
  runner.start();
  for (let s = 1; s <= 7; s++) {
    clock.advance(1000);
    await settle();
  }
  runner.stop();
  // ticks at 1..7 s; interval 2 with loop_interval 1: polls on the 3rd, 5th and 7th tick
  assert.equal(fired.length, 3, JSON.stringify(fired));
  assert.equal(fired[0]!.tag, 'salt/beacon/m1/memusage/');
  assert.equal(fired[0]!.data.id, 'm1');
  assert.equal(typeof fired[0]!.data.memusage, 'number');
  clock.advance(5000);
  await settle();
  assert.equal(fired.length, 3, 'nothing after stop');
});

test('runner: enabled: False (global and per beacon), run_once, disable_during_state_run, a bad config does not stop the others', async () => {
  const clock = new FakeClock();
  let stateRun = false;
  const config: Record<string, unknown> = {
    once: [{ beacon_module: 'memusage' }, { percent: '0%' }, { run_once: true }],
    off: [{ beacon_module: 'memusage' }, { percent: '0%' }, { enabled: false }],
    held: [{ beacon_module: 'memusage' }, { percent: '0%' }, { disable_during_state_run: true }],
    bad: [{ beacon_module: 'memusage' }, { percent: 'lots' }],
    nosuch: [{ foo: 1 }],
  };
  const { runner, fired } = runnerOn(clock, config, () => stateRun);
  const names = () => fired.map((f) => f.tag.split('/')[3]);
  await runner.tick();
  await runner.tick();
  assert.deepEqual(names(), ['once', 'held', 'held'], 'run_once fired once; off and the bad ones never');
  stateRun = true;
  await runner.tick();
  assert.deepEqual(names(), ['once', 'held', 'held'], 'held during the state run');
  stateRun = false;
  await runner.tick();
  assert.equal(names().filter((n) => n === 'held').length, 3);
  config.enabled = false;
  await runner.tick();
  assert.equal(fired.length, 4, 'enabled: False at the top stops all');
  runner.stop();
});

test('runner: disable_during_state_run skips a beacon without close() and keeps its state, as Salt does (only inotify is closed)', async () => {
  const clock = new FakeClock();
  let stateRun = false;
  const config: Record<string, unknown> = { service: [{ services: { nginx: { onchangeonly: true } } }, { disable_during_state_run: true }] };
  const { runner, fired } = runnerOn(clock, config, () => stateRun);
  await runner.tick();
  assert.equal(fired.length, 1, 'emitatstartup: the first poll fires');
  stateRun = true;
  await runner.tick();
  stateRun = false;
  await runner.tick();
  // a beacon made again after the state run would fire its start-up event a second time
  assert.equal(fired.length, 1, 'no change in the service, no event');
  runner.stop();
});
