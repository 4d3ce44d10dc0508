// Issue 22 (result shapes): file.managed returns what Salt 3007's salt/states/file.py managed
// and salt/modules/file.py manage_file / check_perms return: when changes.mode appears for a
// new file and in what form, Salt's test-mode comments, and replace: False.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileManaged } from '../../../src/state/modules/file-managed.js';
import { newFileModeChange } from '../../../src/state/modules/file-manage.js';
import { DirFileClient, runState, tempDir } from './file-fixture.js';

let dir: string;
let root: string;
let files: DirFileClient;
before(() => {
  dir = tempDir('brine-shapes-managed-');
  root = tempDir('brine-shapes-root-');
  fs.writeFileSync(path.join(root, 'app.conf'), 'listen 80\n');
  files = new DirFileClient(root, tempDir('brine-shapes-cache-'));
});
after(() => {
  for (const d of [dir, root, files.cache]) fs.rmSync(d, { recursive: true, force: true });
});
const p = (name: string): string => path.join(dir, name);
const NOTE = '\nNote: No changes made, actual changes may\nbe different due to other states.';

describe('file.managed: changes.mode of a new file (salt/modules/file.py manage_file + check_perms)', () => {
  it('the rule: from a source always reported (0600 after copyfile) unless 0600 is wanted; from contents only with a mode other than 0600', () => {
    assert.equal(newFileModeChange('source', undefined, 0o022), '0644');
    assert.equal(newFileModeChange('source', 0o640, 0o022), '0640');
    assert.equal(newFileModeChange('source', 0o600, 0o022), undefined);
    assert.equal(newFileModeChange('source', undefined, 0o177), undefined);
    assert.equal(newFileModeChange('contents', undefined, 0o022), undefined);
    assert.equal(newFileModeChange('contents', 0o644, 0o022), '0644');
    assert.equal(newFileModeChange('contents', 0o600, 0o022), undefined);
    assert.equal(newFileModeChange('source', 0o2755, 0o022), '2755');
  });

  it('from a source with mode 644: {diff: New file, mode: 0644}, "File X updated", file at 0644', async () => {
    const name = p('src.conf');
    const r = await runState(fileManaged, { name, source: 'salt://app.conf', mode: 644 }, { files });
    assert.deepEqual(r, { name, result: true, changes: { diff: 'New file', mode: '0644' }, comment: `File ${name} updated` });
    assert.equal(fs.statSync(name).mode & 0o777, 0o644);
  });

  it('from contents without a mode: no mode in changes; with mode 0600: none either; with 0640: reported', async () => {
    const a = await runState(fileManaged, { name: p('c1'), contents: 'x' });
    assert.deepEqual(a.changes, { diff: 'New file' });
    const b = await runState(fileManaged, { name: p('c2'), contents: 'x', mode: '0600' });
    assert.deepEqual(b.changes, { diff: 'New file' });
    assert.equal(fs.statSync(p('c2')).mode & 0o777, 0o600);
    const c = await runState(fileManaged, { name: p('c3'), contents: 'x', mode: '0640' });
    assert.deepEqual(c, { name: p('c3'), result: true, changes: { diff: 'New file', mode: '0640' }, comment: `File ${p('c3')} updated` });
  });

  it('neither source nor contents: an empty file, {new: "file X created"}, comment "Empty file"', async () => {
    const name = p('empty');
    assert.deepEqual(await runState(fileManaged, { name }), { name, result: true, changes: { new: `file ${name} created` }, comment: 'Empty file' });
  });
});

describe('file.managed test-mode comments (salt/states/file.py managed)', () => {
  it('new file: None, {newfile: X}, "The file X is set to be changed" plus Salt\'s note', async () => {
    const name = p('t-new');
    assert.deepEqual(await runState(fileManaged, { name, contents: 'x' }, { test: true }), { name, result: null, changes: { newfile: name }, comment: `The file ${name} is set to be changed${NOTE}` });
  });

  it('nothing to change: test says "The file X is in the correct state", a real run "File X is in the correct state"', async () => {
    const name = p('same');
    fs.writeFileSync(name, 'x\n');
    fs.chmodSync(name, 0o644);
    assert.deepEqual(await runState(fileManaged, { name, contents: 'x', mode: '0644' }, { test: true }), {
      name,
      result: true,
      changes: {},
      comment: `The file ${name} is in the correct state`,
    });
    assert.deepEqual(await runState(fileManaged, { name, contents: 'x', mode: '0644' }), { name, result: true, changes: {}, comment: `File ${name} is in the correct state` });
  });

  it('replace: False: test says "File X not updated"; a mode change is worded with both modes; real runs as check_perms', async () => {
    const name = p('keep');
    fs.writeFileSync(name, 'old\n');
    fs.chmodSync(name, 0o600);
    assert.deepEqual(await runState(fileManaged, { name, contents: 'new', replace: false }, { test: true }), {
      name,
      result: true,
      changes: {},
      comment: `File ${name} not updated`,
    });
    assert.deepEqual(await runState(fileManaged, { name, contents: 'new', replace: false, mode: '0640' }, { test: true }), {
      name,
      result: null,
      changes: { mode: '0640' },
      comment: `File ${name} will be updated with permissions 0640 from its current state of 0600`,
    });
    assert.deepEqual(await runState(fileManaged, { name, contents: 'new', replace: false, mode: '0640' }), { name, result: true, changes: { mode: '0640' }, comment: '' });
    assert.equal(fs.readFileSync(name, 'utf8'), 'old\n');
    assert.equal(fs.statSync(name).mode & 0o777, 0o640);
    assert.deepEqual(await runState(fileManaged, { name, contents: 'new', replace: false, mode: '0640' }), {
      name,
      result: true,
      changes: {},
      comment: `File ${name} exists with proper permissions. No changes made.`,
    });
  });
});
