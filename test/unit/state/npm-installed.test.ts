// npm.installed with the real npm (Debian package npm) into a temp directory, from a registry
// served by this test on 127.0.0.1 (a packument and a tarball made with `npm pack`): no outside
// registry is used. Comments and changes are Salt 3007's salt/states/npm.py installed.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { npmInstalled, npmRemoved } from '../../../src/state/modules/npm-installed.js';
import { runState, tempDir } from './file-fixture.js';

let dir: string;
let app: string;
let server: http.Server;
let registry: string;
let env: Record<string, string>;

before(async () => {
  dir = tempDir('brine-npm-');
  app = path.join(dir, 'app');
  fs.mkdirSync(app);
  const src = path.join(dir, 'src');
  fs.mkdirSync(src);
  fs.writeFileSync(path.join(src, 'package.json'), JSON.stringify({ name: 'brine-demo', version: '1.0.0', main: 'index.js' }));
  fs.writeFileSync(path.join(src, 'index.js'), 'module.exports = 42;\n');
  env = { npm_config_cache: path.join(dir, 'cache'), npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
  const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: src, encoding: 'utf8', env: { ...process.env, ...env } }))[0];
  const tarball = fs.readFileSync(path.join(dir, packed.filename));
  server = http.createServer((req, res) => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (req.url === '/brine-demo') {
      const v = { name: 'brine-demo', version: '1.0.0', dist: { tarball: `${base}/brine-demo-1.0.0.tgz`, shasum: packed.shasum, integrity: packed.integrity } };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ name: 'brine-demo', 'dist-tags': { latest: '1.0.0' }, versions: { '1.0.0': v } }));
    } else if (req.url === '/brine-demo-1.0.0.tgz') res.end(tarball);
    else {
      res.statusCode = 404;
      res.end('{}');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  registry = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
after(async () => {
  await new Promise((r) => server.close(r));
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('npm.installed', () => {
  it('test=True: result None, would-be changes, nothing installed', async () => {
    assert.deepEqual(await runState(npmInstalled, { name: 'brine-demo', dir: app, registry, env }, { test: true }), {
      name: 'brine-demo',
      result: null,
      changes: { old: [], new: ['brine-demo'] },
      comment: "NPM package(s) 'brine-demo' are set to be installed",
    });
    assert.equal(fs.existsSync(path.join(app, 'node_modules', 'brine-demo')), false);
  });

  it('installs from the registry into dir, then is satisfied (test and real)', async () => {
    assert.deepEqual(await runState(npmInstalled, { name: 'brine-demo', dir: app, registry, env }), {
      name: 'brine-demo',
      result: true,
      changes: { old: [], new: ['brine-demo'] },
      comment: "Package(s) 'brine-demo' successfully installed",
    });
    assert.equal(fs.readFileSync(path.join(app, 'node_modules', 'brine-demo', 'index.js'), 'utf8'), 'module.exports = 42;\n');
    assert.deepEqual(await runState(npmInstalled, { name: 'brine-demo', dir: app, registry, env }), {
      name: 'brine-demo',
      result: true,
      changes: {},
      comment: "Package(s) 'brine-demo' satisfied by brine-demo@1.0.0",
    });
    assert.deepEqual(await runState(npmInstalled, { name: 'brine-demo@1.0.0', dir: app, env }, { test: true }), {
      name: 'brine-demo@1.0.0',
      result: true,
      changes: {},
      comment: "Package(s) 'brine-demo@1.0.0' satisfied by brine-demo@1.0.0",
    });
  });

  it('a version not installed is to be installed; a failed install fails with npm output', async () => {
    const r = await runState(npmInstalled, { name: 'ids', pkgs: ['brine-demo@2.0.0'], dir: app, registry, env }, { test: true });
    assert.deepEqual([r.result, r.changes, r.comment], [null, { old: [], new: ['brine-demo@2.0.0'] }, "NPM package(s) 'brine-demo@2.0.0' are set to be installed"]);
    const f = await runState(npmInstalled, { name: 'ids', pkgs: ['brine-demo@2.0.0'], dir: app, registry, env });
    assert.equal(f.result, false);
    assert.deepEqual(f.changes, {});
    assert.match(f.comment, /^Error installing 'brine-demo@2\.0\.0': /);
  });
});

describe('npm.removed', () => {
  it('test=True, removed from dir, then not installed', async () => {
    assert.deepEqual(await runState(npmRemoved, { name: 'brine-demo', dir: app }, { test: true }), {
      name: 'brine-demo',
      result: null,
      changes: {},
      comment: "Package 'brine-demo' is set to be removed",
    });
    assert.ok(fs.existsSync(path.join(app, 'node_modules', 'brine-demo')));
    assert.deepEqual(await runState(npmRemoved, { name: 'brine-demo', dir: app }), {
      name: 'brine-demo',
      result: true,
      changes: { 'brine-demo': 'Removed' },
      comment: "Package 'brine-demo' was successfully removed",
    });
    assert.equal(fs.existsSync(path.join(app, 'node_modules', 'brine-demo')), false);
    assert.deepEqual(await runState(npmRemoved, { name: 'brine-demo', dir: app }), { name: 'brine-demo', result: true, changes: {}, comment: "Package 'brine-demo' is not installed" });
  });
});
