// saltEventsOf (issue 25 point 1): each typed event becomes the events Salt 3007 fires for the
// same moment, keys in the order Salt builds its dicts (json.dumps prints them in that order):
// salt/master.py _prep_pub, salt/minion.py _return_pub/_thread_return/_fire_master,
// salt/channel/server.py _auth, salt/key.py, Maintenance.handle_presence, rest_cherrypy Webhook.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hookMeta, saltArgs, saltEventsOf, saltOutputterOf, saltStamp } from '../../../src/protocol/index.js';

const AT = Date.UTC(2026, 11, 7, 6, 2, 3, 45);
const shape = (events: Array<{ tag: string; data: Record<string, unknown> }>) => events.map((e) => [e.tag, Object.keys(e.data)]);

test('_stamp is datetime.utcnow().isoformat(): six fraction digits, none when the fraction is zero', () => {
  assert.equal(saltStamp(AT), '2026-12-07T06:02:03.045000');
  assert.equal(saltStamp(Date.UTC(2026, 0, 1, 0, 0, 0, 0)), '2026-01-01T00:00:00');
});

test('_stamp of a repeated millisecond is the same text, and the next millisecond its own', () => {
  // saltStamp keeps the last one it formatted (a flush's returns share their millisecond)
  assert.equal(saltStamp(AT), '2026-12-07T06:02:03.045000');
  assert.equal(saltStamp(AT), '2026-12-07T06:02:03.045000');
  assert.equal(saltStamp(AT + 1), '2026-12-07T06:02:03.046000');
  assert.equal(saltStamp(AT - 45), '2026-12-07T06:02:03');
  assert.equal(saltStamp(AT), '2026-12-07T06:02:03.045000');
});

test('a publish: the bare <jid> event, then salt/job/<jid>/new in _prep_pub order', () => {
  const events = saltEventsOf({
    kind: 'job_published',
    jid: '20261207060203045000',
    fun: 'test.arg',
    arg: ['a'],
    kwarg: { b: 1 },
    tgt: 'web*',
    tgtType: 'glob',
    user: 'root',
    minions: ['web1'],
    missing: [],
    notConnected: [],
    at: AT,
  });
  assert.deepEqual(shape(events), [
    ['20261207060203045000', ['minions']],
    ['salt/job/20261207060203045000/new', ['jid', 'tgt_type', 'tgt', 'user', 'fun', 'arg', 'minions', 'missing']],
  ]);
  assert.deepEqual(events[1]?.data.arg, ['a', { b: 1, __kwarg__: true }], 'keyword arguments as the published __kwarg__ dict');
});

test('a return: {cmd, id} then the return dict in _thread_return order; user when published; out as Salt names it', () => {
  const base = { kind: 'job_return' as const, jid: '1', minion: 'web1', funArgs: [], ret: true, retcode: 0, success: true, at: AT };
  assert.deepEqual(shape(saltEventsOf({ ...base, fun: 'test.ping', user: 'alice' })), [['salt/job/1/ret/web1', ['cmd', 'id', 'success', 'return', 'retcode', 'jid', 'fun', 'fun_args', 'user']]]);
  assert.deepEqual(shape(saltEventsOf({ ...base, fun: 'state.apply', out: 'highstate' })), [['salt/job/1/ret/web1', ['cmd', 'id', 'success', 'return', 'retcode', 'jid', 'fun', 'fun_args', 'out']]]);
  assert.equal(saltOutputterOf('state.apply', false), 'highstate');
  assert.equal(saltOutputterOf('state.sls', false), 'highstate');
  assert.equal(saltOutputterOf('state.show_sls', false), undefined, 'not in state.py __outputter__');
  assert.equal(saltOutputterOf('grains.items', false), 'nested');
  assert.equal(saltOutputterOf('test.ping', false), undefined);
  assert.equal(saltOutputterOf('test.ping', true), 'nested', 'a function that failed to run');
  assert.deepEqual(saltArgs([], {}), []);
});

test('salt/auth: {result, act, id, pub} for every outcome (denied: id before act); brine detail under brine/auth', () => {
  const pub = '-----BEGIN PUBLIC KEY-----\nX\n-----END PUBLIC KEY-----\n';
  assert.deepEqual(saltEventsOf({ kind: 'auth_accepted', id: 'web1', remote: '10.0.0.1:5', pub, at: AT }), [{ tag: 'salt/auth', data: { result: true, act: 'accept', id: 'web1', pub } }]);
  const pend = saltEventsOf({ kind: 'auth_pending', id: 'new1', remote: '10.0.0.2:5', fingerprint: 'aa', pub, at: AT });
  assert.deepEqual(pend[0], { tag: 'salt/auth', data: { result: true, act: 'pend', id: 'new1', pub } });
  assert.equal(pend[1]?.tag, 'brine/auth/new1/pending');
  const full = saltEventsOf({ kind: 'auth_rejected', id: 'n', remote: 'r', fingerprint: 'f', pub, reason: 'max_minions', full: true, at: AT });
  assert.deepEqual(full[0]?.data, { result: false, act: 'full', id: 'n', pub });
  const rej = saltEventsOf({ kind: 'auth_rejected', id: 'n', remote: 'r', fingerprint: 'f', pub, reason: 'rejected', full: false, at: AT });
  assert.equal(rej[0]?.data.act, 'reject');
  assert.equal(rej[1]?.tag, 'brine/auth/n/rejected');
  const denied = saltEventsOf({ kind: 'key_mismatch', id: 'web1', remote: 'r', acceptedFingerprint: 'a', presentedFingerprint: 'b', pub, at: AT });
  assert.deepEqual(Object.keys(denied[0]?.data ?? {}), ['result', 'id', 'act', 'pub']);
  assert.equal(denied[1]?.tag, 'brine/auth/web1/key_mismatch');
});

test('salt/key, presence, minion start and the webhook in Salt order', () => {
  assert.deepEqual(saltEventsOf({ kind: 'key_changed', id: 'web1', act: 'delete', at: AT }), [{ tag: 'salt/key', data: { result: true, act: 'delete', id: 'web1' } }]);
  assert.deepEqual(saltEventsOf({ kind: 'presence_change', new: ['a'], lost: [], at: AT }), [{ tag: 'salt/presence/change', data: { new: ['a'], lost: [] } }]);
  assert.deepEqual(saltEventsOf({ kind: 'presence_present', present: ['a'], at: AT }), [{ tag: 'salt/presence/present', data: { present: ['a'] } }]);
  const start = saltEventsOf({ kind: 'minion_connected', id: 'web1', remote: 'r', agent: 'brine/1', at: AT });
  assert.deepEqual(
    start.map((e) => e.tag),
    ['salt/minion/web1/start', 'minion_start', 'brine/minion/web1/connected'],
  );
  assert.deepEqual(start[0]?.data, { id: 'web1', cmd: '_minion_event', pretag: null, data: 'Minion web1 started at Mon Dec  7 06:02:03 2026', tag: 'salt/minion/web1/start' });
  const hook = saltEventsOf({ kind: 'api_hook', path: 'deploy', user: 'ci', body: { v: 1 }, ...hookMeta('{"v": 1}', { 'Content-Type': 'application/json', Bad: 3 }), at: AT });
  assert.deepEqual(hook, [{ tag: 'salt/netapi/hook/deploy', data: { body: '{"v": 1}', post: { v: 1 }, headers: { 'Content-Type': 'application/json' }, user: 'ci' } }]);
});
