// The failed-login limit counts an attempt before its password is checked (issue 21, point 7,
// threats.md #46): attempts begun together cannot all pass the limit. Fake clock.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LoginThrottle } from '../../../src/auth/index.js';
import { FakeClock } from '../../../src/util/clock.js';
import { isBrineError } from '../../../src/util/errors.js';

const throttled = (fn: () => unknown) =>
  assert.throws(fn, (err: unknown) => {
    assert.ok(isBrineError(err, 'LOGIN_THROTTLED'), String(err));
    return true;
  });

test('100 attempts begun before any password check finishes: 5 pass the limit, the rest (and the right password) are LOGIN_THROTTLED', () => {
  const clock = new FakeClock();
  const t = new LoginThrottle(clock, 5, 60_000);
  let begun = 0;
  for (let i = 0; i < 100; i++) {
    try {
      t.begin('alice', '10.0.0.1');
      begun++;
    } catch (err) {
      assert.ok(isBrineError(err, 'LOGIN_THROTTLED'));
    }
  }
  assert.equal(begun, 5);
  throttled(() => t.begin('alice', '10.0.0.2'));
  // the window passes: attempts are allowed again
  clock.advance(60_000);
  t.begin('alice', '10.0.0.1');
});

test('a good password takes back its own attempt and clears the user, not the address', () => {
  const clock = new FakeClock();
  const t = new LoginThrottle(clock, 3, 60_000);
  t.begin('bob', '10.0.0.1');
  t.begin('carol', '10.0.0.1');
  const good = t.begin('dave', '10.0.0.1');
  good.succeeded();
  good.succeeded(); // once only
  // the address has 2 failures: one more attempt, then it is throttled for every user
  t.begin('erin', '10.0.0.1');
  throttled(() => t.begin('dave', '10.0.0.1'));
  // bob's own count (1) is not cleared by dave's success; from another address bob may try twice more
  t.begin('bob', '10.0.0.9');
  t.begin('bob', '10.0.0.9');
  throttled(() => t.begin('bob', '10.0.0.8'));
});
