// top_file_merging_strategy, env_order, default_top and state_top_saltenv through
// state.show_top, against the table of Salt's own tests: saltstack/salt
// tests/pytests/unit/modules/state/test_top_file_merge.py (3006/3007). Its tree: environments
// base, foo, bar and baz; every environment but baz has a top file with a section for each
// environment, whose one SLS is named <top file's env>_<section>; env_order is base, foo, bar, baz.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { harness } from './harness.js';
import { mergeTops, topEnvsToRead } from '../../../src/state/index.js';

const ENVS = ['base', 'foo', 'bar', 'baz'];

function topFile(env: string): string {
  return ENVS.map((section) => `${section}:\n  '*':\n    - ${env}_${section}\n`).join('');
}

function tree(limitedBase = false): Record<string, Record<string, string>> {
  const t: Record<string, Record<string, string>> = {};
  for (const env of ENVS) t[env] = env === 'baz' ? {} : { 'top.sls': topFile(env) };
  // Salt's limited_base_top_file fixture: base's top file has only its own section
  if (limitedBase) t.base = { 'top.sls': "base:\n  '*':\n    - base_base\n" };
  return t;
}

async function showTop(config: Record<string, unknown>, t = tree(), kwarg: Record<string, unknown> = {}) {
  const h = harness(t, { env_order: ENVS, default_top: 'base', ...config });
  const r = await h.call('state.show_top', [], kwarg, { minionId: 'web1', grainsData: { id: 'web1' } } as never);
  assert.equal(r.success, true, JSON.stringify(r.return));
  return r.return;
}

describe("Salt's top file merging table (test_top_file_merge.py)", () => {
  const cases: Array<[string, Record<string, unknown>, Record<string, string[]>, boolean?]> = [
    ['test_merge_strategy_merge: base overrides everything', { top_file_merging_strategy: 'merge' }, { base: ['base_base'], foo: ['base_foo'], bar: ['base_bar'], baz: ['base_baz'] }],
    ['test_merge_strategy_merge_limited_base', { top_file_merging_strategy: 'merge' }, { base: ['base_base'], foo: ['foo_foo'], bar: ['bar_bar'] }, true],
    [
      'test_merge_strategy_merge_state_top_saltenv_base',
      { top_file_merging_strategy: 'merge', state_top_saltenv: 'base' },
      { base: ['base_base'], foo: ['base_foo'], bar: ['base_bar'], baz: ['base_baz'] },
    ],
    ['test_merge_strategy_merge_state_top_saltenv_foo', { top_file_merging_strategy: 'merge', state_top_saltenv: 'foo' }, { foo: ['foo_foo'] }],
    [
      'test_merge_strategy_merge_all',
      { top_file_merging_strategy: 'merge_all' },
      { base: ['base_base', 'foo_base', 'bar_base'], foo: ['base_foo', 'foo_foo', 'bar_foo'], bar: ['base_bar', 'foo_bar', 'bar_bar'], baz: ['base_baz', 'foo_baz', 'bar_baz'] },
    ],
    [
      'test_merge_strategy_merge_all_alternate_env_order',
      { top_file_merging_strategy: 'merge_all', env_order: ['bar', 'foo', 'base'] },
      { base: ['bar_base', 'foo_base', 'base_base'], foo: ['bar_foo', 'foo_foo', 'base_foo'], bar: ['bar_bar', 'foo_bar', 'base_bar'], baz: ['bar_baz', 'foo_baz', 'base_baz'] },
    ],
    [
      'test_merge_strategy_merge_all_state_top_saltenv_base',
      { top_file_merging_strategy: 'merge_all', state_top_saltenv: 'base' },
      { base: ['base_base'], foo: ['base_foo'], bar: ['base_bar'], baz: ['base_baz'] },
    ],
    [
      'test_merge_strategy_merge_all_state_top_saltenv_foo',
      { top_file_merging_strategy: 'merge_all', state_top_saltenv: 'foo' },
      { base: ['foo_base'], foo: ['foo_foo'], bar: ['foo_bar'], baz: ['foo_baz'] },
    ],
    ['test_merge_strategy_same', { top_file_merging_strategy: 'same' }, { base: ['base_base'], foo: ['foo_foo'], bar: ['bar_bar'], baz: ['base_baz'] }],
    ['test_merge_strategy_same_limited_base', { top_file_merging_strategy: 'same' }, { base: ['base_base'], foo: ['foo_foo'], bar: ['bar_bar'] }, true],
    ['test_merge_strategy_same_default_top_foo', { top_file_merging_strategy: 'same', default_top: 'foo' }, { base: ['base_base'], foo: ['foo_foo'], bar: ['bar_bar'], baz: ['foo_baz'] }],
    ['test_merge_strategy_same_state_top_saltenv_base', { top_file_merging_strategy: 'same', state_top_saltenv: 'base' }, { base: ['base_base'] }],
    ['test_merge_strategy_same_state_top_saltenv_foo', { top_file_merging_strategy: 'same', state_top_saltenv: 'foo' }, { foo: ['foo_foo'] }],
    ['test_merge_strategy_same_state_top_saltenv_baz', { top_file_merging_strategy: 'same', state_top_saltenv: 'baz' }, {}],
  ];
  for (const [name, config, expected, limited] of cases) {
    it(name, async () => {
      assert.deepEqual(await showTop(config, tree(limited === true)), expected);
    });
  }

  it('the limited-base merge gains baz once base adds a baz section (second half of test_merge_strategy_merge_limited_base)', async () => {
    const t = tree(true);
    t.base!['top.sls'] += "baz:\n  '*':\n    - base_baz\n";
    assert.deepEqual(await showTop({ top_file_merging_strategy: 'merge' }, t), { base: ['base_base'], foo: ['foo_foo'], bar: ['bar_bar'], baz: ['base_baz'] });
  });
});

describe('saltenv= on a highstate (Salt reads only that top file, then keeps only its section)', () => {
  for (const strategy of ['merge', 'same', 'merge_all']) {
    it(`${strategy}: saltenv=foo gives foo's own section of foo's top file`, async () => {
      assert.deepEqual(await showTop({ top_file_merging_strategy: strategy }, tree(), { saltenv: 'foo' }), { foo: ['foo_foo'] });
    });
  }

  it('saltenv=baz (no top file) gives nothing, even with same and a default_top', async () => {
    assert.deepEqual(await showTop({ top_file_merging_strategy: 'same' }, tree(), { saltenv: 'baz' }), {});
  });
});

describe('env_order', () => {
  it('an environment env_order leaves out is not read', async () => {
    // merge_all reading only bar and foo: base's top file does not count
    assert.deepEqual(await showTop({ top_file_merging_strategy: 'merge_all', env_order: ['bar', 'foo'] }), {
      base: ['bar_base', 'foo_base'],
      foo: ['bar_foo', 'foo_foo'],
      bar: ['bar_bar', 'foo_bar'],
      baz: ['bar_baz', 'foo_baz'],
    });
  });

  it('topEnvsToRead: base first then the rest; env_order filtered by the listed environments and deduplicated', () => {
    assert.deepEqual(topEnvsToRead(['bar', 'base', 'foo'], {}), ['base', 'bar', 'foo']);
    assert.deepEqual(topEnvsToRead(['bar', 'base', 'foo'], { envOrder: ['foo', 'nope', 'foo', 'base'] }), ['foo', 'base']);
    assert.deepEqual(topEnvsToRead([], { envOrder: ['foo', 'base'] }), ['foo', 'base']);
    assert.deepEqual(topEnvsToRead(['bar', 'base'], { saltenv: 'bar', stateTopSaltenv: 'base' }), ['bar']);
    assert.deepEqual(topEnvsToRead(['bar', 'base'], { stateTopSaltenv: 'bar' }), ['bar']);
  });
});

describe('mergeTops edge cases', () => {
  it('merge_all appends only the missing names and keeps the later match type', () => {
    const tops = new Map([
      ['base', [{ base: { 'G@os:Debian': [{ match: 'compound' }, 'a', 'b'] } }]],
      ['dev', [{ base: { 'G@os:Debian': ['b', 'c', { match: 'grain' }] } }]],
    ]);
    const { top } = mergeTops(tops, 'merge_all');
    assert.deepEqual(top.get('base')?.get('G@os:Debian')?.entries, [{ match: 'grain' }, 'a', 'b', 'c']);
  });

  it('merge: a section the strategy reads that is not a mapping is reported; one it ignores is not', () => {
    const tops = new Map([
      ['base', [{ base: ['oops'] }]],
      ['dev', [{ qa: 'ignored anyway', dev: { '*': ['x'] } }]],
    ]);
    const { top, malformed } = mergeTops(tops, 'merge');
    assert.deepEqual(malformed, [['base', 'base']]);
    assert.deepEqual([...top.keys()], ['dev']);
  });

  it("same with an empty default_top is a compile error naming the option (Salt's SaltRenderError)", async () => {
    const h = harness(tree(), { top_file_merging_strategy: 'same', default_top: '' });
    const r = await h.call('state.show_top', [], {}, { minionId: 'web1', grainsData: { id: 'web1' } } as never);
    assert.equal(r.error?.code, 'STATE_COMPILE_FAILED');
    assert.match(String((r.return as string[])[0]), /default_top is empty/);
  });

  it('a {env: sls} entry selects an SLS of another environment', async () => {
    const t = { base: { 'top.sls': "base:\n  '*':\n    - core\n    - foo: web\n" }, foo: {} };
    assert.deepEqual(await showTop({ env_order: [] }, t), { base: ['core'], foo: ['web'] });
  });
});

describe("the minion's saltenv and lock_saltenv options (Salt's get_sls_opts)", () => {
  const call = async (fun: string, args: unknown[], kwarg: Record<string, unknown>, config: Record<string, unknown>, t = tree()) => {
    const h = harness(t, { env_order: ENVS, ...config });
    return h.call(fun, args, kwarg, { minionId: 'web1', grainsData: { id: 'web1' } } as never);
  };

  it('saltenv: foo limits a highstate to foo, and names SLS files from foo when the call passes no saltenv=', async () => {
    const top = await call('state.show_top', [], {}, { saltenv: 'foo' });
    assert.deepEqual(top.return, { foo: ['foo_foo'] });
    const t = tree();
    t.foo!['only_foo.sls'] = 'x:\n  rec.state: []\n';
    const sls = await call('state.show_sls', ['only_foo'], {}, { saltenv: 'foo' }, t);
    assert.equal(sls.success, true, JSON.stringify(sls.return));
    assert.equal((sls.return as Record<string, { __env__: string }>).x?.__env__, 'foo');
    // the call's own saltenv= still wins without lock_saltenv
    assert.deepEqual((await call('state.show_top', [], { saltenv: 'bar' }, { saltenv: 'foo' })).return, { bar: ['bar_bar'] });
  });

  it('lock_saltenv refuses another saltenv= (BAD_ARGUMENTS naming the option); the same one is fine', async () => {
    const refused = await call('state.show_top', [], { saltenv: 'bar' }, { saltenv: 'foo', lock_saltenv: true });
    assert.equal(refused.error?.code, 'BAD_ARGUMENTS');
    assert.match(refused.error?.message ?? '', /lock_saltenv is enabled, saltenv cannot be changed/);
    const same = await call('state.show_top', [], { saltenv: 'foo' }, { saltenv: 'foo', lock_saltenv: true });
    assert.deepEqual(same.return, { foo: ['foo_foo'] });
  });
});
