// bcrypt checks in worker threads (src/auth/bcrypt.ts): parallel logins beyond the worker cap
// queue and each still gets its own answer.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { bcryptHash, bcryptVerify } from '../../../src/auth/index.js';

test('more parallel checks than workers: every one answers for its own password', async () => {
  const n = availableParallelism() * 2 + 1;
  const hashes = Array.from({ length: n }, (_, i) => bcryptHash(`pw${i}`, '2y', 4, 'abcdefghijklmnopqrstuu'));
  const right = await Promise.all(hashes.map((h, i) => bcryptVerify(`pw${i}`, h)));
  const wrong = await Promise.all(hashes.map((h, i) => bcryptVerify(`pw${i + 1}`, h)));
  assert.deepEqual(right, new Array(n).fill(true));
  assert.deepEqual(wrong, new Array(n).fill(false));
});
