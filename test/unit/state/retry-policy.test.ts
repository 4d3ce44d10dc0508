// `retry` as Salt's verify_retry_data reads it (salt/state.py): a value that is not a mapping means
// the defaults, a key of the wrong type keeps its default, unknown keys are ignored. Real trees
// write `retry: 3` (a count, which Salt does not take as one) and Salt runs them with a warning.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { retryPolicy } from '../../../src/state/runtime/retry.js';

const DEFAULTS = { attempts: 2, until: true, interval: 30, splay: 0 };

describe('retry policy (Salt verify_retry_data)', () => {
  it('a value that is not a mapping is the defaults; False or nothing is no retry', () => {
    assert.deepEqual(retryPolicy(3), DEFAULTS);
    assert.deepEqual(retryPolicy('often'), DEFAULTS);
    assert.deepEqual(retryPolicy(true), DEFAULTS);
    assert.deepEqual(retryPolicy([1, 2]), DEFAULTS);
    assert.equal(retryPolicy(false), undefined);
    assert.equal(retryPolicy(undefined), undefined);
  });

  it('a mapping overrides key by key; a key of the wrong type keeps its default; unknown keys are ignored', () => {
    assert.deepEqual(retryPolicy({ attempts: 5, interval: 3 }), { ...DEFAULTS, attempts: 5, interval: 3 });
    assert.deepEqual(retryPolicy({ attempts: 'five', until: 'yes', interval: -1, splay: 'x', colour: 'red' }), DEFAULTS);
    assert.deepEqual(retryPolicy({ attempts: 0, until: false }), { ...DEFAULTS, attempts: 0, until: false });
  });
});
