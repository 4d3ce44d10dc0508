import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileAbsent } from '../../../src/state/modules/file-absent.js';
import { fileCopy } from '../../../src/state/modules/file-copy.js';
import { fileDirectory } from '../../../src/state/modules/file-directory.js';
import { fileSymlink } from '../../../src/state/modules/file-symlink.js';
import { fileTouch } from '../../../src/state/modules/file-touch.js';
import { runState, snapshot, tempDir } from './file-fixture.js';

let dir: string;
before(() => {
  dir = tempDir();
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const p = (name: string): string => path.join(dir, name);
const isRoot = process.getuid?.() === 0;

describe('file.directory', () => {
  it('creates a directory with dir_mode, then reports no changes', async () => {
    const r = await runState(fileDirectory, { name: p('d1'), dir_mode: '0750' });
    // Salt 3007 (salt/states/file.py directory): {path: {directory: new}}, empty comment
    assert.deepEqual(r, { name: p('d1'), result: true, changes: { [p('d1')]: { directory: 'new' } }, comment: '' });
    assert.equal(fs.statSync(p('d1')).mode & 0o777, 0o750);
    const again = await runState(fileDirectory, { name: p('d1'), dir_mode: '0750' });
    assert.deepEqual(again, { name: p('d1'), result: true, changes: {}, comment: `The directory ${p('d1')} is in the correct state` });
  });

  it('a missing parent fails unless makedirs', async () => {
    const r = await runState(fileDirectory, { name: p('x/y/z') });
    assert.equal(r.result, false);
    assert.equal(r.comment, `No directory to create ${p('x/y/z')} in`);
    assert.equal(fs.existsSync(p('x')), false);
    const ok = await runState(fileDirectory, { name: p('x/y/z'), makedirs: true });
    assert.equal(ok.result, true, ok.comment);
    assert.ok(fs.statSync(p('x/y/z')).isDirectory());
  });

  it('a file in the way fails without touching it, unless force', async () => {
    fs.writeFileSync(p('afile'), 'x');
    const r = await runState(fileDirectory, { name: p('afile') });
    assert.equal(r.result, false);
    assert.match(r.comment, /exists and is a file; set force: True/);
    assert.equal(fs.readFileSync(p('afile'), 'utf8'), 'x');
    const t = await runState(fileDirectory, { name: p('afile'), force: true }, { test: true });
    assert.equal(t.result, null);
    assert.deepEqual(t.changes, { forced: 'File would be forcibly replaced', [p('afile')]: { directory: 'new' } });
    assert.equal(fs.readFileSync(p('afile'), 'utf8'), 'x');
    const f = await runState(fileDirectory, { name: p('afile'), force: true });
    assert.deepEqual(f.changes, { forced: 'File was forcibly replaced', [p('afile')]: { directory: 'new' } });
    assert.ok(fs.statSync(p('afile')).isDirectory());
  });

  it('mode is the default of dir_mode and file_mode', async () => {
    fs.mkdirSync(p('both/sub'), { recursive: true });
    fs.writeFileSync(p('both/sub/f'), 'x');
    await runState(fileDirectory, { name: p('both'), mode: '0700', recurse: ['mode'] });
    assert.equal(fs.statSync(p('both/sub')).mode & 0o777, 0o700);
    assert.equal(fs.statSync(p('both/sub/f')).mode & 0o777, 0o700);
  });

  it('recurse: [mode] applies dir_mode and file_mode below it, reported per path', async () => {
    fs.mkdirSync(p('rec/sub'), { recursive: true });
    fs.writeFileSync(p('rec/sub/f'), 'x', { mode: 0o600 });
    fs.chmodSync(p('rec/sub'), 0o700);
    fs.chmodSync(p('rec'), 0o755);
    const args = { name: p('rec'), dir_mode: '0755', file_mode: '0644', recurse: ['mode'] };
    const before_ = snapshot(dir);
    const t = await runState(fileDirectory, args, { test: true });
    assert.equal(t.result, null);
    assert.deepEqual(t.changes, { [p('rec/sub')]: { mode: '0755' }, [p('rec/sub/f')]: { mode: '0644' } });
    assert.deepEqual(snapshot(dir), before_);
    const r = await runState(fileDirectory, args);
    // the plan again, plus check_perms' top-level key (the last path's mode wins, as in Salt)
    assert.deepEqual(r.changes, { ...t.changes, mode: '0644' });
    assert.equal(fs.statSync(p('rec/sub/f')).mode & 0o777, 0o644);
    assert.equal(fs.statSync(p('rec/sub')).mode & 0o777, 0o755);
    assert.deepEqual((await runState(fileDirectory, args)).changes, {});
  });

  it('clean removes what is not required or excluded; test=True lists it and removes nothing', async () => {
    fs.mkdirSync(p('cl/keepdir'), { recursive: true });
    fs.mkdirSync(p('cl/junkdir'));
    fs.mkdirSync(p('cl/logs'));
    for (const f of ['cl/required.conf', 'cl/junk.txt', 'cl/junkdir/a', 'cl/keep.log', 'cl/keepdir/inner', 'cl/logs/app.log', 'cl/logs/junk']) fs.writeFileSync(p(f), 'x');
    const args = { name: p('cl'), clean: true, exclude_pat: '*.log', require: [{ file: p('cl/required.conf') }, { file: p('cl/keepdir') }] };
    const before_ = snapshot(dir);
    const t = await runState(fileDirectory, args, { test: true });
    assert.equal(t.result, null);
    // logs/ holds an excluded file, so it stays; only its other file goes.
    const gone = { removed: 'Removed due to clean' };
    assert.deepEqual(t.changes, { [p('cl/junk.txt')]: gone, [p('cl/junkdir')]: gone, [p('cl/logs/junk')]: gone });
    assert.deepEqual(snapshot(dir), before_);
    const r = await runState(fileDirectory, args);
    assert.deepEqual(r, {
      name: p('cl'),
      result: true,
      changes: { ...t.changes, removed: [p('cl/junk.txt'), p('cl/junkdir'), p('cl/logs/junk')] },
      comment: `Files cleaned from directory ${p('cl')}`,
    });
    assert.deepEqual(fs.readdirSync(p('cl')).sort(), ['keep.log', 'keepdir', 'logs', 'required.conf']);
    assert.deepEqual(fs.readdirSync(p('cl/logs')), ['app.log']);
    assert.deepEqual(fs.readdirSync(p('cl/keepdir')), ['inner']);
    assert.deepEqual((await runState(fileDirectory, args)).changes, {});
  });

  it('recurse: [mode, silent] reports one line instead of every path', async () => {
    fs.mkdirSync(p('quiet/sub'), { recursive: true });
    fs.writeFileSync(p('quiet/sub/f'), 'x', { mode: 0o600 });
    fs.chmodSync(p('quiet/sub/f'), 0o600);
    const r = await runState(fileDirectory, { name: p('quiet'), dir_mode: '0755', file_mode: '0644', recurse: ['mode', 'silent'] });
    assert.equal(r.result, true, r.comment);
    // Salt replaces the per-path plan with this line, then check_perms on each child still adds
    // its top-level key (salt/states/file.py directory, the recurse loop after "silent")
    assert.deepEqual(r.changes, { recursion: 'Changes silenced', mode: '0644' });
    assert.equal(fs.statSync(p('quiet/sub/f')).mode & 0o777, 0o644);
  });

  it('an unknown recurse key fails', async () => {
    const r = await runState(fileDirectory, { name: p('d1'), recurse: ['owner'] });
    assert.equal(r.result, false);
    assert.equal(r.comment, 'Types for "recurse" limited to "user", "group", "mode", "ignore_files", "ignore_dirs", "silent".');
  });

  it('recurse: [user, group] changes ownership below it (root only)', { skip: isRoot ? false : 'needs root to chown' }, async () => {
    fs.mkdirSync(p('own/sub'), { recursive: true });
    fs.writeFileSync(p('own/sub/f'), 'x');
    const args = { name: p('own'), user: 'nobody', group: 'nogroup', recurse: ['user', 'group'] };
    const r = await runState(fileDirectory, args);
    assert.equal(r.result, true, r.comment);
    assert.deepEqual(r.changes[p('own/sub/f')], { user: 'nobody', group: 'nogroup' });
    assert.notEqual(fs.statSync(p('own/sub/f')).uid, 0);
    assert.deepEqual((await runState(fileDirectory, args)).changes, {});
  });
});

describe('file.absent', () => {
  it('removes a file, then reports it not present; test=True removes nothing', async () => {
    fs.writeFileSync(p('gone'), 'x');
    const t = await runState(fileAbsent, { name: p('gone') }, { test: true });
    assert.equal(t.result, null);
    assert.deepEqual(t.changes, { removed: p('gone') });
    assert.ok(fs.existsSync(p('gone')));
    const r = await runState(fileAbsent, { name: p('gone') });
    assert.deepEqual(r, { name: p('gone'), result: true, changes: { removed: p('gone') }, comment: `Removed file ${p('gone')}` });
    const again = await runState(fileAbsent, { name: p('gone') });
    assert.deepEqual(again, { name: p('gone'), result: true, changes: {}, comment: `File ${p('gone')} is not present` });
  });

  it('removes a directory tree; removing a symlink leaves its target', async () => {
    fs.mkdirSync(p('tree/a'), { recursive: true });
    fs.writeFileSync(p('tree/a/f'), 'x');
    const r = await runState(fileAbsent, { name: p('tree') });
    assert.equal(r.comment, `Removed directory ${p('tree')}`);
    assert.equal(fs.existsSync(p('tree')), false);
    fs.mkdirSync(p('target'));
    fs.writeFileSync(p('target/keep'), 'x');
    fs.symlinkSync(p('target'), p('link'));
    await runState(fileAbsent, { name: p('link') });
    assert.equal(fs.existsSync(p('link')), false);
    assert.ok(fs.existsSync(p('target/keep')));
  });

  it('refuses "/" and relative paths', async () => {
    assert.equal((await runState(fileAbsent, { name: '/' })).result, false);
    assert.equal((await runState(fileAbsent, { name: 'rel' })).result, false);
  });
});

describe('file.symlink', () => {
  it('creates a link, is idempotent, and fixes a link pointing elsewhere', async () => {
    const r = await runState(fileSymlink, { name: p('ln'), target: '/etc/hostname' });
    assert.deepEqual(r, { name: p('ln'), result: true, changes: { new: p('ln') }, comment: `Created new symlink ${p('ln')} -> /etc/hostname` });
    assert.equal(fs.readlinkSync(p('ln')), '/etc/hostname');
    assert.deepEqual((await runState(fileSymlink, { name: p('ln'), target: '/etc/hostname' })).changes, {});
    const t = await runState(fileSymlink, { name: p('ln'), target: '/etc/hosts' }, { test: true });
    assert.equal(t.result, null);
    assert.equal(fs.readlinkSync(p('ln')), '/etc/hostname');
    const ch = await runState(fileSymlink, { name: p('ln'), target: '/etc/hosts' });
    // Salt removes the wrong link and reports a new one (salt/states/file.py symlink)
    assert.deepEqual(ch.changes, { new: p('ln') });
    assert.equal(fs.readlinkSync(p('ln')), '/etc/hosts');
  });

  it('a file in the way fails unless force', async () => {
    fs.writeFileSync(p('inway'), 'x');
    const r = await runState(fileSymlink, { name: p('inway'), target: '/etc/hosts' });
    assert.equal(r.result, false);
    assert.equal(r.comment, `File exists where the symlink ${p('inway')} should be`);
    assert.equal(fs.readFileSync(p('inway'), 'utf8'), 'x');
    const f = await runState(fileSymlink, { name: p('inway'), target: '/etc/hosts', force: true });
    assert.equal(f.result, true, f.comment);
    assert.equal(fs.readlinkSync(p('inway')), '/etc/hosts');
  });

  it('a missing parent fails unless makedirs', async () => {
    assert.equal((await runState(fileSymlink, { name: p('lp/a/ln'), target: '/x' })).result, false);
    assert.equal(fs.existsSync(p('lp')), false);
    const ok = await runState(fileSymlink, { name: p('lp/a/ln'), target: '/x', makedirs: true });
    assert.equal(ok.result, true, ok.comment);
    assert.equal(fs.readlinkSync(p('lp/a/ln')), '/x');
  });
});

describe('file.touch', () => {
  it('creates a missing file; test=True creates nothing', async () => {
    const t = await runState(fileTouch, { name: p('tch') }, { test: true });
    assert.deepEqual(t, { name: p('tch'), result: null, changes: { new: p('tch') }, comment: `File ${p('tch')} is set to be created` });
    assert.equal(fs.existsSync(p('tch')), false);
    const r = await runState(fileTouch, { name: p('tch') });
    assert.deepEqual(r.changes, { new: p('tch') });
    assert.equal(r.comment, `Created empty file ${p('tch')}`);
    assert.equal(fs.statSync(p('tch')).size, 0);
  });

  it('sets given times; with both given and already set it reports no changes', async () => {
    fs.writeFileSync(p('tt'), 'keep');
    const r = await runState(fileTouch, { name: p('tt'), atime: 1000000000, mtime: 1200000000 });
    assert.deepEqual(r.changes, { touched: p('tt') });
    assert.equal(Math.floor(fs.statSync(p('tt')).mtimeMs / 1000), 1200000000);
    // (no read in between: with relatime a read would move the old atime)
    assert.deepEqual((await runState(fileTouch, { name: p('tt'), atime: 1000000000, mtime: 1200000000 })).changes, {});
    assert.equal(fs.readFileSync(p('tt'), 'utf8'), 'keep');
    const bad = await runState(fileTouch, { name: p('tt'), mtime: 'yesterday' });
    assert.equal(bad.result, false);
  });
});

describe('file.copy', () => {
  it('copies, is idempotent, and keeps an existing different target unless force', async () => {
    fs.writeFileSync(p('src.txt'), 'one\n');
    fs.chmodSync(p('src.txt'), 0o644);
    const r = await runState(fileCopy, { name: p('dst.txt'), source: p('src.txt'), mode: '0600' });
    // salt/states/file.py copy_: {name: source} plus what check_perms changed, comment 'Copied "s" to "n"'
    assert.deepEqual(r, { name: p('dst.txt'), result: true, changes: { [p('dst.txt')]: p('src.txt'), mode: '0600' }, comment: `Copied "${p('src.txt')}" to "${p('dst.txt')}"` });
    assert.equal(fs.readFileSync(p('dst.txt'), 'utf8'), 'one\n');
    assert.equal(fs.statSync(p('dst.txt')).mode & 0o777, 0o600);
    assert.deepEqual((await runState(fileCopy, { name: p('dst.txt'), source: p('src.txt'), mode: '0600' })).changes, {});
    fs.writeFileSync(p('src.txt'), 'two\n');
    const noForce = await runState(fileCopy, { name: p('dst.txt'), source: p('src.txt') });
    assert.deepEqual(noForce.changes, {});
    assert.match(noForce.comment, /exists and will not be overwritten/);
    assert.equal(fs.readFileSync(p('dst.txt'), 'utf8'), 'one\n');
    const before_ = snapshot(dir);
    const t = await runState(fileCopy, { name: p('dst.txt'), source: p('src.txt'), force: true }, { test: true });
    assert.deepEqual(t, { name: p('dst.txt'), result: null, changes: {}, comment: `File "${p('src.txt')}" is set to be copied to "${p('dst.txt')}"` });
    assert.deepEqual(snapshot(dir), before_);
    const forced = await runState(fileCopy, { name: p('dst.txt'), source: p('src.txt'), force: true });
    assert.equal(forced.result, true);
    assert.equal(fs.readFileSync(p('dst.txt'), 'utf8'), 'two\n');
    const again = await runState(fileCopy, { name: p('dst.txt'), source: p('src.txt'), force: true });
    assert.equal(again.comment, `Copied "${p('src.txt')}" to "${p('dst.txt')}" - files are identical but force flag is set`);
  });

  it('preserve keeps the source mode; a missing source fails', async () => {
    fs.writeFileSync(p('exec.sh'), '#!/bin/sh\n', { mode: 0o751 });
    fs.chmodSync(p('exec.sh'), 0o751);
    await runState(fileCopy, { name: p('exec2.sh'), source: p('exec.sh'), preserve: true });
    assert.equal(fs.statSync(p('exec2.sh')).mode & 0o777, 0o751);
    const r = await runState(fileCopy, { name: p('nothing'), source: p('no-such') });
    assert.equal(r.result, false);
    assert.match(r.comment, /is not present/);
  });

  it('copies a directory tree', async () => {
    fs.mkdirSync(p('srcdir/a'), { recursive: true });
    fs.writeFileSync(p('srcdir/a/f'), 'x');
    const r = await runState(fileCopy, { name: p('dstdir'), source: p('srcdir') });
    assert.equal(r.result, true, r.comment);
    assert.equal(fs.readFileSync(p('dstdir/a/f'), 'utf8'), 'x');
  });
});
