// Issue 21 point 6 (threats.md #45): a grain holding a newline, rendered by the master into the
// pillar top file or a pillar SLS, must not add SLS or keys. A real master renders the pillar of
// three real minions over loopback TLS: db1 (role db, which gets the database secret), web2
// whose config grain `role: "web\n    - dbsecret"` would add the secret's SLS to its top file
// (the attack), and web3 whose `site` grain would add a key to its pillar SLS. The
// poisoned renders are refused with GRAIN_UNSAFE naming the minion and the grain (in the
// minion's _errors and the master log), nothing of db1's reaches them, and db1, which has a
// multi-line grain that no template reads, keeps working.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, waitUntil, type Proc } from '../helpers/cluster.js';

function write(file: string, data: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data);
}

const SECRET = `dbpass-${randomBytes(8).toString('hex')}`;

const GRAINS: Record<string, Record<string, unknown>> = {
  // a multi-line grain that no pillar template reads stays legal
  db1: { role: 'db', site: 'dc1', banner: 'line one\nline two' },
  web2: { role: 'web\n    - dbsecret', site: 'dc1' },
  web3: { role: 'web', site: 'dc1\ndb_access: granted' },
};

describe('pillar: a grain with a newline cannot inject into the top file or an SLS rendered on the master', () => {
  let cluster: Cluster;
  let master: Proc;

  const items = async (id: string): Promise<Record<string, unknown>> => {
    const r = await cluster.brine(['run', '--static', id, 'pillar.items', '--out', 'json', '-t', '30'], { timeoutMs: 60_000 });
    assert.ok(!r.stdout.includes(SECRET) || id === 'db1', `${id} received db1's secret: ${r.stdout}`);
    const out = JSON.parse(r.stdout || '{}') as Record<string, Record<string, unknown>>;
    return out[id] ?? {};
  };

  /** The minion's pillar once it was rendered with its grains (the first render may predate them). */
  const settled = (id: string, done: (p: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> =>
    waitUntil(
      async () => {
        await cluster.brine(['run', id, 'saltutil.refresh_pillar', '-t', '30'], { timeoutMs: 60_000 });
        const p = await items(id);
        return done(p) ? p : undefined;
      },
      45_000,
      `the pillar of ${id} rendered with its grains`,
    );

  before(async () => {
    cluster = await Cluster.create();
    const pillarRoot = path.join(cluster.root, 'master', 'srv', 'pillar');
    // the top file: the role grain picks the SLS
    write(path.join(pillarRoot, 'top.sls'), "base:\n  '*':\n    - common\n    - roles.{{ grains.get('role') }}\n");
    write(path.join(pillarRoot, 'common.sls'), "site: {{ salt['grains.get']('site') }}\n");
    write(path.join(pillarRoot, 'roles', 'web.sls'), 'role: web\n');
    write(path.join(pillarRoot, 'roles', 'db.sls'), 'include:\n  - dbsecret\nrole: db\n');
    write(path.join(pillarRoot, 'dbsecret.sls'), `db_password: ${SECRET}\n`);
    master = await cluster.startMaster({ auto_accept: true });
    const minions = Object.entries(GRAINS).map(([id, grains]) => cluster.startMinion(id, { grains }));
    await Promise.all(minions.map((m) => m.waitForOutput(/ready to receive requests/)));
  });
  after(() => cluster.cleanup());

  it('db1 gets its secret; its multi-line grain that no template reads is no error', async () => {
    const p = await settled('db1', (x) => x.role === 'db');
    assert.deepEqual(p, { site: 'dc1', role: 'db', db_password: SECRET });
  });

  it("web2's role grain `web\\n    - dbsecret` in the top file is GRAIN_UNSAFE: no dbsecret, the error names web2 and role", async () => {
    const p = await settled('web2', (x) => Array.isArray(x._errors) && (x._errors as string[]).some((e) => e.includes('GRAIN_UNSAFE')));
    assert.equal(p.db_password, undefined);
    const errors = p._errors as string[];
    assert.ok(
      errors.some((e) => /top\.sls:\d+/.test(e) && /minion web2: grain role contains a newline/.test(e)),
      JSON.stringify(errors),
    );
    // fails closed: nothing of the poisoned render, not even the SLS it would have given
    assert.deepEqual(Object.keys(p), ['_errors']);
    await master.waitForOutput(/refused to render the pillar of web2 with its grain\(s\) role\b/);
  });

  it("web3's site grain with a newline in a pillar SLS is GRAIN_UNSAFE: no injected key, the error names web3 and site", async () => {
    // stops at the injected key too, so that the attack (on a master without the check) fails fast
    const p = await settled('web3', (x) => x.db_access !== undefined || (Array.isArray(x._errors) && (x._errors as string[]).some((e) => e.includes('GRAIN_UNSAFE'))));
    assert.equal(p.db_access, undefined, `web3 injected a key into its pillar: ${JSON.stringify(p)}`);
    const errors = p._errors as string[];
    assert.ok(
      errors.some((e) => /common\.sls:\d+/.test(e) && /minion web3: grain site contains a newline/.test(e)),
      JSON.stringify(errors),
    );
    await master.waitForOutput(/refused to render the pillar of web3 with its grain\(s\) site\b/);
    // the master log names the grain, never a pillar value
    assert.ok(!master.output.includes(SECRET), 'the secret reached the master log');
  });
});
