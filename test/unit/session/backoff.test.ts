// Reconnect delays: exponential bounds up to recon_max, full jitter drawn from the injected
// random source, a floor, and reset after a good connection.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Backoff } from '../../../src/session/index.js';

const fixed = (r: number) => () => r;

test('without randomize the delay doubles from recon_default up to recon_max and stays there', () => {
  const b = new Backoff({ baseMs: 1_000, maxMs: 10_000, randomize: false });
  const delays = Array.from({ length: 7 }, () => b.next());
  assert.deepEqual(delays, [1_000, 2_000, 4_000, 8_000, 10_000, 10_000, 10_000]);
  assert.equal(b.attempts, 7);
});

test('growth never overflows, however many attempts', () => {
  const b = new Backoff({ baseMs: 1_000, maxMs: 10_000, randomize: false });
  let last = 0;
  for (let i = 0; i < 2_000; i++) last = b.next();
  assert.equal(last, 10_000);
});

test('full jitter scales the bound by the injected random draw', () => {
  const half = new Backoff({ baseMs: 1_000, maxMs: 10_000, randomize: true }, fixed(0.5));
  assert.deepEqual(
    Array.from({ length: 6 }, () => half.next()),
    [500, 1_000, 2_000, 4_000, 5_000, 5_000],
  );
  const top = new Backoff({ baseMs: 1_000, maxMs: 10_000, randomize: true }, fixed(0.999_9));
  assert.deepEqual(
    Array.from({ length: 5 }, () => top.next()),
    [1_000, 2_000, 4_000, 7_999, 9_999],
  );
});

test('property: every jittered delay lies in [floor, min(max, base * 2^attempt)]', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 5_000 }),
      fc.integer({ min: 1, max: 120_000 }),
      fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { minLength: 1, maxLength: 30 }),
      (baseMs, extra, draws) => {
        const maxMs = baseMs + extra;
        let i = 0;
        const b = new Backoff({ baseMs, maxMs, randomize: true, floorMs: 10 }, () => draws[i++ % draws.length]!);
        for (let attempt = 0; attempt < draws.length; attempt++) {
          const bound = Math.min(maxMs, baseMs * 2 ** attempt);
          const d = b.next();
          assert.ok(d >= 10 && d <= Math.max(10, bound), `attempt ${attempt}: ${d} not in [10, ${bound}]`);
          // and it is the draw that decides, not a constant
          assert.equal(d, Math.max(10, Math.round(draws[attempt]! * bound)));
        }
      },
    ),
    { numRuns: 200 },
  );
});

test('a zero draw never means an immediate retry: the floor applies (50 ms unless set)', () => {
  assert.equal(new Backoff({ baseMs: 1_000, maxMs: 10_000, randomize: true }, fixed(0)).next(), 50);
  assert.equal(new Backoff({ baseMs: 1_000, maxMs: 10_000, randomize: true, floorMs: 250 }, fixed(0)).next(), 250);
  assert.equal(new Backoff({ baseMs: 10, maxMs: 20, randomize: false, floorMs: 100 }).next(), 100);
});

test('reset() starts again from recon_default', () => {
  const b = new Backoff({ baseMs: 1_000, maxMs: 60_000, randomize: false });
  b.next();
  b.next();
  b.next();
  b.reset();
  assert.equal(b.attempts, 0);
  assert.equal(b.next(), 1_000);
  assert.equal(b.next(), 2_000);
});

test('randomize false ignores the random source entirely', () => {
  let calls = 0;
  const b = new Backoff({ baseMs: 1_000, maxMs: 10_000, randomize: false }, () => {
    calls++;
    return 0.1;
  });
  assert.equal(b.next(), 1_000);
  assert.equal(calls, 0);
});
