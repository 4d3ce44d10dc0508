// Which tags a minion may fire (threats.md #4, #19; issue 25 point 2) and what the master fires:
// the session's ID, never the payload's; Salt's _minion_event wrapping; beacons on their own
// salt/beacon/<id>/ only.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decideMinionEvent, reservedTagReason } from '../../../src/master/minion-event-policy.js';

test('reserved namespaces are refused, also when disguised', () => {
  for (const tag of [
    'salt/job/20260101000000000000/ret/m2',
    'salt/job/x/publish',
    'salt/auth',
    'salt/key',
    'salt/presence/change',
    'salt/run/1/new',
    'salt/wheel/1/ret',
    'salt/netapi/hook/x',
    'brine/job/1',
    '20260101000000000000',
    '/salt/job/1/new',
    'salt//job/1/new',
    ' SALT/Key',
    'salt/minion/m2/start',
    'salt/beacon/m2/inotify/',
    'myco/\nsalt/job/1',
  ]) {
    assert.notEqual(reservedTagReason('m1', tag), undefined, tag);
  }
  for (const tag of ['myco/build/done', 'salt/minion/m1/start', 'salt/beacon/m1/inotify//etc', 'minion_start', 'salt/jobs-report', 'custom']) {
    assert.equal(reservedTagReason('m1', tag), undefined, tag);
  }
});

test("fire_master is wrapped as Salt's master fires a minion's load; the ID is the session's", () => {
  const v = decideMinionEvent('m1', { t: 'minion_event', kind: 'fire_master', tag: 'myco/x', data: { id: 'm2', a: 1 } });
  assert.ok(v.ok);
  assert.deepEqual(v.event, { tag: 'myco/x', data: { cmd: '_minion_event', data: { id: 'm2', a: 1 }, id: 'm1', pretag: null, tag: 'myco/x' } });
});

test('a beacon event is fired as its data with the session ID, on its own salt/beacon/<id>/ only', () => {
  const v = decideMinionEvent('m1', { t: 'minion_event', kind: 'beacon', tag: 'salt/beacon/m1/load/', data: { '1m': 3, id: 'm2' } });
  assert.ok(v.ok);
  assert.deepEqual(v.event, { tag: 'salt/beacon/m1/load/', data: { '1m': 3, id: 'm1' } });
  const other = decideMinionEvent('m1', { t: 'minion_event', kind: 'beacon', tag: 'myco/x', data: {} });
  assert.ok(!other.ok);
  assert.equal(other.error.code, 'EVENT_TAG_RESERVED');
});
