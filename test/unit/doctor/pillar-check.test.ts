// brine doctor master's pillar lines: a FAIL per minion whose latest render failed (first line
// of each error only: the snippet after it may quote a secret), and the empty-top hint.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judgePillar } from '../../../src/cli/doctor/pillar-check.js';

const rec = (id: string, errors: string[] = [], matchedNothing = false) => ({ id, pillar: { k: 'hunter2' }, errors, matchedNothing, renderedAt: 0, grainsHash: '' });

test('failed renders are FAIL lines naming the file and line, never the quoted text or values', () => {
  const checks = judgePillar([rec('web1'), rec('db1', ["Rendering SLS 'db' failed: pillar_roots base:db.sls:2:8: YAML error: bad\n  2 | password: hunter2 ["])]);
  assert.equal(checks.length, 2);
  assert.equal(checks[0]!.level, 'fail');
  assert.equal(checks[0]!.what, 'pillar of db1');
  assert.match(checks[0]!.detail, /db\.sls:2:8/);
  assert.ok(!JSON.stringify(checks).includes('hunter2'));
  assert.equal(checks[1]!.level, 'ok');
  assert.match(checks[1]!.detail, /1 of 2 minions' pillar rendered without errors/);
});

test('minions the top file gives nothing are named on the OK line, not as an error', () => {
  const checks = judgePillar([rec('a', [], true), rec('b'), rec('c', [], true)]);
  assert.equal(checks.length, 1);
  assert.equal(checks[0]!.level, 'ok');
  assert.match(checks[0]!.detail, /no SLS, so their pillar is empty: a, c/);
});

test('no cache yet', () => {
  assert.match(judgePillar([])[0]!.detail, /no minion has fetched its pillar yet/);
});
