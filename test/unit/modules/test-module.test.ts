import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BrineError } from '../../../src/util/errors.js';
import { BRINE_VERSION, createDefaultRegistry } from '../../../src/modules/index.js';
import { makeCtx } from './context.js';

const registry = createDefaultRegistry();

describe('test module', () => {
  it('test.ping is true', async () => {
    assert.deepEqual(await registry.call('test.ping', [], {}, makeCtx()), { return: true, retcode: 0, success: true });
  });

  it('test.echo returns its text (numbers from the CLI come back as text)', async () => {
    assert.equal((await registry.call('test.echo', ['hello world'], {}, makeCtx())).return, 'hello world');
    assert.equal((await registry.call('test.echo', [5], {}, makeCtx())).return, '5');
  });

  it('test.version reports the agent version from config, else the built-in one', async () => {
    assert.equal((await registry.call('test.version', [], {}, makeCtx())).return, BRINE_VERSION);
    assert.equal((await registry.call('test.version', [], {}, makeCtx({ config: { agent_version: '9.9.9' } }))).return, '9.9.9');
  });

  it('test.arg returns {args, kwargs}', async () => {
    const res = await registry.call('test.arg', [1, 'two'], { k: 'v' }, makeCtx());
    assert.deepEqual(res.return, { args: [1, 'two'], kwargs: { k: 'v' } });
  });

  it('test.true / test.false', async () => {
    assert.equal((await registry.call('test.true', [], {}, makeCtx())).return, true);
    assert.deepEqual(await registry.call('test.false', [], {}, makeCtx()), { return: false, retcode: 0, success: true });
  });

  it('test.sleep sleeps and returns true', async () => {
    const started = Date.now();
    const res = await registry.call('test.sleep', ['0.15'], {}, makeCtx());
    assert.equal(res.return, true);
    assert.ok(Date.now() - started >= 140);
  });

  it('test.sleep stops on abort with JOB_TIMEOUT', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const started = Date.now();
    const res = await registry.call('test.sleep', [30], {}, makeCtx({ signal: ac.signal }));
    assert.ok(Date.now() - started < 2000);
    assert.equal(res.error?.code, 'JOB_TIMEOUT');
  });

  it('test.sleep with an already-aborted signal keeps a coded reason', async () => {
    const ac = new AbortController();
    ac.abort(new BrineError('EXEC_FAILED', 'killed'));
    const res = await registry.call('test.sleep', [30], {}, makeCtx({ signal: ac.signal }));
    assert.deepEqual(res.error, { code: 'EXEC_FAILED', message: 'killed' });
  });

  it('test.sleep rejects a negative length', async () => {
    const res = await registry.call('test.sleep', [-1], {}, makeCtx());
    assert.equal(res.error?.code, 'BAD_ARGUMENTS');
  });
});
