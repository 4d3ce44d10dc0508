import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { splitCallArgs } from '../../../src/state/modules/module-states.js';
import { runState } from './state-ctx.js';

describe('module.run, current syntax', () => {
  it('calls each function with positional values and one-key mappings as keyword arguments; fun:alias calls twice', async () => {
    const r = await runState('module.run', { name: 'calls', 'test.echo': ['hello'], 'test.arg': ['one', { key: 'value' }, 2], 'test.arg:again': [{ only: 'kw' }] });
    assert.equal(r.result, true, r.comment);
    assert.deepEqual(r.changes, {
      'test.echo': 'hello',
      'test.arg': { args: ['one', 2], kwargs: { key: 'value' } },
      'test.arg:again': { args: [], kwargs: { only: 'kw' } },
    });
    assert.equal(r.comment, 'test.echo: hello, test.arg: Success, test.arg:again: Success');
  });

  it('a function returning False, or failing, fails the state and says which', async () => {
    const f = await runState('module.run', { name: 'x', 'test.false': [], 'test.true': [] });
    assert.equal(f.result, false);
    assert.equal(f.comment, "'test.false': False, test.true: True");
    const bad = await runState('module.run', { name: 'x', 'test.echo': [] });
    assert.equal(bad.result, false);
    assert.match(bad.comment, /^'test\.echo' failed: .*text/);
  });

  it('test=True runs nothing; an unknown function fails at once, naming it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-modrun-'));
    try {
      const marker = path.join(dir, 'ran');
      const dry = await runState('module.run', { name: 'x', 'cmd.run': [`touch ${marker}`] }, { test: true });
      assert.deepEqual(dry, { name: 'x', result: null, changes: {}, comment: 'Function cmd.run to be executed.' });
      assert.equal(fs.existsSync(marker), false);
      const missing = await runState('module.run', { name: 'x', 'nosuch.fun': [], 'test.true': [] });
      assert.equal(missing.result, false);
      assert.equal(missing.comment, 'Unavailable function: nosuch.fun.');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('splitCallArgs: mappings are kwargs, the rest positional; a bare mapping or scalar works too', () => {
    assert.deepEqual(splitCallArgs(['a', { b: 1 }, 3]), { arg: ['a', 3], kwarg: { b: 1 } });
    assert.deepEqual(splitCallArgs({ b: 1 }), { arg: [], kwarg: { b: 1 } });
    assert.deepEqual(splitCallArgs(null), { arg: [], kwarg: {} });
  });
});

describe('module.run, legacy syntax', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-modrun-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("name is the function; other keys are its keyword arguments, m_name its 'name'", async () => {
    const r = await runState('module.run', { name: 'test.echo', text: 'legacy' });
    assert.deepEqual(r, { name: 'test.echo', result: true, changes: { ret: 'legacy' }, comment: 'Module function test.echo executed' });
    const file = path.join(dir, 'f');
    fs.writeFileSync(file, 'x');
    const st = await runState('module.run', { name: 'file.file_exists', path: file });
    assert.deepEqual(st.changes, { ret: true });
    const miss = await runState('module.run', { name: 'nosuch.fun' });
    assert.deepEqual(miss, { name: 'nosuch.fun', result: false, changes: {}, comment: 'Module function nosuch.fun is not available' });
    const dry = await runState('module.run', { name: 'test.echo', text: 'x' }, { test: true });
    assert.equal(dry.comment, 'Module function test.echo is set to execute');
  });
});

describe('module.wait', () => {
  it('does nothing on its own and calls from a watch', async () => {
    assert.deepEqual(await runState('module.wait', { name: 'w', 'test.echo': ['hi'] }), { name: 'w', result: true, changes: {}, comment: '' });
    const r = await runState('module.wait', { name: 'w', 'test.echo': ['hi'] }, { watch: true });
    assert.deepEqual(r.changes, { 'test.echo': 'hi' });
  });
});
