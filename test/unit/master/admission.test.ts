// Sign-in admission at auth_rate (issue 3 item 5): a burst is admitted up to the rate, the rest
// are turned away with a jittered delay sized to the backlog, and tokens refill with time.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AuthAdmission } from '../../../src/master/admission.js';
import { FakeClock } from '../../../src/util/clock.js';

test('admits a burst up to the rate, then turns sign-ins away until tokens refill', () => {
  const clock = new FakeClock();
  const a = new AuthAdmission(clock, 100, () => 0.5);
  let admitted = 0;
  for (let i = 0; i < 1000; i++) if (a.tryAdmit()) admitted++;
  assert.equal(admitted, 100);
  assert.equal(a.turnedAway, 900);
  clock.advance(100);
  let more = 0;
  for (let i = 0; i < 100; i++) if (a.tryAdmit()) more++;
  assert.equal(more, 10, '100/s for 100 ms is 10 more');
});

test('the retry delay grows with the backlog and is spread by jitter', () => {
  const clock = new FakeClock();
  const low = new AuthAdmission(clock, 100, () => 0);
  const high = new AuthAdmission(clock, 100, () => 1);
  for (let i = 0; i < 1100; i++) {
    low.tryAdmit();
    high.tryAdmit();
  }
  // 1000 turned away at 100/s: a 10 s backlog; jitter picks a point in [0.5, 10.5]
  assert.equal(low.retryAfterSeconds(), 0.5);
  assert.equal(high.retryAfterSeconds(), 10.5);
  const capped = new AuthAdmission(clock, 1, () => 1);
  for (let i = 0; i < 500; i++) capped.tryAdmit();
  assert.equal(capped.retryAfterSeconds(), 30.5, 'never more than 30 s of backlog');
});
