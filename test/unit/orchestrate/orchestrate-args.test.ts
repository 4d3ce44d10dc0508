// The pure parts of state.orchestrate: Salt's check_result over an orchestration's highstate and
// a minion's return, and the runner's arguments as salt-run and salt-api pass them.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkResult, orchestrateArgs } from '../../../src/orchestrate/index.js';
import { isBrineError } from '../../../src/util/errors.js';

describe('checkResult (salt.utils.state.check_result)', () => {
  it('fails an empty or non-mapping return and any result False at any depth; None passes', () => {
    assert.equal(checkResult({}), false);
    assert.equal(checkResult(['x']), false);
    assert.equal(checkResult({ m: { a: { result: true }, b: { result: null } } }), true);
    assert.equal(checkResult({ m: { a: { result: true }, b: { result: false } } }), false);
  });
  it('at the top level a list (compile errors) fails; nested, a non-mapping is skipped', () => {
    assert.equal(checkResult({ master_master: ["Specified SLS 'x' is not available"] }), false);
    assert.equal(checkResult({ a: { result: true }, note: 'text' }, true), true);
  });
});

describe('orchestrateArgs', () => {
  it('takes mods, saltenv, test, exclude, pillar by position or name, as salt-run does', () => {
    assert.deepEqual(orchestrateArgs({ arg: ['orch.a,orch.b', 'prod', true], kwarg: {} }, false), { mods: ['orch.a', 'orch.b'], saltenv: 'prod', test: true, pillar: {} });
    assert.deepEqual(orchestrateArgs({ arg: [], kwarg: { mods: ['orch.a'], test: 'True', pillar: '{"k": 1}' } }, false), { mods: ['orch.a'], saltenv: 'base', test: true, pillar: { k: 1 } });
    assert.equal(orchestrateArgs({ arg: ['orch.a'], kwarg: {} }, true).test, true, "the master's test option is the default");
  });
  it('refuses a missing SLS and a pillar that is not a mapping with coded errors', () => {
    assert.throws(
      () => orchestrateArgs({ arg: [], kwarg: {} }, false),
      (e) => isBrineError(e, 'BAD_ARGUMENTS') && /state\.orchestrate orch\.deploy/.test(e.message),
    );
    assert.throws(
      () => orchestrateArgs({ arg: ['orch.a'], kwarg: { pillar: [1] } }, false),
      (e) => isBrineError(e, 'BAD_ARGUMENTS') && /Pillar data must be formatted as a dictionary/.test(e.message),
    );
  });
});
