// A job that arrives through two masters (hot/hot) runs once: the minion remembers recent jids.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RecentJids } from '../../../src/minion/recent-jids.js';

test('a jid is accepted once, repeats are refused, and the memory is bounded', () => {
  const recent = new RecentJids(3);
  assert.equal(recent.add('20260101000000000001'), true);
  assert.equal(recent.add('20260101000000000001'), false, 'the same job from a second master');
  for (const n of [2, 3, 4]) assert.equal(recent.add(`2026010100000000000${n}`), true);
  assert.equal(recent.size, 3);
  assert.equal(recent.add('20260101000000000001'), true, 'forgotten once older than the window');
  assert.equal(recent.add('20260101000000000004'), false);
});
