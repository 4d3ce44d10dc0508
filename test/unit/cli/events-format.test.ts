// `brine events` lines as Salt's state.event prints them (issue 25 point 1): tag, tab, and
// json.dumps with Python's separators; pretty=True sorts keys at every depth and indents by 4;
// minion-supplied text stays on one line with no raw control character (threats.md #32).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatEvent } from '../../../src/cli/commands/events.js';

test("one line: json.dumps(data) with ', ' and ': '", () => {
  const data = { cmd: '_return', id: 'web1', success: true, return: true, retcode: 0, jid: '20261207060203045000', fun: 'test.ping', fun_args: [], _stamp: '2026-12-07T06:02:03.045000' };
  assert.equal(
    formatEvent('salt/job/20261207060203045000/ret/web1', data, false),
    'salt/job/20261207060203045000/ret/web1\t{"cmd": "_return", "id": "web1", "success": true, "return": true, "retcode": 0, "jid": "20261207060203045000", "fun": "test.ping", "fun_args": [], "_stamp": "2026-12-07T06:02:03.045000"}\n',
  );
});

test('pretty: sort_keys at every depth, indent 4', () => {
  assert.equal(
    formatEvent('t', { b: { z: 1, a: [1, { y: 2, x: 3 }] }, a: {} }, true),
    't\t{\n    "a": {},\n    "b": {\n        "a": [\n            1,\n            {\n                "x": 3,\n                "y": 2\n            }\n        ],\n        "z": 1\n    }\n}\n',
  );
});

test("minion-supplied text cannot break the line or move the terminal's cursor, and stays valid JSON", () => {
  const evil = 'x\n\u001b[2J\u0085\u202e';
  const line = formatEvent(`salt/beacon/${evil}/inotify/`, { agent: evil }, false);
  assert.equal(line.split('\n').length, 2, 'one line');
  assert.doesNotMatch(line.slice(0, -1), /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u202e]/);
  const json = line.slice(line.indexOf('\t') + 1);
  assert.deepEqual(JSON.parse(json), { agent: evil }, 'the exact value once parsed');
});
