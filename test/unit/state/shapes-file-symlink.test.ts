// Issue 22 (result shapes): file.symlink returns what Salt 3007's salt/states/file.py symlink
// (with _symlink_check) returns, in test and real mode, pinned whole.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileSymlink } from '../../../src/state/modules/file-symlink.js';
import { runState, tempDir } from './file-fixture.js';

let dir: string;
before(() => {
  dir = tempDir('brine-shapes-symlink-');
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const p = (name: string): string => path.join(dir, name);
const me = (): string => {
  const id = (flag: string) => execFileSync('id', [flag]).toString().trim();
  return `${id('-un')}:${id('-gn')}`;
};

describe('file.symlink result shapes (salt/states/file.py symlink, _symlink_check)', () => {
  it('new link: test None {new} "set for creation" (a missing parent noted, not failed); real "Created new symlink"', async () => {
    const name = p('a/ln');
    assert.deepEqual(await runState(fileSymlink, { name, target: '/etc/hosts' }, { test: true }), {
      name,
      result: null,
      changes: { new: name },
      comment: `Symlink ${name} to /etc/hosts is set for creation\nDirectory ${p('a')} for symlink is not present`,
    });
    assert.equal((await runState(fileSymlink, { name, target: '/etc/hosts', makedirs: true }, { test: true })).comment, `Symlink ${name} to /etc/hosts is set for creation\n${p('a')} will be created`);
    assert.deepEqual(await runState(fileSymlink, { name, target: '/etc/hosts' }), { name, result: false, changes: {}, comment: `Directory ${p('a')} for symlink is not present` });
    assert.deepEqual(await runState(fileSymlink, { name, target: '/etc/hosts', makedirs: true }), { name, result: true, changes: { new: name }, comment: `Created new symlink ${name} -> /etc/hosts` });
  });

  it('present: test True "The symlink X is present"; real "Symlink X is present and owned by user:group"', async () => {
    const name = p('a/ln');
    assert.deepEqual(await runState(fileSymlink, { name, target: '/etc/hosts' }, { test: true }), { name, result: true, changes: {}, comment: `The symlink ${name} is present` });
    assert.deepEqual(await runState(fileSymlink, { name, target: '/etc/hosts' }), { name, result: true, changes: {}, comment: `Symlink ${name} is present and owned by ${me()}` });
  });

  it('pointing elsewhere: test None {change} "Link X target is set to be changed to T"; real re-creates it as {new}', async () => {
    const name = p('a/ln');
    assert.deepEqual(await runState(fileSymlink, { name, target: '/etc/passwd' }, { test: true }), {
      name,
      result: null,
      changes: { change: name },
      comment: `Link ${name} target is set to be changed to /etc/passwd`,
    });
    assert.deepEqual(await runState(fileSymlink, { name, target: '/etc/passwd' }), { name, result: true, changes: { new: name }, comment: `Created new symlink ${name} -> /etc/passwd` });
    assert.equal(fs.readlinkSync(name), '/etc/passwd');
  });

  it('a file in the way: test without force False "Did you mean to use force?"; with force None and no changes', async () => {
    const name = p('file');
    fs.writeFileSync(name, 'x');
    assert.deepEqual(await runState(fileSymlink, { name, target: '/etc/hosts' }, { test: true }), {
      name,
      result: false,
      changes: {},
      comment: `File or directory exists where the symlink ${name} should be. Did you mean to use force?`,
    });
    assert.deepEqual(await runState(fileSymlink, { name, target: '/etc/hosts', force: true }, { test: true }), {
      name,
      result: null,
      changes: {},
      comment: `The file or directory ${name} is set for removal to make way for a new symlink targeting /etc/hosts`,
    });
    assert.equal(fs.readFileSync(name, 'utf8'), 'x');
  });
});
