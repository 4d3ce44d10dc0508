// slsutil.file_exists/dir_exists/path_exists/findup/renderer, defaults.get and cp.get_file_str
// over a real state tree on disk served by the minion's own file client (file_client: local),
// as formulas call them from map.jinja; config.option, cmd.shell/which/has_exec and
// file.readdir on this machine. Shapes and messages from salt/modules/slsutil.py, defaults.py,
// cp.py, config.py, cmdmod.py and file.py.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CachingFileClient, FileRoots, LocalFileSource } from '../../../src/fileserver/index.js';
import type { ExecContext, ModuleRegistry } from '../../../src/modules/index.js';
import { createMinionRegistry } from '../../../src/state/index.js';
import { makeCtx } from '../modules/context.js';

function write(file: string, data: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data);
}

describe('state tree functions and helpers', () => {
  let tmp: string;
  let ctx: ExecContext;
  let registry: ModuleRegistry;
  const call = async (fun: string, arg: unknown[] = [], kwarg: Record<string, unknown> = {}) => registry.call(fun, arg, kwarg, ctx);
  const ret = async (fun: string, arg: unknown[] = [], kwarg: Record<string, unknown> = {}) => {
    const r = await call(fun, arg, kwarg);
    assert.equal(r.success, true, JSON.stringify(r));
    return r.return;
  };

  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-slsfiles-'));
    const srv = path.join(tmp, 'srv');
    write(path.join(srv, 'nginx', 'defaults.yaml'), 'nginx:\n  port: 80\n  users: [www]\n');
    write(path.join(srv, 'core', 'defaults.json'), '{"users": {"root": {"shell": "/bin/bash"}}}');
    write(path.join(srv, 'nginx', 'files', 'site.conf'), 'server {}\n');
    write(path.join(srv, 'shared', 'map.jinja'), '{}');
    write(path.join(srv, 'nginx', 'map.sls'), "{% set port = 8080 %}\nport: {{ port }}\nos: {{ grains.os }}\nextra: {{ extra | default('none') }}\n");
    const files = new CachingFileClient(new LocalFileSource(new FileRoots({ file_roots: { base: [srv] } })), { cachedir: path.join(tmp, 'cache'), chunkSize: 65536 });
    ctx = {
      ...makeCtx({ config: { id: 'web1', cachedir: path.join(tmp, 'cache'), my_option: 'from-opts' }, pillar: () => ({ my_option: 'from-pillar', only_pillar: 1, master: { only_master: 'm' } }) }),
      files,
    };
    registry = createMinionRegistry();
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('slsutil.file_exists / dir_exists / path_exists look in the state tree', async () => {
    assert.equal(await ret('slsutil.file_exists', ['nginx/defaults.yaml']), true);
    assert.equal(await ret('slsutil.file_exists', ['nginx/files']), false);
    assert.equal(await ret('slsutil.dir_exists', ['nginx/files']), true);
    assert.equal(await ret('slsutil.path_exists', ['nginx/files']), true);
    assert.equal(await ret('slsutil.path_exists', ['nginx/nope']), false);
  });

  it("slsutil.findup walks up to the nearest ancestor holding the name; Salt's errors otherwise", async () => {
    assert.equal(await ret('slsutil.findup', ['nginx/files', 'defaults.yaml']), 'nginx/defaults.yaml');
    assert.equal(await ret('slsutil.findup', ['nginx/files', ['nope.yaml', 'shared']]), 'shared');
    const missing = await call('slsutil.findup', ['nginx', 'nope.yaml']);
    assert.equal(missing.success, false);
    assert.match(String(missing.error?.message), /File pattern\(s\) not found in path ancestry/);
    const badStart = await call('slsutil.findup', ['nowhere', 'x']);
    assert.match(String(badStart.error?.message), /Starting path not found in the state tree: nowhere/);
  });

  it('slsutil.renderer renders a salt:// file through jinja|yaml with the keywords as context, or a string', async () => {
    assert.deepEqual(await ret('slsutil.renderer', ['salt://nginx/map.sls'], { extra: 'x' }), { port: 8080, os: 'Debian', extra: 'x' });
    assert.equal(await ret('slsutil.renderer', [], { string: 'Hello, {{ name }}.', name: 'world', default_renderer: 'jinja' }), 'Hello, world.');
    const both = await call('slsutil.renderer', ['salt://nginx/map.sls'], { string: 'x' });
    assert.match(String(both.error?.message), /Must not pass both path and string/);
  });

  it('defaults.get reads <formula>/defaults.yaml, else defaults.json, and traverses the rest of the key', async () => {
    assert.equal(await ret('defaults.get', ['nginx:nginx:port']), 80);
    assert.deepEqual(await ret('defaults.get', ['nginx']), { nginx: { port: 80, users: ['www'] } });
    assert.equal(await ret('defaults.get', ['core:users:root:shell']), '/bin/bash');
    assert.equal(await ret('defaults.get', ['core:users:nobody', 'dflt']), 'dflt');
  });

  it('cp.get_file_str: the text of a salt:// file, False when there is none', async () => {
    assert.equal(await ret('cp.get_file_str', ['salt://nginx/files/site.conf']), 'server {}\n');
    assert.equal(await ret('cp.get_file_str', ['salt://nginx/files/none.conf']), false);
  });

  it('config.option: whole names, opts before grains before pillar before the master key; wildcard returns a mapping', async () => {
    assert.equal(await ret('config.option', ['my_option']), 'from-opts');
    assert.equal(await ret('config.option', ['my_option'], { omit_opts: true }), 'from-pillar');
    assert.equal(await ret('config.option', ['only_master']), 'm');
    assert.equal(await ret('config.option', ['nope']), '');
    assert.deepEqual(await ret('config.option', ['only_*'], { wildcard: true }), { only_pillar: 1, only_master: 'm' });
  });

  it('cmd.shell runs through the shell; cmd.which and cmd.has_exec find programs', async () => {
    assert.equal(await ret('cmd.shell', ['echo $((2+3)) | tr 5 6']), '6');
    // the first PATH directory holding an executable sh, as salt.utils.path.which answers
    const firstSh = (process.env.PATH ?? '')
      .split(':')
      .map((d) => path.join(d, 'sh'))
      .find((p) => fs.existsSync(p));
    assert.equal(await ret('cmd.which', ['sh']), firstSh);
    assert.equal(await ret('cmd.which', ['no-such-program-brine']), null);
    assert.equal(await ret('cmd.has_exec', ['sh']), true);
    assert.equal(await ret('cmd.has_exec', ['no-such-program-brine']), false);
  });

  it("file.readdir lists '.', '..' and the entries; a non-directory is Salt's error", async () => {
    const d = path.join(tmp, 'rd');
    write(path.join(d, 'a'), '');
    write(path.join(d, 'b', 'c'), '');
    const got = (await ret('file.readdir', [d])) as string[];
    assert.deepEqual(got.slice(0, 2), ['.', '..']);
    assert.deepEqual(got.slice(2).sort(), ['a', 'b']);
    const bad = await call('file.readdir', [path.join(d, 'a')]);
    assert.match(String(bad.error?.message), /A valid directory was not specified/);
  });
});
