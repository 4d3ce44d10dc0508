// Issue 21 point 6 (threats.md #45) at the compiler: with untrustedGrains (the master's renders)
// a grain holding a newline cannot add an SLS to the top file or a key to a pillar SLS; the
// render is refused with GRAIN_UNSAFE naming the minion and the grain, and other minions and
// grains no template reads are not affected.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compilePillar, memoryPillarSource } from '../../../src/pillar/index.js';

const opts = { strategy: 'smart', mergeLists: false, untrustedGrains: true } as const;

const tree = memoryPillarSource({
  base: {
    // the top file
    'top.sls': "base:\n  '*':\n    - common\n    - roles.{{ grains.get('role') }}\n  'banner:*two*':\n    - match: grain\n    - banner\n",
    'common.sls': "site: {{ grains['site'] }}\n",
    'roles/web.sls': 'role: web\n',
    'roles/db.sls': 'role: db\n',
    'dbsecret.sls': 'db_password: hunter2\n',
    'banner.sls': 'has_banner: true\n',
  },
});

const db1 = { id: 'db1', grains: { id: 'db1', role: 'db', site: 'dc1', banner: 'line one\nline two' } };
const web2 = { id: 'web2', grains: { id: 'web2', role: 'web\n    - dbsecret', site: 'dc1' } };
const web3 = { id: 'web3', grains: { id: 'web3', role: 'web', site: 'dc1\ndb_access: granted' } };

describe('compilePillar with untrustedGrains: grains cannot inject YAML', () => {
  it("the issue's attack: role `web\\n    - dbsecret` in `- roles.{{ grains.get('role') }}` adds no SLS; GRAIN_UNSAFE names web2 and role", async () => {
    const r = await compilePillar(tree, web2, opts);
    assert.equal(r.pillar.db_password, undefined);
    assert.deepEqual(r.unsafeGrains, ['role']);
    assert.equal(r.errors.length, 1, r.errors.join('\n'));
    assert.match(r.errors[0]!, /^Rendering top\.sls in saltenv 'base' failed: pillar_roots base:top\.sls:4(:\d+)?: GRAIN_UNSAFE: minion web2: grain role contains a newline/);
    assert.deepEqual(r.top, {}, 'the poisoned top file gives no SLS at all');
  });

  it('a newline in a grain read by a pillar SLS adds no key; GRAIN_UNSAFE names web3 and site', async () => {
    const r = await compilePillar(tree, web3, opts);
    assert.equal(r.pillar.db_access, undefined);
    assert.deepEqual(r.unsafeGrains, ['site']);
    assert.equal(r.errors.length, 1, r.errors.join('\n'));
    assert.match(r.errors[0]!, /^Rendering SLS 'common' failed: pillar_roots base:common\.sls:1(:\d+)?: GRAIN_UNSAFE: minion web3: grain site contains a newline/);
  });

  it('a multi-line grain no template reads is no error, and a grain matcher still matches it', async () => {
    const r = await compilePillar(tree, db1, opts);
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.unsafeGrains, []);
    assert.deepEqual(r.pillar, { site: 'dc1', role: 'db', has_banner: true });
  });

  it('without untrustedGrains (a masterless minion rendering its own grains) grains render as given', async () => {
    // the minion injecting into its own render is no escalation; this is what the master refuses
    const r = await compilePillar(tree, web2, { strategy: 'smart', mergeLists: false });
    assert.deepEqual(r.errors, []);
    assert.equal(r.pillar.db_password, 'hunter2');
  });
});
