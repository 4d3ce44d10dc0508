// `brine run --progress` (issue 26): the line printed for each salt/job/<jid>/prog/<id>/<n>
// event, Salt's terse highstate line in the outputter's colours; events before the publish named
// the jid are kept, other jobs' are ignored, and several minions get their id first.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { progressLineOf, StateProgressPrinter, wantsStateProgress } from '../../../src/cli/run/state-progress.js';
import { terseStateLine } from '../../../src/cli/output/index.js';

const JID = '20261207110000123456';
const OTHER = '20261207110000999999';

function event(jid: string, minion: string, n: number, fun: string, ret: Record<string, unknown>) {
  const tag = `salt/job/${jid}/prog/${minion}/${n}`;
  return { tag, data: { cmd: '_minion_event', data: { ret: { __run_num__: n, ...ret }, len: 3, fun }, id: minion, jid, tag } };
}

const first = event(JID, 'p1', 0, 'test.succeed_without_changes', { __id__: 'first', name: 'first', result: true, changes: {}, comment: 'ok', start_time: '11:00:00.000100', duration: 0.5 });
const slow = event(JID, 'p1', 1, 'cmd.run', { __id__: 'slow', name: 'sleep 2', result: true, changes: { retcode: 0 }, comment: '', start_time: '11:00:00.001000', duration: 2004 });
const failed = event(JID, 'p1', 2, 'cmd.run', { __id__: 'bad', name: 'false', result: false, changes: {}, comment: 'Command "false" run', start_time: '11:00:02.1', duration: 3.25 });

test("Salt's terse line: Name, Function, Result Clean/Changed/Failed, Started, Duration", () => {
  assert.equal(progressLineOf(first, false)?.line, '  Name: first - Function: test.succeed_without_changes - Result: Clean - Started: 11:00:00.000100 - Duration: 0.5 ms');
  assert.equal(progressLineOf(slow, false)?.line, '  Name: sleep 2 - Function: cmd.run - Result: Changed - Started: 11:00:00.001000 - Duration: 2004.0 ms');
  assert.equal(progressLineOf(failed, false)?.line, '  Name: false - Function: cmd.run - Result: Failed - Started: 11:00:02.1 - Duration: 3.25 ms');
  assert.equal(progressLineOf({ tag: `salt/job/${JID}/ret/p1`, data: {} }, false), undefined, 'not a progress event');
  assert.equal(progressLineOf({ tag: `salt/job/${JID}/prog/p1/0`, data: { data: 'x' } }, false), undefined, 'malformed data');
});

test('coloured as the highstate outputter: green clean, cyan changed, red failed', () => {
  assert.ok(progressLineOf(first, true)!.line.includes('\x1b[0;32m'));
  assert.ok(progressLineOf(slow, true)!.line.includes('\x1b[0;36m'));
  assert.ok(progressLineOf(failed, true)!.line.includes('\x1b[0;31m'));
  assert.equal(terseStateLine('cmd_|-a_|-b_|-run', { result: null, changes: {} }, false), '  Name: b - Function: cmd.run - Result: Differs');
});

test("events before the jid is known are kept, other jobs' ignored; several minions: the id first", () => {
  const lines: string[] = [];
  const p = new StateProgressPrinter({ print: (l) => lines.push(l), color: false });
  p.onEvent(first);
  p.onEvent(event(OTHER, 'p1', 0, 'cmd.run', { __id__: 'x', name: 'x', result: true, changes: {} }));
  assert.deepEqual(lines, []);
  p.published(JID, 1);
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /^ {2}Name: first /);
  p.onEvent(event(OTHER, 'p1', 1, 'cmd.run', { __id__: 'y', name: 'y', result: true, changes: {} }));
  assert.equal(lines.length, 1);
  const multi: string[] = [];
  const q = new StateProgressPrinter({ print: (l) => multi.push(l), color: false });
  q.published(JID, 2);
  q.onEvent(slow);
  assert.match(multi[0]!, /^p1: {2}Name: sleep 2 - Function: cmd\.run/);
});

test('--progress applies to state runs on a terminal, not to batches or other functions', () => {
  assert.equal(wantsStateProgress({ progress: true, fun: 'state.apply', terminal: true, batch: false }), true);
  assert.equal(wantsStateProgress({ progress: true, fun: 'state.highstate', terminal: true, batch: false }), true);
  assert.equal(wantsStateProgress({ progress: true, fun: 'state.apply', terminal: false, batch: false }), false);
  assert.equal(wantsStateProgress({ progress: false, fun: 'state.apply', terminal: true, batch: false }), false);
  assert.equal(wantsStateProgress({ progress: true, fun: 'state.apply', terminal: true, batch: true }), false);
  assert.equal(wantsStateProgress({ progress: true, fun: 'test.ping', terminal: true, batch: false }), false);
});
