// syncExtmods over a real file client (this machine's file_roots in a temp dir): what is copied,
// what is reported as changed (Salt's `modules.name` list), what is removed, and which names
// are refused. The loaders for custom grains and states are tested beside it.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CachingFileClient, FileRoots, LocalFileSource } from '../../../src/fileserver/index.js';
import { extmodsDir, loadCustomGrains, nameList, syncEnvs, syncExtmods } from '../../../src/modules/index.js';
import { loadCustomStates } from '../../../src/state/custom-states.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

function write(file: string, data: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data);
}

describe('syncExtmods', () => {
  let tmp: string;
  let base: string;
  let dev: string;
  let cachedir: string;
  let files: CachingFileClient;

  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-extmods-'));
    base = path.join(tmp, 'srv', 'base');
    dev = path.join(tmp, 'srv', 'dev');
    cachedir = path.join(tmp, 'cache');
    fs.mkdirSync(base, { recursive: true });
    fs.mkdirSync(dev, { recursive: true });
    files = new CachingFileClient(new LocalFileSource(new FileRoots({ root_dir: '/', file_roots: { base: [base], dev: [dev] } })), { cachedir, chunkSize: 65536 });
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  const sync = (kind: 'modules' | 'grains' | 'states' | 'renderers', extra: Partial<Parameters<typeof syncExtmods>[0]> = {}) => syncExtmods({ files, cachedir, kind, saltenvs: ['base'], ...extra });

  it('copies new files, reports them once, and skips non-JS files', async () => {
    write(path.join(base, '_modules', 'a.js'), 'export const functions = [];\n');
    write(path.join(base, '_modules', 'b.mjs'), 'export const functions = [];\n');
    write(path.join(base, '_modules', 'notes.txt'), 'x');
    const first = await sync('modules');
    assert.deepEqual(first.changed, ['modules.a', 'modules.b']);
    assert.deepEqual(fs.readdirSync(extmodsDir(cachedir, 'modules')).sort(), ['a.js', 'b.mjs']);
    assert.equal(fs.statSync(path.join(extmodsDir(cachedir, 'modules'), 'a.js')).mode & 0o777, 0o600);
    assert.deepEqual((await sync('modules')).changed, []);
  });

  it('reports a changed file and removes a file the master no longer has (not listed, as in Salt)', async () => {
    write(path.join(base, '_modules', 'a.js'), 'export const functions = []; // v2\n');
    fs.rmSync(path.join(base, '_modules', 'b.mjs'));
    const out = await sync('modules');
    assert.deepEqual(out.changed, ['modules.a']);
    assert.deepEqual(out.removed, ['modules.b']);
    assert.match(fs.readFileSync(path.join(extmodsDir(cachedir, 'modules'), 'a.js'), 'utf8'), /v2/);
    assert.ok(!fs.existsSync(path.join(extmodsDir(cachedir, 'modules'), 'b.mjs')));
  });

  it('keeps files the master no longer has when clean is false', async () => {
    write(path.join(extmodsDir(cachedir, 'modules'), 'local.js'), 'export const functions = [];\n');
    const out = await sync('modules', { clean: false });
    assert.deepEqual(out.removed, []);
    assert.ok(fs.existsSync(path.join(extmodsDir(cachedir, 'modules'), 'local.js')));
    assert.deepEqual((await sync('modules')).removed, ['modules.local']);
  });

  it('refuses subdirectories and unsafe names, and never writes outside extmods', async () => {
    write(path.join(base, '_modules', 'sub', 'x.js'), 'export const functions = [];\n');
    write(path.join(base, '_modules', '-dash.js'), 'export const functions = [];\n');
    const out = await sync('modules');
    assert.deepEqual(out.changed, []);
    assert.deepEqual(out.ignored.map((i) => i.file).sort(), ['_modules/-dash.js', '_modules/sub/x.js']);
    assert.deepEqual(fs.readdirSync(extmodsDir(cachedir, 'modules')), ['a.js']);
    fs.rmSync(path.join(base, '_modules', 'sub'), { recursive: true });
    fs.rmSync(path.join(base, '_modules', '-dash.js'));
  });

  it('whitelist and blacklist pick module names; the first environment listed wins', async () => {
    write(path.join(base, '_grains', 'g1.js'), 'export function a() { return { from: "base" }; }\n');
    write(path.join(dev, '_grains', 'g1.js'), 'export function a() { return { from: "dev" }; }\n');
    write(path.join(dev, '_grains', 'g2.js'), 'export function b() { return { g2: true }; }\n');
    assert.deepEqual((await sync('grains', { saltenvs: ['dev', 'base'], filter: { whitelist: ['g1'] } })).changed, ['grains.g1']);
    assert.match(fs.readFileSync(path.join(extmodsDir(cachedir, 'grains'), 'g1.js'), 'utf8'), /dev/);
    assert.deepEqual((await sync('grains', { saltenvs: ['base', 'dev'], filter: { blacklist: ['g1'] } })).changed, ['grains.g2']);
    assert.deepEqual(fs.readdirSync(extmodsDir(cachedir, 'grains')), ['g2.js'], 'as in Salt, what the sync did not bring goes');
  });

  it("renderers are the tree's Python files of _renderers/: only *.py with a module name, JavaScript left alone (issue 22)", async () => {
    write(path.join(base, '_renderers', 'objects.py'), 'def render(data, saltenv="base", sls="", **kw):\n    return {}\n');
    write(path.join(base, '_renderers', 'helper.js'), 'export const x = 1;\n');
    write(path.join(base, '_renderers', 'my-renderer.py'), 'x = 1\n');
    const out = await sync('renderers');
    assert.deepEqual(out.changed, ['renderers.objects']);
    assert.deepEqual(
      out.ignored.map((i) => i.file),
      ['_renderers/my-renderer.py'],
      'a shebang could never name it',
    );
    assert.deepEqual(fs.readdirSync(extmodsDir(cachedir, 'renderers')), ['objects.py']);
    assert.deepEqual((await sync('renderers')).changed, []);
    fs.rmSync(path.join(base, '_renderers'), { recursive: true });
    assert.deepEqual((await sync('renderers')).removed, ['renderers.objects']);
  });

  it('parses saltenv and name lists as Salt does', () => {
    assert.deepEqual(syncEnvs(undefined), ['base']);
    assert.deepEqual(syncEnvs('base, dev'), ['base', 'dev']);
    assert.deepEqual(syncEnvs(['dev']), ['dev']);
    assert.deepEqual(nameList('a,b', 'x'), ['a', 'b']);
    assert.throws(() => nameList(5, 'extmod_whitelist'), /extmod_whitelist must be/);
  });
});

describe('loadCustomGrains', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-grains-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('merges every exported function, sync or async, in file order; reports broken ones by file', async () => {
    write(
      path.join(dir, 'a.js'),
      'export function one({ grains }) { return { seen_id: grains.id, shared: "a" }; }\nexport async function two() { return { two: 2 }; }\nexport const notAFunction = 1;\n',
    );
    write(path.join(dir, 'b.mjs'), 'export default function () { return { shared: "b" }; }\nexport function _private() { throw new Error("never called"); }\n');
    write(path.join(dir, 'c.js'), 'throw new Error("import fails");\n');
    write(path.join(dir, 'd.js'), 'export function bad() { return [1, 2]; }\nexport function throws() { throw new Error("nope"); }\nexport function fine() { return { d: true }; }\n');
    const r = await loadCustomGrains(dir, { grains: { id: 'm1' }, opts: {} }, quiet);
    assert.deepEqual(r.grains, { seen_id: 'm1', shared: 'b', two: 2, d: true });
    assert.deepEqual(
      r.skipped.map((s) => [path.basename(s.file), s.reason]),
      [
        ['c.js', 'import fails'],
        ['d.js', 'bad() returned a list, not a mapping of grain names to values'],
        ['d.js', 'throws() failed: nope'],
      ],
    );
  });

  it('a missing directory means no custom grains', async () => {
    const r = await loadCustomGrains(path.join(dir, 'nope'), { grains: {}, opts: {} }, quiet);
    assert.deepEqual(r, { grains: {}, loaded: [], skipped: [] });
  });
});

describe('loadCustomStates', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-states-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('loads well-formed files whole and skips broken, misshapen or clashing ones by name', async () => {
    const ok = (name: string) => `{ name: '${name}', doc: 'd', params: [{ name: 'name', type: 'string', required: true }], run: async () => ({ name: 'x', result: true, changes: {}, comment: '' }) }`;
    write(path.join(dir, 'a.js'), `export const states = [${ok('mystate.present')}, ${ok('mystate.absent')}];\n`);
    write(path.join(dir, 'b.js'), `export const states = [${ok('file.managed')}];\n`);
    write(path.join(dir, 'c.js'), `export const states = [${ok('other.one')}, { name: 'other.two', doc: 'd', params: [] }];\n`);
    write(path.join(dir, 'd.js'), 'export const states = [;\n');
    write(path.join(dir, 'e.js'), `export default [${ok('mystate.present')}];\n`);
    const r = await loadCustomStates(dir, new Set(['file.managed']), quiet);
    assert.deepEqual(
      r.states.map((s) => s.name),
      ['mystate.present', 'mystate.absent'],
    );
    assert.equal(r.states[0]!.example, '', 'a custom state needs no docs example');
    const reasons = new Map(r.report.skipped.map((s) => [path.basename(s.file), s.reason]));
    assert.deepEqual([...reasons.keys()], ['b.js', 'c.js', 'd.js', 'e.js']);
    assert.match(reasons.get('b.js')!, /already defined as a built-in state/);
    assert.match(reasons.get('c.js')!, /'other\.two' has no run/);
    assert.match(reasons.get('d.js')!, /Unexpected token/);
    assert.match(reasons.get('e.js')!, /already defined by .*a\.js/);
  });
});
