// issue 22: a tree's own Python renderers (`#!objects` from `_renderers/objects.py`) in a real
// python3, with brine's stand-in `salt` package. The renderers are test/fixtures/tree-renderers/,
// written for these tests in the style of operators' renderers (a pyobjects variant that imports
// salt.loader, salt.utils.files, salt.fileclient and salt.utils.pyobjects).

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { renderSls, treeRendererDirs } from '../../../src/render/index.js';
import { findTreeRenderer } from '../../../src/render/python/tree-renderers.js';
import { type Calls, fails, pyEnv } from '../../helpers/py-render.js';
import { repoRoot } from '../../helpers/repo.js';

const FIXTURES = path.join(repoRoot(), 'test', 'fixtures', 'tree-renderers');
const lines = (...l: string[]) => `${l.join('\n')}\n`;

const DEFS = lines(
  'import salt.utils.dictupdate',
  '',
  'def perms(user):',
  '    return salt.utils.dictupdate.merge({"mode": "0644", "opts": {"a": 1, "l": [1]}}, {"user": user, "opts": {"b": 2, "l": [2]}}, merge_lists=True)',
  '',
  'class Paths(Map):',
  '    class Debian:',
  '        conf = "/etc/debian.conf"',
  '    class RedHat:',
  '        conf = "/etc/redhat.conf"',
);

const env = (calls: Calls = { made: [] }, files: Record<string, string> = { 'lib/defs.sls': DEFS }) => pyEnv(calls, { treeRendererDirs: [FIXTURES] }, files);

describe("a tree's own renderer (#!objects)", () => {
  test('builds states with Salt API names: factories for any module, with blocks, include, extend, imports through the file client, Map and dictupdate', async () => {
    const calls: Calls = { made: [] };
    const text = lines(
      '#!objects',
      'from salt://lib/defs.sls import perms, Paths',
      "with Pkg.installed('nginx'):",
      "    File.managed(Paths.conf, contents=salt.cmd.run('echo'), **perms('www'))",
      "PostgresDatabase.present('shop', owner=pillar('app:name'))",
      "include('base.users')",
      "Service.running(extend('nginx'), enable=True)",
      "Test.nop('seen', kw=render_kwargs, input=input_type, ctx=context_seen)",
    );
    const data = await renderSls(text, env(calls));
    assert.deepEqual(Object.keys(data as object), ['nginx', '/etc/debian.conf', 'shop', 'seen', 'include', 'extend']);
    assert.deepEqual((data as Record<string, unknown>)['/etc/debian.conf'], {
      'file.managed': [{ contents: 'ran echo' }, { mode: '0644' }, { opts: { a: 1, b: 2, l: [1, 2] } }, { require: [{ pkg: 'nginx' }] }, { user: 'www' }],
    });
    assert.deepEqual((data as Record<string, unknown>).shop, { 'postgres_database.present': [{ owner: 'shop' }] });
    assert.deepEqual((data as Record<string, unknown>).include, ['base.users']);
    assert.deepEqual((data as Record<string, unknown>).extend, { nginx: { 'service.running': [{ enable: true }] } });
    // compile_template's keywords, a StringIO as the first renderer's input, __context__ from the loader
    assert.deepEqual((data as Record<string, unknown>).seen, {
      'test.nop': [{ ctx: { objects_loaded: true } }, { input: 'StringIO' }, { kw: ['rendered_sls', 'renderers', 'tmplpath'] }],
    });
    assert.deepEqual(
      calls.made.map((c) => c[0]),
      ['cmd.run'],
    );
  });

  test("the loader's names and compile_template's arguments reach the module; its __salt__ calls run brine's functions", async () => {
    const calls: Calls = { made: [] };
    const data = (await renderSls('#!probe -x 1\nsome text\n', env(calls))) as Record<string, Record<string, Array<Record<string, unknown>>>>;
    const got = Object.assign({}, ...data.probe!['test.nop']!) as Record<string, unknown>;
    assert.equal(got.input_type, 'StringIO');
    assert.equal(got.text, '#!probe -x 1\nsome text\n', 'the first renderer reads the whole file, as Salt hands it over');
    assert.equal(got.saltenv, 'base');
    assert.equal(got.sls, 'web');
    assert.deepEqual(got.kwargs, ['argline', 'rendered_sls', 'renderers', 'tmplpath']);
    assert.equal(got.argline, '-x 1');
    assert.deepEqual(got.at_import, { opts_id: 'web01' }, '__opts__ is set before the module runs');
    assert.equal(got.grain, 'web01');
    assert.equal(got.pillar, 'shop');
    assert.equal(got.called, 'ran hostname');
    assert.equal(got.sls_dunder, 'web');
    assert.equal(got.env_dunder, 'base');
    assert.equal(got.context, true);
    assert.deepEqual(calls.made, [['cmd.run', ['hostname'], {}]]);
  });

  test('in a pipeline: after jinja it reads the rendered text; after yaml it gets the data; text it returns goes on to yaml', async () => {
    const afterJinja = (await renderSls("#!jinja|probe\n{{ grains['id'] }}-{{ 1 + 1 }}\n", env())) as Record<string, Record<string, Array<Record<string, unknown>>>>;
    const a = Object.assign({}, ...afterJinja.probe!['test.nop']!) as Record<string, unknown>;
    assert.equal(a.input_type, 'StringIO');
    assert.equal(a.text, '\nweb01-2\n');
    const afterYaml = (await renderSls('#!yaml|probe\nkey: [1, 2]\n', env())) as Record<string, Record<string, Array<Record<string, unknown>>>>;
    const y = Object.assign({}, ...afterYaml.probe!['test.nop']!) as Record<string, unknown>;
    assert.equal(y.input_type, 'dict');
    assert.deepEqual(y.data, { key: [1, 2] });
    assert.deepEqual(await renderSls('#!upper|yaml\n__NAME__:\n  test.nop: []\n', env()), { 'upper-web': { 'test.nop': [] } });
  });

  test('a renderer that fails to load, or raises, is RENDERER_MODULE_FAILED with its file and the traceback; a missing salt module is RENDER_SALT_MODULE_MISSING', async () => {
    const load = await fails(renderSls('#!broken_import\nx\n', env()));
    assert.equal(load.code, 'RENDERER_MODULE_FAILED');
    assert.match(load.message, /salt:\/\/web\/init\.sls: the tree's renderer 'broken_import' \(.*broken_import\.py\) could not be loaded: RuntimeError: this renderer cannot load/);
    assert.match(load.message, /broken_import\.py", line 3/);
    const raised = await fails(renderSls("#!objects\nPkg.installed('a')\nraise ValueError('bad tree')\n", env()));
    assert.equal(raised.code, 'RENDERER_MODULE_FAILED');
    assert.match(raised.message, /failed while rendering it: ValueError: bad tree\n/);
    assert.match(raised.message, /line 3, in <module>/);
    const missing = await fails(renderSls('#!needs_missing\nx\n', env()));
    assert.equal(missing.code, 'RENDER_SALT_MODULE_MISSING');
    assert.match(missing.message, /needs_missing\.py:3 imports 'salt\.modules\.network', a Salt module brine's stand-in Salt package does not provide/);
    const fromImported = await fails(renderSls('#!objects\nfrom salt://lib/net.sls import x\n', env({ made: [] }, { 'lib/net.sls': 'import salt.modules.network\nx = 1\n' })));
    assert.equal(fromImported.code, 'RENDER_SALT_MODULE_MISSING');
    assert.match(fromImported.message, /imports 'salt\.modules'/);
    const refused = await fails(renderSls('#!refuses\nx\n', env()));
    assert.equal(refused.code, 'RENDERER_MODULE_FAILED');
    assert.match(refused.message, /could not be loaded: RuntimeError: .*refuses\.py: its __virtual__\(\) refused to load it: the frobnicator library is not installed/);
    const noFile = await fails(renderSls('#!objects\nfrom salt://lib/none.sls import x\n', env()));
    assert.equal(noFile.code, 'RENDERER_MODULE_FAILED');
    assert.match(noFile.message, /ImportError: Could not find the file 'salt:\/\/lib\/none\.sls'/);
  });

  test('an unknown renderer names where it was looked for; text at the end of a pipeline and options around it are refused', async () => {
    const unknown = await fails(renderSls('#!nosuch\nx\n', env()));
    assert.equal(unknown.code, 'RENDERER_UNSUPPORTED');
    assert.match(unknown.message, new RegExp(`'nosuch' is no renderer of brine's and there is no nosuch\\.py in ${FIXTURES}.*saltutil\\.sync_renderers`));
    const text = await fails(renderSls('#!jinja|upper\nx\n', env()));
    assert.equal(text.code, 'RENDER_FAILED');
    assert.match(text.message, /ends in text, not SLS data/);
    const gpg = await fails(renderSls('#!objects|gpg\nx\n', env()));
    assert.equal(gpg.code, 'RENDERER_UNSUPPORTED');
  });

  test('#!py files reach the shim too: salt.utils.dictupdate as Salt documents it, salt.exceptions', async () => {
    const text = lines(
      '#!py',
      'import salt.utils.dictupdate as du',
      'from salt.exceptions import CommandExecutionError, SaltRenderError',
      'def run():',
      '    a = {"x": {"y": 1, "l": [1]}, "k": 1}',
      '    b = {"x": {"z": 2, "l": [1, 2]}, "k": 2}',
      '    try:',
      "        __salt__['nosuch.fun']()",
      '        caught = None',
      '    except CommandExecutionError as exc:',
      '        caught = exc.brine_code',
      '    return {"r": {"test.nop": [',
      '        {"recurse": du.merge(a, b)},',
      '        {"lists": du.merge(a, b, merge_lists=True)},',
      '        {"list": du.merge(a, b, strategy="list")},',
      '        {"update": du.update({"x": {"y": 0}}, {"x": {"w": 3}})},',
      '        {"untouched": a},',
      '        {"caught": caught},',
      '        {"render_error": issubclass(SaltRenderError, Exception)},',
      '    ]}}',
    );
    const data = (await renderSls(text, env())) as Record<string, Record<string, Array<Record<string, unknown>>>>;
    const got = Object.assign({}, ...data.r!['test.nop']!) as Record<string, unknown>;
    assert.deepEqual(got.recurse, { x: { y: 1, l: [1, 2], z: 2 }, k: 2 });
    assert.deepEqual(got.lists, { x: { y: 1, l: [1, 2], z: 2 }, k: 2 });
    assert.deepEqual(got.list, {
      x: [
        { y: 1, l: [1] },
        { z: 2, l: [1, 2] },
      ],
      k: [1, 2],
    });
    assert.deepEqual(got.update, { x: { y: 0, w: 3 } });
    assert.deepEqual(got.untouched, { x: { y: 1, l: [1] }, k: 1 }, 'merge leaves its inputs alone');
    assert.equal(got.caught, 'UNKNOWN_FUNCTION');
    assert.equal(got.render_error, true);
  });
});

describe('where tree renderers are found', () => {
  let tmp: string;
  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-tree-rend-'));
    for (const d of ['a', 'b']) fs.mkdirSync(path.join(tmp, d), { recursive: true });
    fs.writeFileSync(path.join(tmp, 'a', 'objects.py'), '');
    fs.writeFileSync(path.join(tmp, 'b', 'objects.py'), '');
    fs.writeFileSync(path.join(tmp, 'b', 'other.py'), '');
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  test("Salt's order: <extension_modules>/renderers (default <cachedir>/extmods), then render_dirs; the first file wins", () => {
    assert.deepEqual(treeRendererDirs({ cachedir: '/var/cache/brine/minion' }), ['/var/cache/brine/minion/extmods/renderers']);
    assert.deepEqual(treeRendererDirs({ cachedir: '/c', extension_modules: '/ext', render_dirs: ['/r1', '/r2'] }), ['/ext/renderers', '/c/extmods/renderers', '/r1', '/r2']);
    const dirs = [path.join(tmp, 'a'), path.join(tmp, 'b')];
    assert.equal(findTreeRenderer(dirs, 'objects')?.file, path.join(tmp, 'a', 'objects.py'));
    assert.equal(findTreeRenderer(dirs, 'other')?.file, path.join(tmp, 'b', 'other.py'));
    assert.equal(findTreeRenderer(dirs, '../a/objects'), undefined, 'a name is a Python module name, never a path');
    assert.equal(findTreeRenderer(dirs, 'missing'), undefined);
  });
});
