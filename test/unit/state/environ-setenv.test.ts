// environ.setenv on this process's real environment: a program started afterwards sees the values.
// Comments, changes and results are Salt 3007's salt/states/environ.py setenv (test mode keeps
// result True) and, after a real run, the return of salt/modules/environ.py setenv (every key set).

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { environChanges, environSetenv } from '../../../src/state/modules/environ-setenv.js';
import { runState } from './file-fixture.js';

const KEYS = ['BRINE_T_FOO', 'BRINE_T_BAR', 'BRINE_T_GONE'];
after(() => {
  for (const k of KEYS) delete process.env[k];
});
const seen = (key: string) => execFileSync('sh', ['-c', `printf %s "\${${key}-unset}"`], { encoding: 'utf8' });

describe('environ.setenv', () => {
  it('a string value: test=True (result True, would-be changes), set, then already set', async () => {
    assert.deepEqual(await runState(environSetenv, { name: 'BRINE_T_FOO', value: 'bar' }, { test: true }), {
      name: 'BRINE_T_FOO',
      result: true,
      changes: { BRINE_T_FOO: 'bar' },
      comment: 'Environ values will be changed',
    });
    assert.equal(seen('BRINE_T_FOO'), 'unset');
    assert.deepEqual(await runState(environSetenv, { name: 'BRINE_T_FOO', value: 'bar' }), { name: 'BRINE_T_FOO', result: true, changes: { BRINE_T_FOO: 'bar' }, comment: 'Environ values were set' });
    assert.equal(seen('BRINE_T_FOO'), 'bar');
    assert.deepEqual(await runState(environSetenv, { name: 'BRINE_T_FOO', value: 'bar' }), {
      name: 'BRINE_T_FOO',
      result: true,
      changes: {},
      comment: 'Environ values were already set with the correct values',
    });
    assert.equal((await runState(environSetenv, { name: 'BRINE_T_FOO', value: 'bar' }, { test: true })).comment, 'Environ values are already set with the correct values');
  });

  it('a mapping: changes list every key the module set, the unchanged ones too', async () => {
    const r = await runState(environSetenv, { name: 'ignored', value: { BRINE_T_FOO: 'bar', BRINE_T_BAR: 'baz' } });
    assert.deepEqual(r, { name: 'ignored', result: true, changes: { BRINE_T_FOO: 'bar', BRINE_T_BAR: 'baz' }, comment: 'Environ values were set' });
    assert.equal(seen('BRINE_T_BAR'), 'baz');
  });

  it('False empties a variable; with false_unsets it removes it (change None)', async () => {
    process.env.BRINE_T_GONE = 'x';
    assert.deepEqual((await runState(environSetenv, { name: 'BRINE_T_GONE', value: false })).changes, { BRINE_T_GONE: '' });
    assert.equal(seen('BRINE_T_GONE'), '');
    assert.deepEqual((await runState(environSetenv, { name: 'BRINE_T_GONE', value: false, false_unsets: true }, { test: true })).changes, { BRINE_T_GONE: null });
    assert.deepEqual((await runState(environSetenv, { name: 'BRINE_T_GONE', value: false, false_unsets: true })).changes, { BRINE_T_GONE: null });
    assert.equal(seen('BRINE_T_GONE'), 'unset');
    // an absent variable with false_unsets: nothing to do
    assert.equal((await runState(environSetenv, { name: 'BRINE_T_GONE', value: false, false_unsets: true })).comment, 'Environ values were already set with the correct values');
  });

  it('clear_all (decided, not applied here): every other variable would be emptied or removed', () => {
    assert.deepEqual(environChanges({ A: '1', B: '2' }, { A: '1' }, false, true), { B: '' });
    assert.deepEqual(environChanges({ A: '1', B: '2' }, { A: '1' }, true, true), { B: null });
  });

  it('a list value fails with Salt comment', async () => {
    assert.deepEqual(await runState(environSetenv, { name: 'BRINE_T_FOO', value: ['a'] }), {
      name: 'BRINE_T_FOO',
      result: false,
      changes: {},
      comment: 'Environ value must be string, dict or False',
    });
  });
});
