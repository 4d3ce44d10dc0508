import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { archiveExtracted } from '../../../src/state/modules/archive-extracted.js';
import { DirFileClient, runState, snapshot, tempDir } from './file-fixture.js';

let dir: string;
let root: string;
let cache: string;
let files: DirFileClient;
const p = (name: string): string => path.join(dir, name);
const isRoot = process.getuid?.() === 0;

before(() => {
  dir = tempDir();
  root = tempDir('brine-root-');
  cache = tempDir('brine-cache-');
  files = new DirFileClient(root, cache);
  const src = tempDir('brine-arsrc-');
  try {
    fs.mkdirSync(path.join(src, 'app-1.2/bin'), { recursive: true });
    fs.writeFileSync(path.join(src, 'app-1.2/README'), 'v1.2\n');
    fs.writeFileSync(path.join(src, 'app-1.2/bin/app'), '#!/bin/sh\n');
    fs.writeFileSync(path.join(src, 'loose.txt'), 'x\n');
    fs.mkdirSync(path.join(root, 'app'));
    execFileSync('tar', ['-czf', path.join(root, 'app', 'app-1.2.tar.gz'), '-C', src, 'app-1.2']);
    execFileSync('zip', ['-qr', p('app.zip'), 'app-1.2'], { cwd: src });
    execFileSync('tar', ['-cJf', p('bomb.tar.xz'), '-C', src, 'app-1.2', 'loose.txt']);
  } finally {
    fs.rmSync(src, { recursive: true, force: true });
  }
});
after(() => {
  for (const d of [dir, root, cache]) fs.rmSync(d, { recursive: true, force: true });
});

describe('archive.extracted', () => {
  it('test=True reports the extraction and writes nothing', async () => {
    const before_ = snapshot(dir);
    const t = await runState(archiveExtracted, { name: p('opt'), source: 'salt://app/app-1.2.tar.gz' }, { files, test: true });
    assert.equal(t.result, null, t.comment);
    assert.equal(t.comment, `Archive salt://app/app-1.2.tar.gz would be extracted to ${p('opt')}`);
    assert.deepEqual(snapshot(dir), before_);
  });

  it('extracts a salt:// tar.gz with a matching hash, then finds everything present', async () => {
    const sha = createHash('sha256')
      .update(fs.readFileSync(path.join(root, 'app', 'app-1.2.tar.gz')))
      .digest('hex');
    const args = { name: p('opt'), source: 'salt://app/app-1.2.tar.gz', source_hash: `sha256=${sha}` };
    const r = await runState(archiveExtracted, args, { files });
    assert.equal(r.result, true, r.comment);
    assert.equal(r.comment, `salt://app/app-1.2.tar.gz extracted to ${p('opt')}`);
    assert.deepEqual([...(r.changes.extracted_files as string[])].sort(), ['app-1.2/README', 'app-1.2/bin/app']);
    assert.deepEqual(r.changes.directories_created, [p('opt')]);
    assert.equal(fs.readFileSync(p('opt/app-1.2/README'), 'utf8'), 'v1.2\n');
    const again = await runState(archiveExtracted, args, { files });
    assert.equal(again.result, true);
    assert.deepEqual(again.changes, {});
    assert.match(again.comment, /already present/);
    fs.rmSync(p('opt/app-1.2/README'));
    const healed = await runState(archiveExtracted, args, { files });
    assert.deepEqual(healed.changes.extracted_files !== undefined, true);
    assert.ok(fs.existsSync(p('opt/app-1.2/README')));
  });

  it('a hash mismatch fails and extracts nothing', async () => {
    const r = await runState(archiveExtracted, { name: p('opt-bad'), source: 'salt://app/app-1.2.tar.gz', source_hash: `sha256=${'0'.repeat(64)}` }, { files });
    assert.equal(r.result, false);
    assert.match(r.comment, /does not match actual checksum/);
    assert.equal(fs.existsSync(p('opt-bad')), false);
  });

  it('extracts a local zip; if_missing skips when the path exists', async () => {
    const r = await runState(archiveExtracted, { name: p('optzip'), source: p('app.zip') });
    assert.equal(r.result, true, r.comment);
    assert.equal(fs.readFileSync(p('optzip/app-1.2/bin/app'), 'utf8'), '#!/bin/sh\n');
    const skip = await runState(archiveExtracted, { name: p('optzip2'), source: p('app.zip'), if_missing: p('optzip') });
    assert.equal(skip.result, true);
    assert.deepEqual(skip.changes, {});
    assert.equal(fs.existsSync(p('optzip2')), false);
  });

  it('enforce_toplevel refuses a tarbomb unless turned off', async () => {
    const r = await runState(archiveExtracted, { name: p('bomb'), source: p('bomb.tar.xz') });
    assert.equal(r.result, false);
    assert.match(r.comment, /does not have a single top-level directory.*enforce_toplevel/);
    assert.equal(fs.existsSync(p('bomb')), false);
    const ok = await runState(archiveExtracted, { name: p('bomb'), source: p('bomb.tar.xz'), enforce_toplevel: false });
    assert.equal(ok.result, true, ok.comment);
    assert.ok(fs.existsSync(p('bomb/loose.txt')));
  });

  it('clean removes the old top-level directory before extracting', async () => {
    fs.mkdirSync(p('cl/app-1.2'), { recursive: true });
    fs.writeFileSync(p('cl/app-1.2/stale'), 'x');
    const r = await runState(archiveExtracted, { name: p('cl'), source: p('app.zip'), clean: true });
    assert.equal(r.result, true, r.comment);
    assert.equal(fs.existsSync(p('cl/app-1.2/stale')), false);
    assert.ok(fs.existsSync(p('cl/app-1.2/README')));
  });

  it('a missing source or a non-archive fails clearly', async () => {
    const r = await runState(archiveExtracted, { name: p('x'), source: 'salt://app/none.tar.gz' }, { files });
    assert.equal(r.result, false);
    assert.match(r.comment, /not found/);
    fs.writeFileSync(p('plain.txt'), 'hello');
    const n = await runState(archiveExtracted, { name: p('x'), source: p('plain.txt') });
    assert.equal(n.result, false);
    assert.match(n.comment, /is not a tar .* or zip archive/);
    assert.equal(fs.existsSync(p('x')), false);
  });

  it('user and group own the extracted files (root only)', { skip: isRoot ? false : 'needs root to chown' }, async () => {
    const args = { name: p('own'), source: p('app.zip'), user: 'nobody', group: 'nogroup' };
    const r = await runState(archiveExtracted, args);
    assert.equal(r.result, true, r.comment);
    assert.notEqual(fs.statSync(p('own/app-1.2/README')).uid, 0);
    assert.deepEqual((await runState(archiveExtracted, args)).changes, {});
    fs.chownSync(p('own/app-1.2/README'), 0, 0);
    assert.deepEqual((await runState(archiveExtracted, args)).changes, { updated_ownership: true });
    assert.notEqual(fs.statSync(p('own/app-1.2/README')).uid, 0);
  });
});

describe('archive.extracted options', () => {
  it('overwrite extracts again over a complete tree; trim_output shortens the list', async () => {
    await runState(archiveExtracted, { name: p('ow'), source: p('app.zip') });
    fs.writeFileSync(p('ow/app-1.2/README'), 'edited\n');
    assert.deepEqual((await runState(archiveExtracted, { name: p('ow'), source: p('app.zip') })).changes, {});
    const r = await runState(archiveExtracted, { name: p('ow'), source: p('app.zip'), overwrite: true, trim_output: 1 });
    assert.equal(r.result, true, r.comment);
    assert.deepEqual(r.changes.extracted_files, ['app-1.2/README', '... and 1 more']);
    assert.equal(fs.readFileSync(p('ow/app-1.2/README'), 'utf8'), 'v1.2\n');
  });

  it('skip_verify ignores a wrong source_hash', async () => {
    const r = await runState(archiveExtracted, { name: p('sv'), source: p('app.zip'), source_hash: `sha256=${'1'.repeat(64)}`, skip_verify: true });
    assert.equal(r.result, true, r.comment);
  });
});
