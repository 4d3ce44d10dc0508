// Issue 22: the file states whose Salt function takes **kwargs (salt/states/file.py accumulated,
// copy, exists, missing, rename, serialize) ignore an argument they do not know without the
// "invalid keyword argument" warning, as Salt's format_call does; a function without **kwargs in
// Salt (user.absent) still warns.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ignoredArgs } from '../../../src/state/compiler/arg-check.js';
import type { LowChunk } from '../../../src/state/compiler/high-types.js';
import { stateFn } from './state-ctx.js';

const chunk = (fun: string, extra: Record<string, unknown>): LowChunk => {
  const [state, f] = fun.split('.') as [string, string];
  return { __id__: 'x', __sls__: 'web', __env__: 'base', state, fun: f, name: '/tmp/x', order: 1, ...extra } as LowChunk;
};

describe('file states with **kwargs in Salt', () => {
  it('take unknown arguments silently; user.absent does not', () => {
    for (const fun of ['file.accumulated', 'file.copy', 'file.exists', 'file.missing', 'file.rename', 'file.serialize', 'file.managed', 'file.recurse']) {
      assert.deepEqual(ignoredArgs(stateFn(fun), chunk(fun, { colour: 'red' })), [], fun);
    }
    assert.deepEqual(ignoredArgs(stateFn('user.absent'), chunk('user.absent', { colour: 'red' })), ['colour']);
  });
});
