// Issue 22 (result shapes): the test.* states return what Salt 3007's salt/states/test.py
// returns, in test and real mode, including the `comment` argument.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runState } from './state-ctx.js';

const PRETEND = { testing: { old: 'Unchanged', new: 'Something pretended to change' } };

describe('test.* result shapes (salt/states/test.py)', () => {
  it('fail_without_changes stays False under test=True, with its own comment', async () => {
    assert.deepEqual(await runState('test.fail_without_changes', { name: 'x' }, { test: true }), {
      name: 'x',
      result: false,
      changes: {},
      comment: "If we weren't testing, this would be a failure!",
    });
    assert.deepEqual(await runState('test.fail_without_changes', { name: 'x' }), { name: 'x', result: false, changes: {}, comment: 'Failure!' });
  });

  it('fail_with_changes under test=True: None, the pretended change, "would be failed with changes"', async () => {
    assert.deepEqual(await runState('test.fail_with_changes', { name: 'x' }, { test: true }), {
      name: 'x',
      result: null,
      changes: PRETEND,
      comment: "If we weren't testing, this would be failed with changes",
    });
    assert.deepEqual(await runState('test.fail_with_changes', { name: 'x' }), { name: 'x', result: false, changes: PRETEND, comment: 'Failure!' });
  });

  it('succeed_with_changes: None in test mode; a comment argument replaces Success! in a real run', async () => {
    assert.deepEqual(await runState('test.succeed_with_changes', { name: 'x' }, { test: true }), {
      name: 'x',
      result: null,
      changes: PRETEND,
      comment: "If we weren't testing, this would be successful with changes",
    });
    assert.deepEqual(await runState('test.succeed_with_changes', { name: 'x', comment: 'custom' }), { name: 'x', result: true, changes: PRETEND, comment: 'custom' });
    assert.deepEqual(await runState('test.succeed_without_changes', { name: 'x' }, { test: true }), { name: 'x', result: true, changes: {}, comment: 'Success!' });
  });
});
