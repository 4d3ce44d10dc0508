// presence_events (issue 25 point 1): Salt's Maintenance.handle_presence, round by round on a
// fake clock (the timing is the point), through a real EventBus so the tags and payloads are the
// ones subscribers get.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventBus } from '../../../src/master/event-bus.js';
import { PresenceEvents } from '../../../src/master/features/presence-events.js';
import type { SaltEvent } from '../../../src/protocol/index.js';
import { FakeClock } from '../../../src/util/clock.js';

function setup(intervalS: number) {
  const clock = new FakeClock(Date.UTC(2026, 11, 7, 6, 12, 0, 250));
  const bus = new EventBus(clock);
  const seen: SaltEvent[] = [];
  bus.subscribe((e) => seen.push(e));
  let connected: string[] = [];
  const feature = new PresenceEvents({ events: bus, clock, connected: () => connected, intervalS });
  return { clock, seen, feature, set: (ids: string[]) => (connected = ids) };
}

test('every loop_interval: change (when the set changed) before present; nothing before the first interval', () => {
  const { clock, seen, feature, set } = setup(60);
  set(['web1', 'web2']);
  feature.start();
  clock.advance(59_999);
  assert.equal(seen.length, 0, 'the first round is one interval after start');
  clock.advance(1);
  assert.deepEqual(
    seen.map((e) => [e.tag, { ...e.data }]),
    [
      ['salt/presence/change', { new: ['web1', 'web2'], lost: [], _stamp: '2026-12-07T06:13:00.250000' }],
      ['salt/presence/present', { present: ['web1', 'web2'], _stamp: '2026-12-07T06:13:00.250000' }],
    ],
    'the first round reports everyone as new, as Salt (old_present starts empty)',
  );
  seen.length = 0;
  clock.advance(60_000);
  assert.deepEqual(
    seen.map((e) => e.tag),
    ['salt/presence/present'],
    'no change event when the set is the same',
  );
  seen.length = 0;
  set(['web2', 'db1']);
  clock.advance(60_000);
  assert.deepEqual(
    seen.map((e) => [e.tag, { ...e.data, _stamp: undefined }]),
    [
      ['salt/presence/change', { new: ['db1'], lost: ['web1'], _stamp: undefined }],
      ['salt/presence/present', { present: ['web2', 'db1'], _stamp: undefined }],
    ],
  );
  feature.stop();
  seen.length = 0;
  clock.advance(600_000);
  assert.equal(seen.length, 0, 'stopped: no more rounds');
  assert.equal(clock.pending, 0, 'the timer is gone');
});

test('a minion that connects and leaves between two rounds is never reported (Salt samples)', () => {
  const { clock, seen, feature, set } = setup(1);
  feature.start();
  clock.advance(1000);
  set(['flap']);
  set([]);
  clock.advance(1000);
  assert.deepEqual(
    seen.map((e) => e.tag),
    ['salt/presence/present', 'salt/presence/present'],
  );
  assert.deepEqual(seen[1]?.data.present, []);
});
