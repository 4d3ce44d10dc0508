// issue 22: a tree's own Python renderer end to end. A real master serves `_renderers/objects.py`
// (test/fixtures/tree-renderers/objects.py, written for the tests in the style of operators'
// pyobjects variants); before a sync an `#!objects` SLS is refused with a message naming
// saltutil.sync_renderers, saltutil.sync_renderers brings it to a real minion's
// <cachedir>/extmods/renderers, and then the SLS (and a `#!jinja|objects` one importing a helper
// through salt.fileclient and salt.utils.dictupdate) applies with real effects: files written.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Cluster } from '../helpers/cluster.js';
import { repoRoot } from '../helpers/repo.js';

function write(file: string, data: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data);
}

describe("a tree's own Python renderer (_renderers/objects.py) on a real master and minion", () => {
  let cluster: Cluster;
  let out: string;

  const run = async (...args: string[]): Promise<{ code: number | null; ret: unknown; text: string }> => {
    const r = await cluster.brine(['run', 'r1', ...args, '--out', 'json', '--static', '-t', '60'], { timeoutMs: 90_000 });
    const body = r.stdout.trim();
    return { code: r.code, ret: body.startsWith('{') ? (JSON.parse(body) as Record<string, unknown>).r1 : undefined, text: r.stdout + r.stderr };
  };

  before(async () => {
    cluster = await Cluster.create();
    out = path.join(cluster.root, 'out');
    fs.mkdirSync(out, { recursive: true });
    const srv = path.join(cluster.root, 'master', 'srv', 'salt');
    fs.mkdirSync(path.join(srv, '_renderers'), { recursive: true });
    fs.copyFileSync(path.join(repoRoot(), 'test', 'fixtures', 'tree-renderers', 'objects.py'), path.join(srv, '_renderers', 'objects.py'));
    write(
      path.join(srv, 'lib', 'defs.sls'),
      [
        '#!objects',
        'import salt.utils.dictupdate',
        '',
        'def managed(path, **kw):',
        '    args = salt.utils.dictupdate.merge({"mode": "0640", "makedirs": True}, kw)',
        '    return File.managed(path, **args)',
        '',
      ].join('\n'),
    );
    write(
      path.join(srv, 'objapp', 'init.sls'),
      [
        '#!objects',
        'from salt://lib/defs.sls import managed',
        `with managed("${out}/app/app.conf", contents="id=" + grains("id")):`,
        `    Cmd.run("${out}/app/stamp", name="echo ran > ${out}/app/stamp", creates="${out}/app/stamp")`,
        '',
      ].join('\n'),
    );
    write(path.join(srv, 'objjinja.sls'), ['#!jinja|objects', `File.managed("${out}/{{ grains['id'] }}.txt", contents="{{ sls }} from jinja")`, ''].join('\n'));
    await cluster.startMaster({ auto_accept: true });
    const minion = cluster.startMinion('r1');
    await minion.waitForOutput(/ready to receive requests/, 30_000);
  });
  after(() => cluster.cleanup());

  it('before a sync the shebang is refused with a message naming saltutil.sync_renderers, and nothing is written', async () => {
    const r = await run('state.apply', 'objapp');
    assert.notEqual(r.code, 0);
    assert.match(r.text, /RENDERER_UNSUPPORTED|'objects' is no renderer of brine's/);
    assert.match(r.text, /saltutil\.sync_renderers/);
    assert.equal(fs.existsSync(path.join(out, 'app')), false);
  });

  it('saltutil.sync_renderers copies it to the minion; sync_all lists renderers with the other kinds', async () => {
    const r = await run('saltutil.sync_renderers');
    assert.equal(r.code, 0, r.text);
    assert.deepEqual(r.ret, ['renderers.objects']);
    const synced = path.join(cluster.root, 'minions', 'r1', 'var', 'cache', 'brine', 'minion', 'extmods', 'renderers', 'objects.py');
    assert.equal(fs.readFileSync(synced, 'utf8'), fs.readFileSync(path.join(repoRoot(), 'test', 'fixtures', 'tree-renderers', 'objects.py'), 'utf8'));
    const all = await run('saltutil.sync_all');
    assert.deepEqual(all.ret, { grains: [], modules: [], states: [], renderers: [] });
  });

  it('then the #!objects SLS applies: its states run with the requisites its with block made, through its imported helper', async () => {
    const r = await run('state.apply', 'objapp');
    assert.equal(r.code, 0, r.text);
    const ret = r.ret as Record<string, { result: boolean; comment: string; __id__: string }>;
    const results = Object.values(ret);
    assert.equal(results.length, 2);
    assert.ok(
      results.every((x) => x.result === true),
      JSON.stringify(ret),
    );
    assert.equal(fs.readFileSync(path.join(out, 'app', 'app.conf'), 'utf8'), 'id=r1\n');
    assert.equal(fs.statSync(path.join(out, 'app', 'app.conf')).mode & 0o777, 0o640, "the helper's defaults merged by salt.utils.dictupdate");
    assert.equal(fs.readFileSync(path.join(out, 'app', 'stamp'), 'utf8'), 'ran\n');
    const low = await run('state.show_low_sls', 'objapp');
    const cmd = (low.ret as Array<Record<string, unknown>>).find((c) => c.state === 'cmd');
    assert.deepEqual(cmd?.require, [{ file: `${out}/app/app.conf` }]);
  });

  it('#!jinja|objects: Jinja renders first, the renderer reads its text', async () => {
    const r = await run('state.apply', 'objjinja');
    assert.equal(r.code, 0, r.text);
    assert.equal(fs.readFileSync(path.join(out, 'r1.txt'), 'utf8'), 'objjinja from jinja\n');
  });
});
