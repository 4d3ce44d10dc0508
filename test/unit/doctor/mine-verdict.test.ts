// brine doctor's mine line (from minion_status): OK with when and how many entries were sent,
// WARN naming each failed entry with its code and what to fix.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judgeMine } from '../../../src/cli/doctor/minion-verdicts.js';

test('a clean update is OK, a failed entry is a WARN naming it and the fix', () => {
  const now = 1_700_000_100_000;
  const good = judgeMine({ lastUpdate: now - 90_000, sent: 1, failed: [] }, now);
  assert.equal(good.level, 'ok');
  assert.match(good.detail, /last mine\.update 1 min 30 s ago|last mine\.update .* ago: 1 entry sent/);
  const bad = judgeMine({ lastUpdate: now - 5_000, sent: 2, failed: [{ name: 'nosuch.fun', code: 'UNKNOWN_FUNCTION', message: 'not a function' }] }, now);
  assert.equal(bad.level, 'warn');
  assert.match(bad.detail, /2 entries sent, 1 failed \(nosuch\.fun: UNKNOWN_FUNCTION: not a function\)/);
  assert.match(bad.fix ?? '', /mine_functions/);
});
