// file_tree on a real directory: Salt's hosts/<id>/ and nodegroups/<group>/ layout (the host's
// files win), one trailing newline dropped unless keep_newline (True or globs, `./name` at the
// top), templates with render_default and the renderer lists, links to directories followed only
// with follow_dir_links, a missing root_dir as EXT_PILLAR_FAILED, and a stamp that follows edits.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { compilePillar, memoryPillarSource, planExtPillar } from '../../../src/pillar/index.js';

const setup = { pillarenv: null, pillarenvRoots: undefined, cmdTimeoutMs: 10_000 };
const empty = memoryPillarSource({ base: { 'top.sls': 'base: {}\n' } });
const nodegroups = { webs: 'web*', dbs: 'L@db1' };

describe('file_tree', () => {
  let root: string;
  const put = (rel: string, text: string): void => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  };
  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-ftree-'));
    put('hosts/web1/apache/port', '80\n');
    put('hosts/web1/apache/ssl.key', '-----BEGIN KEY-----\nabc\n-----END KEY-----\n');
    put('hosts/web1/motd', 'hi\n\n');
    fs.mkdirSync(path.join(root, 'hosts/web1/empty'));
    put('nodegroups/webs/apache/port', '8080\n');
    put('nodegroups/webs/role', 'web\n');
    put('nodegroups/dbs/role', 'db\n');
    put('nodegroups/unknown/role', 'never\n');
    put('shared/data/value', 'linked\n');
    fs.symlinkSync(path.join(root, 'shared/data'), path.join(root, 'hosts/web1/linked'));
    put('hosts/tmpl/port', '{{ 40 + 40 }}\n');
    put('hosts/tmpl/text', '#!jinja\nid={{ opts.id }}\n');
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  const run = async (id: string, opts: Record<string, unknown>) => {
    const plan = planExtPillar([{ file_tree: { root_dir: root, ...opts } }], setup);
    const r = await compilePillar(empty, { id, grains: { id }, nodegroups }, { strategy: 'smart', mergeLists: false, ext: plan.sources });
    return r;
  };

  test("hosts/<id> over the minion's nodegroups, one trailing newline dropped, links to directories not followed", async () => {
    const r = await run('web1', {});
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.pillar, {
      apache: { port: '80', 'ssl.key': '-----BEGIN KEY-----\nabc\n-----END KEY-----' },
      motd: 'hi\n',
      empty: {},
      linked: {},
      role: 'web',
    });
    assert.deepEqual((await run('db1', {})).pillar, { role: 'db' });
    assert.deepEqual((await run('other', {})).pillar, {}, 'no host directory, no nodegroup: nothing, and no error');
  });

  test('keep_newline: True keeps every newline; globs keep matching paths only (./name at the top, as Salt joins them)', async () => {
    const all = (await run('web1', { keep_newline: true })).pillar as { apache: { port: string }; motd: string };
    assert.equal(all.apache.port, '80\n');
    assert.equal(all.motd, 'hi\n\n');
    const some = (await run('web1', { keep_newline: ['apache/ssl.*', './motd'] })).pillar as { apache: Record<string, string>; motd: string; role: string };
    assert.equal(some.apache['ssl.key'], '-----BEGIN KEY-----\nabc\n-----END KEY-----\n');
    assert.equal(some.apache.port, '80');
    assert.equal(some.motd, 'hi\n\n');
    assert.equal(some.role, 'web', 'a nodegroup file not matched loses its newline');
    const bare = (await run('web1', { keep_newline: ['motd'] })).pillar as { motd: string };
    assert.equal(bare.motd, 'hi\n', "'motd' does not match './motd'");
  });

  test('follow_dir_links reads the linked directory', async () => {
    assert.deepEqual(((await run('web1', { follow_dir_links: true })).pillar as { linked: unknown }).linked, { value: 'linked' });
  });

  test('template: True renders each file with render_default (jinja|yaml) or its own shebang; renderer lists skip renderers', async () => {
    assert.deepEqual((await run('tmpl', { template: true })).pillar, { port: 80, text: 'id=tmpl' });
    assert.deepEqual((await run('tmpl', { template: true, render_default: 'jinja' })).pillar, { port: '80', text: 'id=tmpl' });
    assert.deepEqual((await run('tmpl', { template: true, renderer_blacklist: ['yaml'] })).pillar, { port: '80', text: 'id=tmpl' });
    assert.deepEqual((await run('tmpl', { template: true, renderer_whitelist: ['jinja'] })).pillar, { port: '80', text: 'id=tmpl' });
    assert.deepEqual(((await run('tmpl', { template: true, renderer_whitelist: ['yaml'] })).pillar as { text: string }).text, '#!jinja\nid={{ opts.id }}', 'every renderer skipped: the text');
    assert.deepEqual((await run('tmpl', {})).pillar, { port: '{{ 40 + 40 }}', text: '#!jinja\nid={{ opts.id }}' });
  });

  test('a template that does not render is EXT_PILLAR_FAILED naming the file and line', async () => {
    put('hosts/bad/x', 'ok: 1\n{{ nope( }}\n');
    const r = await run('bad', { template: true });
    assert.equal(r.errors.length, 1);
    assert.ok(r.errors[0]!.startsWith(`Failed to load ext_pillar #1 (file_tree): file_tree ${path.join(root, 'hosts/bad/x')}:2:`), r.errors[0]);
  });

  test('a missing root_dir is EXT_PILLAR_FAILED, one of the pillar errors', async () => {
    const plan = planExtPillar([{ file_tree: { root_dir: path.join(root, 'nope') } }], setup);
    const r = await compilePillar(empty, { id: 'web1', grains: {} }, { strategy: 'smart', mergeLists: false, ext: plan.sources });
    assert.deepEqual(r.errors, [`Failed to load ext_pillar #1 (file_tree): file_tree root_dir ${path.join(root, 'nope')} does not exist or is not a directory: create it or fix root_dir`]);
  });

  test('the stamp changes when a file under root_dir is edited (the master renders again)', () => {
    const src = planExtPillar([{ file_tree: { root_dir: root } }], setup).sources[0]!;
    const before = src.stamp();
    assert.equal(src.stamp(), before);
    put('hosts/web1/new', 'x');
    assert.notEqual(src.stamp(), before);
  });
});
