import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDefaultRegistry } from '../../../src/modules/index.js';
import { checkMembers, detectArchive } from '../../../src/modules/archive-formats.js';
import { makeCtx } from './context.js';

const registry = createDefaultRegistry();
const run = (fun: string, arg: unknown[], kwarg: Record<string, unknown> = {}) => registry.call(fun, arg, kwarg, makeCtx());

let dir: string;
const p = (name: string): string => path.join(dir, name);
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-arch-'));
  fs.mkdirSync(p('src/app-1.0/bin'), { recursive: true });
  fs.writeFileSync(p('src/app-1.0/README'), 'readme\n');
  fs.writeFileSync(p('src/app-1.0/bin/run'), '#!/bin/sh\n');
  for (const [flag, ext] of [
    ['-cf', 'tar'],
    ['-czf', 'tar.gz'],
    ['-cjf', 'tar.bz2'],
    ['-cJf', 'tar.xz'],
  ] as const) {
    execFileSync('tar', [flag, p(`app.${ext}`), '-C', p('src'), 'app-1.0']);
  }
  execFileSync('zip', ['-qr', p('app.zip'), 'app-1.0'], { cwd: p('src') });
  fs.writeFileSync(p('not-an-archive'), 'hello');
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('archive module', () => {
  it('detects every format from its bytes, not its name', async () => {
    fs.copyFileSync(p('app.tar.xz'), p('misnamed.zip'));
    assert.deepEqual(await detectArchive(p('misnamed.zip')), { format: 'tar', compression: 'xz' });
    assert.deepEqual(await detectArchive(p('app.tar.bz2')), { format: 'tar', compression: 'bz2' });
    assert.deepEqual(await detectArchive(p('app.tar.gz')), { format: 'tar', compression: 'gz' });
    assert.deepEqual(await detectArchive(p('app.tar')), { format: 'tar', compression: 'none' });
    assert.deepEqual(await detectArchive(p('app.zip')), { format: 'zip' });
    assert.equal(await detectArchive(p('not-an-archive')), undefined);
  });

  it('archive.list lists tar and zip members alike', async () => {
    for (const ext of ['tar', 'tar.gz', 'tar.bz2', 'tar.xz', 'zip']) {
      const r = await run('archive.list', [p(`app.${ext}`)]);
      assert.equal(r.success, true, String(r.error?.message));
      assert.deepEqual([...(r.return as string[])].sort(), ['app-1.0/', 'app-1.0/README', 'app-1.0/bin/', 'app-1.0/bin/run'], ext);
    }
  });

  it('archive.extract extracts into a new directory', async () => {
    const r = await run('archive.extract', [p('app.tar.gz'), p('out')]);
    assert.equal(r.success, true, String(r.error?.message));
    assert.equal(fs.readFileSync(p('out/app-1.0/README'), 'utf8'), 'readme\n');
    const z = await run('archive.extract', [p('app.zip'), p('outzip')]);
    assert.equal(z.success, true, String(z.error?.message));
    assert.equal(fs.readFileSync(p('outzip/app-1.0/bin/run'), 'utf8'), '#!/bin/sh\n');
  });

  it('a file that is no archive, a wrong archive_format and a missing file are clear errors', async () => {
    const r = await run('archive.list', [p('not-an-archive')]);
    assert.equal(r.error?.code, 'EXEC_FAILED');
    assert.match(String(r.error?.message), /is not a tar .* or zip archive/);
    const f = await run('archive.list', [p('app.zip')], { archive_format: 'tar' });
    assert.match(String(f.error?.message), /is a zip archive, not tar/);
    const m = await run('archive.list', [p('missing.tar')]);
    assert.match(String(m.error?.message), /does not exist/);
  });

  it('refuses members leaving the destination and tar options that run programs, extracting nothing', async () => {
    assert.throws(() => checkMembers('t', [{ path: '../etc/passwd', isDir: false }]), /PATH_REFUSED|outside the destination/);
    assert.throws(() => checkMembers('t', [{ path: '/etc/passwd', isDir: false }]), /outside the destination/);
    assert.throws(() => checkMembers('t', [{ path: 'a/link', isDir: false, linkTarget: '../../etc' }]), /links to/);
    assert.doesNotThrow(() => checkMembers('t', [{ path: 'a/b/link', isDir: false, linkTarget: '../c' }]));
    assert.throws(() => checkMembers('t', [{ path: 'a/h', isDir: false, linkTarget: '/etc/shadow', hardLink: true }]), /hard link/);
    assert.doesNotThrow(() => checkMembers('t', [{ path: 'a/b/h', isDir: false, linkTarget: 'a/c', hardLink: true }]));
    // A real tarball with a symlink out of the destination, built with GNU tar.
    fs.mkdirSync(p('evil'));
    fs.symlinkSync('/etc', p('evil/escape'));
    execFileSync('tar', ['-cf', p('evil.tar'), '-C', p('evil'), 'escape']);
    const r = await run('archive.extract', [p('evil.tar'), p('evil-out')]);
    assert.equal(r.error?.code, 'PATH_REFUSED');
    assert.equal(fs.existsSync(p('evil-out')), false);
    // The same with zip, whose listing does not show link targets.
    execFileSync('zip', ['-qry', p('evil.zip'), 'escape'], { cwd: p('evil') });
    const z = await run('archive.extract', [p('evil.zip'), p('evil-zip-out')]);
    assert.equal(z.error?.code, 'PATH_REFUSED');
    assert.equal(fs.existsSync(p('evil-zip-out')), false);
    fs.mkdirSync(p('fine/d'), { recursive: true });
    fs.writeFileSync(p('fine/d/real'), 'x');
    fs.symlinkSync('real', p('fine/d/link'));
    execFileSync('zip', ['-qry', p('fine.zip'), 'd'], { cwd: p('fine') });
    const ok = await run('archive.list', [p('fine.zip')]);
    assert.deepEqual([...(ok.return as string[])].sort(), ['d/', 'd/link', 'd/real']);
    const o = await run('archive.extract', [p('app.tar'), p('opt-out')], { options: '--to-command=touch' });
    assert.equal(o.error?.code, 'BAD_ARGUMENTS');
  });
});
