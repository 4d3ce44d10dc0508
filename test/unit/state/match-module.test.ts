// match.* (salt/modules/match.py) against this minion's own ID, grains and pillar, with the
// publish matchers; an expression that cannot be evaluated is False, as Salt's functions return.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createMinionRegistry } from '../../../src/state/index.js';
import { makeCtx } from '../modules/context.js';

const registry = createMinionRegistry();
const ctx = makeCtx({
  minionId: 'web01.example.com',
  grainsData: { id: 'web01.example.com', os_family: 'Debian', roles: ['web', 'cache'], ipv4: ['10.1.2.3', '127.0.0.1'], nested: { zone: 'eu-1' } },
  pillar: () => ({ role: 'frontend', tier: { name: 'gold' } }),
});
const ret = async (fun: string, arg: unknown[], kwarg: Record<string, unknown> = {}) => {
  const r = await registry.call(fun, arg, kwarg, ctx);
  assert.equal(r.success, true, JSON.stringify(r));
  return r.return;
};

describe('match.*', () => {
  it('glob, pcre and list match the minion ID; minion_id matches another ID with these grains', async () => {
    assert.equal(await ret('match.glob', ['web*']), true);
    assert.equal(await ret('match.glob', ['db*']), false);
    assert.equal(await ret('match.glob', ['db*'], { minion_id: 'db01' }), true);
    assert.equal(await ret('match.pcre', ['^web\\d+\\.']), true);
    assert.equal(await ret('match.list', ['db01,web01.example.com']), true);
    assert.equal(await ret('match.list', [['db01', 'db02']]), false);
  });

  it('grain and pillar matchers traverse with the delimiter; list grains match any element', async () => {
    assert.equal(await ret('match.grain', ['roles:cache']), true);
    assert.equal(await ret('match.grain', ['nested:zone:eu-*']), true);
    assert.equal(await ret('match.grain', ['nested/zone/eu-1'], { delimiter: '/' }), true);
    assert.equal(await ret('match.grain_pcre', ['os_family:Deb.*']), true);
    assert.equal(await ret('match.pillar', ['tier:name:gold']), true);
    assert.equal(await ret('match.pillar_exact', ['role:front']), false);
    assert.equal(await ret('match.ipcidr', ['10.1.0.0/16']), true);
  });

  it('compound expressions; an invalid one is False', async () => {
    assert.equal(await ret('match.compound', ['G@os_family:Debian and web* and not G@roles:db']), true);
    assert.equal(await ret('match.compound', ['I@role:frontend or L@db01']), true);
    assert.equal(await ret('match.compound', ['G@os_family:RedHat or E@^db']), false);
    assert.equal(await ret('match.compound', ['and and (']), false);
  });

  it('filter_by: the first key whose expression matches, merge over it, else the default key or {}', async () => {
    const lookup = { 'db*': { port: 5432 }, 'web* and G@roles:web': { port: 80, opts: { a: 1 } }, default: { port: 0 } };
    assert.deepEqual(await ret('match.filter_by', [lookup]), { port: 80, opts: { a: 1 } });
    assert.deepEqual(await ret('match.filter_by', [lookup], { merge: { opts: { b: 2 } } }), { port: 80, opts: { a: 1, b: 2 } });
    assert.deepEqual(await ret('match.filter_by', [{ 'db*': 1, default: 2 }]), 2);
    assert.deepEqual(await ret('match.filter_by', [{ 'db*': 1 }]), {});
    assert.deepEqual(await ret('match.filter_by', [{ 'web*': 'g' }], { tgt_type: 'glob' }), 'g');
  });
});
