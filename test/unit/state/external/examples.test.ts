// Every state for an outside service compiles from its documented example (the SLS in
// docs/states.md) through the real compiler and runtime, and answers state.sls test=True
// without failing and without changing anything: the promise to a Salt tree that uses them.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { externalStateFunctions } from '../../../../src/state/modules/external/index.js';
import { harness } from '../harness.js';

describe('external state examples under state.sls test=True', () => {
  for (const fn of externalStateFunctions) {
    it(`${fn.name}: compiles and answers without failing`, async () => {
      const h = harness({ base: { 's.sls': fn.example } });
      const r = await h.call('state.sls', ['s'], { test: true });
      assert.equal(r.retcode, 0, JSON.stringify(r.return));
      const states = Object.values(r.return as Record<string, { result: boolean | null; comment: string }>);
      assert.ok(states.length > 0);
      for (const s of states) assert.notEqual(s.result, false, s.comment);
    });
  }
});
