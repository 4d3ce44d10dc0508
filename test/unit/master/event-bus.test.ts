// EventBus (issue 27, pingflush): with nobody subscribed a typed event is counted and observed
// but its Salt events are not built; a subscriber that comes later gets every event from then
// on, stamped, in Salt's shapes; one that leaves stops getting them.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventBus } from '../../../src/master/event-bus.js';
import type { BrineEvent, SaltEvent } from '../../../src/protocol/index.js';

const AT = Date.UTC(2026, 11, 7, 6, 2, 3, 45);
const ret = (minion: string): BrineEvent => ({ kind: 'job_return', jid: '20261207060203045000', minion, fun: 'test.ping', funArgs: [], user: 'root', ret: true, retcode: 0, success: true, at: AT });
const connected: BrineEvent = { kind: 'minion_connected', id: 'web1', remote: '127.0.0.1:4506', agent: 'brine', at: AT };

test('no subscriber: observers and counts see every typed event, fired counts the Salt events it stands for', () => {
  const bus = new EventBus({ now: () => AT });
  const observed: string[] = [];
  bus.observe((e) => observed.push(e.kind));
  bus.emit(ret('a'));
  bus.emit(ret('b'));
  bus.emit(connected);
  assert.deepEqual(observed, ['job_return', 'job_return', 'minion_connected']);
  assert.equal(bus.counts.get('job_return'), 2);
  assert.equal(bus.fired, 2 + 3, 'a return is one Salt event, a connection three');
});

test('a subscriber that comes later gets the next events whole and stamped; after it leaves, none', () => {
  const bus = new EventBus({ now: () => AT });
  bus.emit(ret('before'));
  const got: SaltEvent[] = [];
  const sub = bus.subscribe((e) => got.push(e));
  bus.emit(ret('web1'));
  bus.emit(connected);
  assert.deepEqual(
    got.map((e) => e.tag),
    ['salt/job/20261207060203045000/ret/web1', 'salt/minion/web1/start', 'minion_start', 'brine/minion/web1/connected'],
  );
  assert.deepEqual(got[0]?.data, {
    cmd: '_return',
    id: 'web1',
    success: true,
    return: true,
    retcode: 0,
    jid: '20261207060203045000',
    fun: 'test.ping',
    fun_args: [],
    user: 'root',
    _stamp: '2026-12-07T06:02:03.045000',
  });
  assert.equal(got[0]?.kind, 'job_return');
  sub.dispose();
  bus.emit(ret('after'));
  assert.equal(got.length, 4);
  assert.equal(bus.fired, 1 + 4 + 1);
});
