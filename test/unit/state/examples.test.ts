// Every built-in state function's `example` (the SLS snippet docs/states.md shows) compiles:
// known function, arguments of the declared types, valid requisites. Guards every state module.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { builtinStateFunctions, createMinionRegistry, memoryFiles } from '../../../src/state/index.js';
import { makeCtx } from '../modules/context.js';

describe('state function examples', () => {
  for (const fn of builtinStateFunctions) {
    it(`${fn.name}: the example compiles and uses ${fn.name}`, async () => {
      const [mod, fun] = fn.name.split('.') as [string, string];
      assert.ok(fn.example.includes(fn.name) || new RegExp(`^\\s+${mod}:\\s*\\n\\s+- ${fun}\\b`, 'm').test(fn.example), `the example of ${fn.name} does not use it:\n${fn.example}`);
      const registry = createMinionRegistry({ files: () => memoryFiles({ base: { 'example.sls': fn.example } }) });
      const r = await registry.call('state.show_sls', ['example'], {}, makeCtx());
      assert.equal(r.success, true, `${fn.name}: ${JSON.stringify(r.return)}`);
    });
  }
});
