// Salt's state_events on the wire (issue 26): a finished state's return within the event size
// limit (changes, then the comment, shortened first; the job's return keeps all of it), and the
// master's Salt event for it: salt/job/<jid>/prog/<id>/<n> with Salt's _minion_event load.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { boundedProgressRet, decodeMessage, encodeMessage, MAX_EVENT_JSON, MINION_MESSAGES, PROGRESS_COMMENT_MAX, stateProgressMessage } from '../../../src/protocol/index.js';
import { STATE_PROGRESS_BURST, StateProgressEvents, stateFunctionOf, stateProgressEvent } from '../../../src/master/features/state-progress.js';
import { FakeClock } from '../../../src/util/clock.js';
import { createLogger } from '../../../src/util/logger.js';

const JID = '20261207110000123456';
const ret = {
  name: 'sleep 2',
  result: true,
  changes: { pid: 4, retcode: 0 },
  comment: 'Command "sleep 2" run',
  __id__: 'slow',
  __sls__: 'progress',
  __run_num__: 1,
  start_time: '11:00:00.000001',
  duration: 2004.2,
};

test('a state that fits is sent unchanged, and the message decodes as a minion message', () => {
  const m = stateProgressMessage(JID, { n: 1, len: 3, tag: 'cmd_|-slow_|-sleep 2_|-run', ret });
  assert.ok(m);
  assert.deepEqual(m.ret, ret);
  const frame = encodeMessage(m);
  // encodeMessage frames with a 4-byte length; the payload after it is what decodeMessage reads
  const back = decodeMessage(frame.subarray(4), MINION_MESSAGES);
  assert.deepEqual(back, m);
});

test('large changes are replaced by a note naming their size; a huge comment is cut; the result stays under the limit', () => {
  const big = { ...ret, changes: { diff: 'x'.repeat(MAX_EVENT_JSON) } };
  const b = boundedProgressRet(big);
  assert.ok(JSON.stringify(b).length <= MAX_EVENT_JSON);
  assert.match(String((b.changes as Record<string, unknown>).__omitted__), /^\d+ characters of JSON/);
  assert.equal(b.comment, ret.comment, 'the comment is kept when dropping the changes is enough');
  assert.equal(b.start_time, ret.start_time);
  const both = { ...big, comment: 'y'.repeat(MAX_EVENT_JSON) };
  const c = boundedProgressRet(both);
  assert.ok(JSON.stringify(c).length <= MAX_EVENT_JSON);
  assert.ok(String(c.comment).startsWith('y'.repeat(PROGRESS_COMMENT_MAX)));
  assert.match(String(c.comment), /shortened; the job's return has all of it/);
  // the original is not touched (the job's return is built from it)
  assert.equal((big.changes as { diff: string }).diff.length, MAX_EVENT_JSON);
});

test('a tag over the limit is not sent; len is at least 1', () => {
  assert.equal(stateProgressMessage(JID, { n: 0, len: 1, tag: 'x'.repeat(5000), ret }), undefined);
  assert.equal(stateProgressMessage(JID, { n: 0, len: 0, tag: 'a_|-b_|-c_|-d', ret })?.len, 1);
});

test("the master fires Salt's tag and load: {cmd, data: {ret, len}, id, jid, tag}, with the session's id", () => {
  const e = stateProgressEvent('web1', { t: 'state_progress', jid: JID, n: 2, len: 3, tag: 'file_|-motd_|-/etc/motd_|-managed', ret });
  assert.equal(e.tag, `salt/job/${JID}/prog/web1/2`);
  assert.deepEqual(e.data, { cmd: '_minion_event', data: { ret, len: 3, fun: 'file.managed' }, id: 'web1', jid: JID, tag: `salt/job/${JID}/prog/web1/2` });
  assert.equal(stateFunctionOf('not a tag'), undefined);
});

test('progress beyond the per-minion rate is dropped and counted, one warning; the bucket refills with time', () => {
  const clock = new FakeClock();
  const lines: string[] = [];
  const fired: string[] = [];
  const feature = new StateProgressEvents({
    events: {
      fire: (tag, data) => {
        fired.push(tag);
        return { tag, data };
      },
    },
    clock,
    logger: createLogger({ name: 'test', level: 'warning', format: 'json', write: (l) => lines.push(l) }),
    ratePerSecond: 10,
    burst: 5,
  });
  const s = { id: 'web1' };
  const msg = (n: number) => ({ t: 'state_progress' as const, jid: JID, n, len: 100, tag: 'a_|-b_|-c_|-d', ret });
  for (let n = 0; n < 8; n++) assert.equal(feature.onMessage(msg(n), s), true);
  assert.equal(fired.length, 5);
  assert.deepEqual(feature.counts, { fired: 5, dropped: 3 });
  assert.equal(lines.length, 1);
  clock.advance(1000);
  feature.onMessage(msg(8), s);
  assert.equal(fired.at(-1), `salt/job/${JID}/prog/web1/8`);
  assert.equal(feature.onMessage({ t: 'ping', seq: 1 }, s), false, 'other messages are not taken');
  assert.ok(STATE_PROGRESS_BURST >= 100, 'a normal state run fits in one burst');
});
