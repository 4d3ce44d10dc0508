// pkg.installed with sources (issue 22: packages-formula remote_pkgs, apache-formula
// mod_pagespeed): a real .deb built here with dpkg-deb, served by a real HTTP server, installed
// with the real dpkg (as Salt's aptpkg does) and purged afterwards. test=True fetches nothing.

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type StaticServer, startStaticServer } from '../../helpers/static-http.js';
import { type CtxOptions, runState } from './state-ctx.js';
import { tempDir } from './file-fixture.js';

const PKG = 'brine-test-sources-pkg';
const isRoot = process.getuid?.() === 0;
let dir: string;
let cache: string;
let web: StaticServer;

function buildDeb(version: string): Buffer {
  const root = path.join(dir, `build-${version}`);
  fs.mkdirSync(path.join(root, 'DEBIAN'), { recursive: true });
  fs.mkdirSync(path.join(root, 'usr/share', PKG), { recursive: true });
  fs.writeFileSync(path.join(root, 'usr/share', PKG, 'VERSION'), `${version}\n`);
  fs.writeFileSync(
    path.join(root, 'DEBIAN/control'),
    `Package: ${PKG}\nVersion: ${version}\nArchitecture: all\nMaintainer: brine tests <tests@example.test>\nDescription: brine pkg.installed sources test\n`,
  );
  const out = path.join(dir, `${PKG}_${version}_all.deb`);
  execFileSync('dpkg-deb', ['--build', '--root-owner-group', root, out], { stdio: 'ignore' });
  return fs.readFileSync(out);
}

const installedVersion = (): string => {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own ${field} format
  const r = spawnSync('dpkg-query', ['-W', '--showformat=${Status} ${Version}', PKG], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.startsWith('install ok installed') ? r.stdout.split(' ').pop()! : '';
};

before(async () => {
  dir = tempDir('brine-debs-');
  cache = tempDir('brine-cache-');
  web = await startStaticServer({ [`/debs/${PKG}_1.0_all.deb`]: buildDeb('1.0'), [`/debs/${PKG}_1.1_all.deb`]: buildDeb('1.1') });
});

after(async () => {
  if (installedVersion() !== '') spawnSync('dpkg', ['--purge', PKG], { stdio: 'ignore' });
  await web?.close();
  for (const d of [dir, cache]) fs.rmSync(d, { recursive: true, force: true });
});

const opts = (o: CtxOptions = {}): CtxOptions => ({ ...o, exec: { config: { cachedir: cache } } });

describe('pkg.installed sources', { skip: !isRoot && 'dpkg -i needs root' }, () => {
  it("test=True: Salt's answer for a package that is not installed, and nothing is fetched", async () => {
    const url = `${web.base}/debs/${PKG}_1.0_all.deb`;
    const dry = await runState('pkg.installed', { name: PKG, sources: [{ [PKG]: url }] }, opts({ test: true }));
    assert.deepEqual(dry, { name: PKG, result: null, changes: { [PKG]: { new: 'installed', old: '' } }, comment: `The following packages would be installed/updated: ${PKG}` });
    assert.equal(web.gets(`/debs/${PKG}_1.0_all.deb`), 0);
    assert.equal(installedVersion(), '');
  });

  it('installs the file with dpkg, then finds it installed; a file with a newer version upgrades it', async () => {
    const v10 = `${web.base}/debs/${PKG}_1.0_all.deb`;
    const r = await runState('pkg.installed', { name: PKG, sources: [{ [PKG]: v10 }] }, opts());
    assert.equal(r.result, true, r.comment);
    assert.deepEqual(r.changes, { [PKG]: { old: '', new: '1.0' } });
    assert.equal(installedVersion(), '1.0');
    assert.equal(fs.readFileSync(`/usr/share/${PKG}/VERSION`, 'utf8'), '1.0\n');
    const again = await runState('pkg.installed', { name: PKG, sources: [{ [PKG]: v10 }] }, opts());
    assert.deepEqual([again.result, again.comment], [true, 'All specified packages are already installed']);
    const up = await runState('pkg.installed', { name: PKG, sources: [{ [PKG]: `${web.base}/debs/${PKG}_1.1_all.deb` }] }, opts());
    assert.equal(up.result, true, up.comment);
    assert.deepEqual(up.changes, { [PKG]: { old: '1.0', new: '1.1' } });
    assert.equal(installedVersion(), '1.1');
  });

  it('a malformed sources list or a file that cannot be fetched fails without installing anything', async () => {
    const bad = await runState('pkg.installed', { name: 'x', sources: ['not-a-mapping'] }, opts());
    assert.equal(bad.result, false);
    assert.match(bad.comment, /Invalidly formatted 'sources' parameter/);
    const missing = await runState('pkg.installed', { name: 'brine-no-such-pkg', sources: [{ 'brine-no-such-pkg': `${web.base}/debs/missing.deb` }] }, opts());
    assert.equal(missing.result, false);
    assert.match(missing.comment, /Unable to cache .*missing\.deb: Failed to cache .*HTTP 404: Not Found/);
  });
});
