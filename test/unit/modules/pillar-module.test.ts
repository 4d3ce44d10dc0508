// The pillar module over a minion's pillar: get (default, ':' nesting, delimiter, merge), item,
// raw, ls, keys, items with a pillar= override, and the coded refusals.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createDefaultRegistry } from '../../../src/modules/index.js';
import { makeCtx } from './context.js';

const registry = createDefaultRegistry();
const PILLAR = {
  role: 'web',
  users: { alice: { uid: 1000 }, bob: { uid: 1001 } },
  pkgs: ['nginx'],
  list: [{ name: 'first' }],
};
const ctx = makeCtx({ pillar: () => PILLAR });
const call = (fun: string, arg: unknown[] = [], kwarg: Record<string, unknown> = {}, config: Record<string, unknown> = {}) => registry.call(fun, arg, kwarg, makeCtx({ pillar: () => PILLAR, config }));

describe('pillar module', () => {
  it("pillar.obfuscate: Salt's _obfuscate_inner (keys kept, every leaf its Python type name), over items with pillar=", async () => {
    const r = await registry.call('pillar.obfuscate', [], { pillar: { secret: { pw: 's3cret', n: 3, f: 1.5, on: true, none: null } } }, ctx);
    assert.equal(r.success, true);
    assert.deepEqual(r.return, {
      role: '<str>',
      users: { alice: { uid: '<int>' }, bob: { uid: '<int>' } },
      pkgs: ['<str>'],
      list: [{ name: '<str>' }],
      secret: { pw: '<str>', n: '<int>', f: '<float>', on: '<bool>', none: '<NoneType>' },
    });
    assert.ok(!JSON.stringify(r.return).includes('s3cret'), 'no value shows');
  });

  it("pillar.get: ':' nesting into dicts and lists, a default when missing, another delimiter", async () => {
    assert.equal((await call('pillar.get', ['users:alice:uid'])).return, 1000);
    assert.equal((await call('pillar.get', ['list:0:name'])).return, 'first');
    assert.equal((await call('pillar.get', ['users:carol:uid'])).return, '', "Salt's default default is ''");
    assert.equal((await call('pillar.get', ['users:carol:uid', 42])).return, 42);
    assert.equal((await call('pillar.get', ['users|bob|uid'], { delimiter: '|' })).return, 1001);
  });

  it('pillar.get merge=True merges a dict or list default with the value; other defaults are refused', async () => {
    assert.deepEqual((await call('pillar.get', ['users:alice'], { default: { uid: 1, shell: '/bin/sh' }, merge: true })).return, { uid: 1000, shell: '/bin/sh' });
    assert.deepEqual((await call('pillar.get', ['pkgs'], { default: ['vim', 'nginx'], merge: true })).return, ['vim', 'nginx']);
    const bad = await call('pillar.get', ['role'], { default: 'x', merge: true });
    assert.equal(bad.error?.code, 'BAD_ARGUMENTS');
  });

  it('a returned value is a copy: changing it does not change the pillar', async () => {
    const got = (await call('pillar.get', ['users'])).return as Record<string, { uid: number }>;
    got.alice!.uid = 0;
    assert.equal(PILLAR.users.alice.uid, 1000);
  });

  it('pillar.item, pillar.raw, pillar.ls and pillar.keys', async () => {
    assert.deepEqual((await call('pillar.item', ['role', 'users:bob:uid', 'nope'])).return, { role: 'web', 'users:bob:uid': 1001, nope: '' });
    assert.deepEqual((await call('pillar.raw')).return, PILLAR);
    assert.deepEqual((await call('pillar.raw', ['users'])).return, PILLAR.users);
    assert.deepEqual((await call('pillar.raw', ['nope'])).return, {});
    assert.deepEqual((await call('pillar.ls')).return, ['role', 'users', 'pkgs', 'list']);
    assert.deepEqual((await call('pillar.keys', ['users'])).return, ['alice', 'bob']);
    assert.equal((await call('pillar.keys', ['role'])).error?.code, 'EXEC_FAILED');
    assert.equal((await call('pillar.keys', ['nope'])).error?.code, 'EXEC_FAILED');
  });

  it("pillar.items pillar='{...}' merges an override (JSON text or a dict) for that call only", async () => {
    assert.deepEqual((await call('pillar.items', [], { pillar: '{"users": {"carol": {"uid": 7}}, "role": "db"}' })).return, {
      ...PILLAR,
      role: 'db',
      users: { ...PILLAR.users, carol: { uid: 7 } },
    });
    // overwrite replaces a whole top-level key, as the merge strategy says
    const over = await call('pillar.items', [], { pillar: { users: { carol: { uid: 7 } } } }, { pillar_source_merging_strategy: 'overwrite' });
    assert.deepEqual((over.return as typeof PILLAR).users, { carol: { uid: 7 } });
    assert.deepEqual((await registry.call('pillar.items', [], {}, ctx)).return, PILLAR);
    const bad = await call('pillar.items', [], { pillar: '[1, 2]' });
    assert.equal(bad.error?.code, 'BAD_ARGUMENTS');
    assert.match(bad.error?.message ?? '', /pillar= must be a dictionary/);
  });

  it('saltutil.refresh_pillar without a pillar source is a coded error saying where to run it', async () => {
    const r = await call('saltutil.refresh_pillar');
    assert.equal(r.error?.code, 'EXEC_FAILED');
    assert.match(r.error?.message ?? '', /brine run|--local/);
    let refreshed = 0;
    const ok = await registry.call('saltutil.refresh_pillar', [], {}, { ...ctx, refreshPillar: async () => void refreshed++ });
    assert.equal(ok.return, true);
    assert.equal(refreshed, 1);
  });
});
