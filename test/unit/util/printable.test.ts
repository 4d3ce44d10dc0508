// Issue 8 point 4 / threats.md #32: peer-supplied text cannot forge a log line or drive a
// terminal. printable() is the one escaping function; these tests pin what it must guarantee.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { escapeRawInJson, printable, printableJson, unprintable } from '../../../src/util/printable.js';
import { createLogger } from '../../../src/util/logger.js';

/** C0, DEL, C1, line/paragraph separators, bidi controls: none may reach a terminal raw. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

// strings biased towards the characters that matter, plus arbitrary unicode
const hostile = fc.oneof(
  fc.string({ unit: fc.constantFrom('\n', '\r', '\0', '\x1b', '[', '3', '1', 'm', '\\', 'n', 'x', 'e', '0', '\x9b', '\u202e', '\u2028', '\x7f', 'a', ' ') }),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'grapheme' }),
);

test('printable: the output never contains a C0/C1 control, DEL, a line separator or a bidi control', () => {
  fc.assert(
    fc.property(hostile, (s) => !UNSAFE.test(printable(s))),
    { numRuns: 2000 },
  );
});

test('printable: reversible, so distinct inputs always print distinctly', () => {
  fc.assert(
    fc.property(hostile, (s) => unprintable(printable(s)) === s),
    { numRuns: 2000 },
  );
  fc.assert(
    fc.property(hostile, hostile, (a, b) => a === b || printable(a) !== printable(b)),
    { numRuns: 2000 },
  );
});

test('printable: ordinary text is unchanged, and escapes are the readable ones', () => {
  assert.equal(printable('web-01.example.com brine/0.1.0 (node v20)'), 'web-01.example.com brine/0.1.0 (node v20)');
  assert.equal(printable('a\nb\rc\td\0e\x1b[31mf'), 'a\\nb\\rc\\td\\0e\\e[31mf');
  assert.equal(printable('\x07\x9b\u202e'), '\\x07\\x9b\\u202e');
  // a literal backslash-n must not print like a newline does
  assert.notEqual(printable('a\\nb'), printable('a\nb'));
});

test('printableJson: still JSON with the same value, with no raw unsafe character inside strings', () => {
  fc.assert(
    fc.property(fc.dictionary(hostile, fc.oneof(hostile, fc.integer(), fc.array(hostile)), { noNullPrototype: true }), (obj) => {
      const one = printableJson(obj);
      assert.ok(!UNSAFE.test(one), one);
      assert.deepEqual(JSON.parse(one), obj);
      const indented = printableJson(obj, 4);
      // the layout newlines stay, everything else is escaped
      assert.ok(!UNSAFE.test(indented.replace(/\n/g, '')), indented);
      assert.deepEqual(JSON.parse(indented), obj);
    }),
    { numRuns: 500 },
  );
  assert.equal(escapeRawInJson('{"a":"\x9b\u202e"}\n'), '{"a":"\\u009b\\u202e"}\n');
});

function capture(format: 'text' | 'json'): { lines: string[]; log: ReturnType<typeof createLogger> } {
  const lines: string[] = [];
  return { lines, log: createLogger({ name: 'master', level: 'info', format, write: (l) => lines.push(l) }) };
}

const FORGED = 'evil\n2026-01-01 00:00:00.000 [master][INFO    ] minion web1 connected\x1b[2J\x1b]0;owned\x07\r\u202e';

test('text log: a peer-supplied id, agent and message stay on one line with no raw control byte', () => {
  const { lines, log } = capture('text');
  log.info({ id: FORGED, agent: FORGED, nested: { reason: FORGED }, err: new Error(FORGED) }, `minion ${FORGED} connected`);
  assert.equal(lines.length, 1);
  const line = lines[0]!;
  assert.ok(line.endsWith('\n'));
  const body = line.slice(0, -1);
  assert.ok(!UNSAFE.test(body), JSON.stringify(body));
  // the forged header is still there, but as visible text after an escaped \n on the same line
  assert.equal(body.indexOf('[master][INFO    ]'), body.lastIndexOf('[master][INFO    ] minion evil'), body);
  assert.ok(body.includes('minion evil\\n2026-01-01'), body);
  assert.ok(body.includes('\\e[2J'), body);
});

test('json log: one line, valid JSON, the same text, and no raw C1 or bidi character', () => {
  const { lines, log } = capture('json');
  log.info({ id: FORGED, agent: `x\x9by` }, `minion ${FORGED} connected`);
  assert.equal(lines.length, 1);
  const body = lines[0]!.replace(/\n$/, '');
  assert.ok(!UNSAFE.test(body), JSON.stringify(body));
  const rec = JSON.parse(body) as Record<string, unknown>;
  assert.equal(rec.id, FORGED);
  assert.equal(rec.agent, 'x\x9by');
});
