// Issue 22 (result shapes): file.directory returns what Salt 3007's salt/states/file.py
// directory (with _check_directory and modules/file.py check_perms) returns, pinned whole.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileDirectory } from '../../../src/state/modules/file-directory.js';
import { runState, tempDir } from './file-fixture.js';

let dir: string;
before(() => {
  dir = tempDir('brine-shapes-dir-');
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const p = (name: string): string => path.join(dir, name);

describe('file.directory result shapes (salt/states/file.py directory)', () => {
  it('new directory, test=True: None, {path: {directory: new}}, "The following files will be changed" comment', async () => {
    const name = p('new1');
    const t = await runState(fileDirectory, { name, dir_mode: '0750' }, { test: true });
    assert.deepEqual(t, { name, result: null, changes: { [name]: { directory: 'new' } }, comment: `The following files will be changed:\n${name}: directory - new\n` });
    assert.equal(fs.existsSync(name), false);
  });

  it('new directory, real run: True, {path: {directory: new}}, empty comment (Salt returns right after mkdir)', async () => {
    const name = p('new2/inner');
    const r = await runState(fileDirectory, { name, makedirs: true, dir_mode: '0750' });
    assert.deepEqual(r, { name, result: true, changes: { [name]: { directory: 'new' } }, comment: '' });
    assert.equal(fs.statSync(name).mode & 0o777, 0o750);
    assert.equal(fs.statSync(p('new2')).mode & 0o777, 0o750, 'makedirs gives parents dir_mode');
  });

  it('existing directory with another mode: test lists {path: {mode}}; real adds check_perms\' top-level mode and says "Directory X updated"', async () => {
    const name = p('exist');
    fs.mkdirSync(name, { mode: 0o700 });
    fs.chmodSync(name, 0o700);
    const t = await runState(fileDirectory, { name, mode: 755 }, { test: true });
    assert.deepEqual(t, { name, result: null, changes: { [name]: { mode: '0755' } }, comment: `The following files will be changed:\n${name}: mode - 0755\n` });
    const r = await runState(fileDirectory, { name, mode: 755 });
    assert.deepEqual(r, { name, result: true, changes: { [name]: { mode: '0755' }, mode: '0755' }, comment: `Directory ${name} updated` });
    assert.equal(fs.statSync(name).mode & 0o777, 0o755);
  });

  it('in the correct state: True, no changes, "The directory X is in the correct state" in both modes', async () => {
    const name = p('exist');
    const want = { name, result: true, changes: {}, comment: `The directory ${name} is in the correct state` };
    assert.deepEqual(await runState(fileDirectory, { name, mode: '0755' }, { test: true }), want);
    assert.deepEqual(await runState(fileDirectory, { name, mode: '0755' }), want);
  });

  it("a missing parent without makedirs: test=True still reports the new directory; a real run fails with Salt's comment", async () => {
    const name = p('no/parent');
    assert.equal((await runState(fileDirectory, { name }, { test: true })).result, null);
    assert.deepEqual(await runState(fileDirectory, { name }), { name, result: false, changes: {}, comment: `No directory to create ${name} in` });
  });

  it('recurse: test lists each path below (children first, then the directory)', async () => {
    const name = p('tree');
    fs.mkdirSync(path.join(name, 'sub'), { recursive: true });
    fs.writeFileSync(path.join(name, 'sub', 'f'), 'x');
    fs.chmodSync(path.join(name, 'sub', 'f'), 0o600);
    fs.chmodSync(path.join(name, 'sub'), 0o700);
    fs.chmodSync(name, 0o700);
    const t = await runState(fileDirectory, { name, dir_mode: '0755', file_mode: '0644', recurse: ['mode'] }, { test: true });
    assert.deepEqual(Object.keys(t.changes), [path.join(name, 'sub'), path.join(name, 'sub', 'f'), name]);
    assert.equal(t.comment, `The following files will be changed:\n${path.join(name, 'sub')}: mode - 0755\n${path.join(name, 'sub', 'f')}: mode - 0644\n${name}: mode - 0755\n`);
  });
});
