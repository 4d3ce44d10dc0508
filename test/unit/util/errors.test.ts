// BrineError.expected: the same coded error, made without a stack trace (the busy door answer and
// abandoned attempts come thousands at a time during a master restart), and without changing the
// process's stack trace limit for anything made after it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BrineError, isBrineError } from '../../../src/util/errors.js';

test('an expected error carries its code, message, details and fix, but no stack frames', () => {
  const err = BrineError.expected('MASTER_BUSY', 'master 127.0.0.1:4506 is busy', { details: { retryAfterMs: 250 } });
  assert.ok(isBrineError(err, 'MASTER_BUSY'));
  assert.equal(err.message, 'master 127.0.0.1:4506 is busy');
  assert.deepEqual(err.details, { retryAfterMs: 250 });
  assert.match(err.fix, /comes back at the time the master gave/);
  assert.equal(err.exitCode, 1);
  assert.doesNotMatch(err.stack ?? '', /\n\s+at /, 'no frames captured');
});

test('errors made afterwards still have their stack traces', () => {
  const before = Error.stackTraceLimit;
  BrineError.expected('CONNECT_FAILED', 'abandoned');
  assert.equal(Error.stackTraceLimit, before);
  const err = new BrineError('CONNECT_FAILED', 'refused');
  assert.match(err.stack ?? '', /\n\s+at /);
});
