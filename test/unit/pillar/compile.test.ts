// The pillar compiler: top matching with the states' matchers, render with grains and the pillar
// merged so far, include (with key/defaults, relative and cycles), merge strategies and errors
// that name the file and line.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compilePillar, memoryPillarSource, mergePillar, checkMergeStrategy } from '../../../src/pillar/index.js';

const opts = { strategy: 'smart', mergeLists: false } as const;
const web = { id: 'web1', grains: { id: 'web1', os: 'Debian', os_family: 'Debian', roles: ['web'] } };
const db = { id: 'db1', grains: { id: 'db1', os: 'RedHat', os_family: 'RedHat', roles: ['db'] } };

describe('pillar merge strategies', () => {
  const a = { pkgs: { web: 'nginx', db: 'pg' }, users: ['alice'], x: 1 };
  const b = { pkgs: { web: 'apache' }, users: ['bob', 'alice'] };
  it('recurse (and smart) merges mappings and replaces lists', () => {
    for (const s of ['recurse', 'smart', 'none'] as const) {
      assert.deepEqual(mergePillar(a, b, s, false), { pkgs: { web: 'apache', db: 'pg' }, users: ['bob', 'alice'], x: 1 });
    }
  });
  it('pillar_merge_lists extends lists without duplicates', () => {
    assert.deepEqual(mergePillar(a, b, 'recurse', true).users, ['alice', 'bob']);
  });
  it('overwrite replaces a whole top-level key', () => {
    assert.deepEqual(mergePillar(a, b, 'overwrite', false), { pkgs: { web: 'apache' }, users: ['bob', 'alice'], x: 1 });
  });
  it('never changes its inputs', () => {
    const before = JSON.stringify(a);
    mergePillar(a, b, 'recurse', true);
    assert.equal(JSON.stringify(a), before);
  });
  it('aggregate and unknown strategies are coded config errors', () => {
    assert.throws(
      () => checkMergeStrategy('aggregate'),
      (e: { code: string; message: string }) => e.code === 'CONFIG_VALUE' && /yamlex/.test(e.message),
    );
    assert.throws(
      () => checkMergeStrategy('deep'),
      (e: { code: string }) => e.code === 'CONFIG_VALUE',
    );
    assert.equal(checkMergeStrategy('overwrite'), 'overwrite');
  });
});

describe('compilePillar', () => {
  const tree = {
    base: {
      'top.sls': "base:\n  '*':\n    - common\n  'os:Debian':\n    - match: grain\n    - debian\n  'db*':\n    - db\n",
      'common.sls': "{% from 'map.jinja' import conf with context %}\npkg: {{ conf.pkg }}\nshared:\n  a: 1\n  b: 1\n",
      'map.jinja': "{% set conf = salt['grains.filter_by']({'Debian': {'pkg': 'apache2'}, 'RedHat': {'pkg': 'httpd'}}) %}",
      'debian.sls': "shared:\n  b: 2\nseen_pkg: {{ pillar['pkg'] }}\n",
      'db.sls': 'include:\n  - db.users\n  - db.conf: {key: "conf:main", defaults: {port: 5432}}\nrole: db\nusers: [root]\n',
      'db/users.sls': 'users: [alice, bob]\nrole: overridden-by-includer\n',
      'db/conf.sls': 'port: {{ port }}\n',
    },
  };
  const src = memoryPillarSource(tree);

  it('renders per minion with its grains, merged in top-file order, with the pillar so far', async () => {
    const w = await compilePillar(src, web, opts);
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.pillar, { pkg: 'apache2', shared: { a: 1, b: 2 }, seen_pkg: 'apache2' });
    assert.deepEqual(w.top, { base: ['common', 'debian'] });
    const d = await compilePillar(src, db, opts);
    assert.deepEqual(d.errors, []);
    assert.equal(d.pillar.pkg, 'httpd');
    assert.equal(d.pillar.seen_pkg, undefined);
  });

  it('include: included first, the including file wins; key nests; defaults are variables', async () => {
    const d = await compilePillar(src, db, opts);
    assert.deepEqual(d.pillar.users, ['root']);
    assert.equal(d.pillar.role, 'db');
    assert.deepEqual(d.pillar.conf, { main: { port: 5432 } });
  });

  it('a top that matches nothing gives an empty pillar and no error', async () => {
    const r = await compilePillar(memoryPillarSource({ base: { 'top.sls': "base:\n  'nomatch':\n    - x\n", 'x.sls': 'a: 1\n' } }), web, opts);
    assert.deepEqual(r, { pillar: {}, errors: [], top: {}, unsafeGrains: [] });
  });

  it('a YAML error names the file and line, and the other SLS still render', async () => {
    const bad = memoryPillarSource({ base: { 'top.sls': "base:\n  '*':\n    - good\n    - bad\n", 'good.sls': 'ok: 1\n', 'bad.sls': 'a: 1\nb: [unclosed\nc: 3\n' } });
    const r = await compilePillar(bad, web, opts);
    assert.equal(r.errors.length, 1);
    assert.match(r.errors[0]!, /bad\.sls/);
    assert.match(r.errors[0]!, /bad\.sls:\d+/);
    assert.deepEqual(r.pillar, { ok: 1 });
  });

  it('a Jinja error names the file and line', async () => {
    const bad = memoryPillarSource({ base: { 'top.sls': "base:\n  '*':\n    - bad\n", 'bad.sls': 'a: 1\nb: {{ nope.missing }}\n' } });
    const r = await compilePillar(bad, web, opts);
    assert.match(r.errors[0]!, /bad\.sls:2:/);
  });

  it('a missing SLS, a non-mapping SLS and a function the master cannot run are errors', async () => {
    const t = memoryPillarSource({ base: { 'top.sls': "base:\n  '*':\n    - gone\n    - list\n    - cmd\n", 'list.sls': '- a\n', 'cmd.sls': "x: {{ salt['cmd.run']('id') }}\n" } });
    const r = await compilePillar(t, web, opts);
    assert.equal(r.errors.length, 3);
    assert.match(r.errors[0]!, /'gone'.*not available/);
    assert.match(r.errors[1]!, /does not render to a dictionary/);
    assert.match(r.errors[2]!, /cmd\.run.*cannot run in a pillar SLS/);
  });

  it("pillar.file_exists in a top file includes an optional SLS only when pillar_roots has it (petrows' secrets.sls, issue 22)", async () => {
    const top = "base:\n  '*':\n    - common\n{% if salt['pillar.file_exists']('secrets.sls') %}\n    - secrets\n{% endif %}\n";
    const files = { 'top.sls': top, 'common.sls': 'a: 1\n' };
    const without = await compilePillar(memoryPillarSource({ base: files }), web, opts);
    assert.deepEqual(without.errors, []);
    assert.deepEqual(without.pillar, { a: 1 });
    const withSecrets = await compilePillar(memoryPillarSource({ base: { ...files, 'secrets.sls': 'password: s3cret\n' } }), web, opts);
    assert.deepEqual(withSecrets.errors, []);
    assert.deepEqual(withSecrets.pillar, { a: 1, password: 's3cret' });
    // saltenv narrows the search to one environment; an unknown one has no files
    const envs = memoryPillarSource({
      base: {
        'top.sls': "base:\n  '*':\n    - common\n",
        'common.sls':
          "in_base: {{ salt['pillar.file_exists']('x.sls', 'base') }}\nin_dev: {{ salt['pillar.file_exists']('x.sls', saltenv='dev') }}\nnowhere: {{ salt['pillar.file_exists']('x.sls', 'nosuch') }}\nany: {{ salt['pillar.file_exists']('x.sls') }}\n",
      },
      dev: { 'x.sls': 'x: 1\n' },
    });
    const r = await compilePillar(envs, web, opts);
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.pillar, { in_base: false, in_dev: true, nowhere: false, any: true });
  });

  it('an include cycle terminates', async () => {
    const t = memoryPillarSource({ base: { 'top.sls': "base:\n  '*':\n    - a\n", 'a.sls': 'include: [b]\na: 1\n', 'b.sls': 'include: [a]\nb: 1\n' } });
    const r = await compilePillar(t, web, opts);
    assert.deepEqual(r.pillar, { a: 1, b: 1 });
  });

  it('pillarenv limits the top to one environment; globs in the top expand', async () => {
    const t = memoryPillarSource({
      base: { 'top.sls': "base:\n  '*':\n    - apps.*\n", 'apps/one.sls': 'one: 1\n', 'apps/two.sls': 'two: 2\n' },
      dev: { 'top.sls': "dev:\n  '*':\n    - d\n", 'd.sls': 'dev: true\n' },
    });
    assert.deepEqual((await compilePillar(t, web, opts)).pillar, { one: 1, two: 2, dev: true });
    assert.deepEqual((await compilePillar(t, web, { ...opts, pillarenv: 'dev' })).pillar, { dev: true });
  });
});

describe('PillarRoots', () => {
  it('a pillar_roots that is not a mapping is CONFIG_VALUE naming pillar_roots', async () => {
    const { PillarRoots } = await import('../../../src/pillar/index.js');
    assert.throws(
      () => new PillarRoots({ pillar_roots: ['/srv/pillar'] }),
      (e: { code: string; message: string }) => e.code === 'CONFIG_VALUE' && /^pillar_roots/.test(e.message),
    );
  });
});

describe('compilePillar: the template data functions (issue 22)', () => {
  it('slsutil.merge, defaults.merge in place and file.dirname work in a pillar SLS, as the template answers them', async () => {
    const t = memoryPillarSource({
      base: {
        'top.sls': "base:\n  '*':\n    - app\n",
        'app.sls':
          "{% set base = {'port': 80, 'opts': {'a': 1}} %}{% do salt['defaults.merge'](base, {'opts': {'b': 2}}) %}" +
          "app: {{ salt['slsutil.merge'](base, {'port': 8080}) | json }}\ndir: {{ salt['file.dirname']('/etc/app/app.conf') }}\n",
      },
    });
    const r = await compilePillar(t, web, opts);
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.pillar, { app: { port: 8080, opts: { a: 1, b: 2 } }, dir: '/etc/app' });
  });
});
