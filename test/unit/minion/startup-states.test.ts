// startup_states: the calls a minion makes by itself at start (a pure decision).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startupCalls, startupSummary } from '../../../src/minion/startup-states.js';

describe('startupCalls', () => {
  it('is empty when startup_states is off, or sls has no names', () => {
    assert.deepEqual(startupCalls({ startup_states: '' }), []);
    assert.deepEqual(startupCalls({}), []);
    assert.deepEqual(startupCalls({ startup_states: 'sls', sls_list: [] }), []);
  });

  it('syncs custom modules first unless autoload_dynamic_modules is off', () => {
    assert.deepEqual(
      startupCalls({ startup_states: 'highstate' }).map((c) => c.fun),
      ['saltutil.sync_all', 'state.highstate'],
    );
    assert.deepEqual(startupCalls({ startup_states: 'sls', sls_list: ['edit.vim', 'hyper'], autoload_dynamic_modules: false }), [{ fun: 'state.sls', arg: ['edit.vim,hyper'], kwarg: {} }]);
  });

  it('summarises a state return by counts, never by content', () => {
    const ret = { t: 'return' as const, jid: '20260101000000000000', fun: 'state.sls', ret: { a: { result: true, comment: 'secret' }, b: { result: false } }, retcode: 2, success: false };
    assert.equal(startupSummary(ret), 'state.sls: 2 state(s), 1 failed (retcode 2)');
    assert.doesNotMatch(startupSummary(ret), /secret/);
  });
});
