import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JidGenerator, isJid, assertJid, formatJid, jidToEpochMs } from '../../../src/jobs/index.js';
import { FakeClock } from '../../../src/util/clock.js';
import { isBrineError } from '../../../src/util/errors.js';

test('a jid is the UTC time as %Y%m%d%H%M%S%f', () => {
  // 2013-12-19T21:56:50.131Z, the example from Salt's docs (UTC, not local time).
  const gen = new JidGenerator({ now: () => Date.UTC(2013, 11, 19, 21, 56, 50, 131) }, () => 0);
  const jid = gen.next();
  assert.equal(jid, '20131219215650131000');
  assert.equal(jid.length, 20);
  assert.equal(jidToEpochMs(jid), Date.UTC(2013, 11, 19, 21, 56, 50, 131));
});

test('1000 jids from a clock frozen in one millisecond are distinct and strictly increasing', () => {
  const clock = new FakeClock(Date.UTC(2024, 0, 1, 0, 0, 0, 999));
  const gen = new JidGenerator(clock, () => 0);
  const jids = Array.from({ length: 1000 }, () => gen.next());
  assert.equal(new Set(jids).size, 1000);
  for (let i = 1; i < jids.length; i++) assert.ok(jids[i - 1]! < jids[i]!, `${jids[i - 1]} < ${jids[i]}`);
  assert.deepEqual([...jids].sort(), jids);
  assert.ok(jids.every((j) => isJid(j)));
  // The counter spills from 2024-01-01 00:00:00.999xxx into the next second correctly.
  assert.equal(jids[0], '20240101000000999000');
  assert.equal(jids[999], '20240101000000999999');
  const next = gen.next();
  assert.equal(next, '20240101000001000000');
});

test('a clock stepping backwards never yields an older or equal jid', () => {
  let now = Date.UTC(2024, 5, 1, 12, 0, 0, 0);
  const gen = new JidGenerator({ now: () => now }, () => 0);
  const a = gen.next();
  now -= 5000; // NTP step back
  const b = gen.next();
  assert.ok(a < b, `${a} < ${b}`);
  assert.equal(b, '20240601120000000001');
});

test('isJid accepts real timestamps only', () => {
  assert.equal(isJid('20240229235959999999'), true); // leap day
  assert.equal(isJid(formatJid(0)), true); // 1970-01-01
  const bad = [
    '../../proc/self/fd/0',
    '/dev/zero',
    '2024010112000000000', // 19 digits
    '202401011200000000000', // 21 digits
    '2024010112000000000a',
    '20240101120000000000\n',
    ' 20240101120000000000',
    '20240101120000000000_123', // Salt's unique_jid form is not used by brine
    '20231301120000000000', // month 13
    '20230229120000000000', // not a leap year
    '20240101240000000000', // hour 24
    '20240101126000000000', // minute 60
    '20240101120060000000', // second 60
    '00000000000000000000',
    '１２３４５６７８９０１２３４５６７８９０', // full-width digits
    '',
  ];
  for (const s of bad) assert.equal(isJid(s), false, s);
  assert.equal(isJid(20240101120000000000 as unknown as string), false);
  assert.equal(isJid(null), false);
});

test('assertJid throws INVALID_JID with the offending value', () => {
  assert.throws(
    () => assertJid('../../proc/self/fd/0'),
    (err: unknown) => {
      assert.ok(isBrineError(err, 'INVALID_JID'));
      assert.match(err.message, /proc\/self/);
      return true;
    },
  );
  assert.doesNotThrow(() => assertJid('20240101120000000000'));
});

test('two masters publishing in the same millisecond do not hand out the same jid', () => {
  // minions run a jid once, so a collision between independent masters would drop a job
  const now = () => Date.UTC(2026, 0, 1, 12, 0, 0, 7);
  const a = new JidGenerator({ now }, () => 0.1);
  const b = new JidGenerator({ now }, () => 0.9);
  const ja = a.next();
  const jb = b.next();
  assert.notEqual(ja, jb);
  assert.equal(ja.slice(0, 17), jb.slice(0, 17), 'same millisecond');
  assert.equal(ja, '20260101120000007050');
});
