// Issue 22 (result shapes): file.append returns what Salt 3007's salt/states/file.py append
// returns, in test and real mode: file.touch's report for a missing file under test=True, the
// "\n"-joined difflib diff over the file's lines, and Salt's comments.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileAppend, whitespaceSplitRegex } from '../../../src/state/modules/file-append.js';
import { runState, tempDir } from './file-fixture.js';

let dir: string;
before(() => {
  dir = tempDir('brine-shapes-append-');
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const p = (name: string): string => path.join(dir, name);

describe('file.append result shapes (salt/states/file.py append)', () => {
  it('test=True into a missing directory: file.touch\'s report, result None, "File X is set to be created"', async () => {
    const name = p('no/such/dir/f.conf');
    const r = await runState(fileAppend, { name, text: 'x' }, { test: true });
    assert.deepEqual(r, { name, result: null, changes: { new: name }, comment: `File ${name} is set to be created` });
    assert.equal(fs.existsSync(p('no')), false);
  });

  it('real run into a missing directory without makedirs: Salt\'s "<name>: file not found"; with makedirs the file is made', async () => {
    const name = p('nodir/f.conf');
    assert.deepEqual(await runState(fileAppend, { name, text: 'x' }), { name, result: false, changes: {}, comment: `${name}: file not found` });
    const made = await runState(fileAppend, { name, text: ['a', 'b'], makedirs: true });
    assert.deepEqual(made, { name, result: true, changes: { diff: '--- \n\n+++ \n\n@@ -0,0 +1,2 @@\n\n+a\n+b' }, comment: 'Appended 2 lines' });
    assert.equal(fs.readFileSync(name, 'utf8'), 'a\nb\n');
  });

  it('test=True on an existing file: "File X is set to be updated" with the would-be diff; nothing written', async () => {
    const name = p('t.conf');
    fs.writeFileSync(name, 'one\ntwo\nthree\nfour\n');
    const r = await runState(fileAppend, { name, text: 'five' }, { test: true });
    // three lines of context, then the new one (difflib.unified_diff, n=3)
    assert.deepEqual(r, { name, result: null, changes: { diff: '--- \n\n+++ \n\n@@ -2,3 +2,4 @@\n\n two\n three\n four\n+five' }, comment: `File ${name} is set to be updated` });
    assert.equal(fs.readFileSync(name, 'utf8'), 'one\ntwo\nthree\nfour\n');
    const present = await runState(fileAppend, { name, text: 'two' }, { test: true });
    assert.deepEqual(present, { name, result: true, changes: {}, comment: `File ${name} is in correct state` });
  });

  it('real run: "Appended N lines", a one-line range printed as a single number; again: "File X is in correct state"', async () => {
    const name = p('r.conf');
    fs.writeFileSync(name, 'only');
    const r = await runState(fileAppend, { name, text: 'next' });
    assert.deepEqual(r, { name, result: true, changes: { diff: '--- \n\n+++ \n\n@@ -1 +1,2 @@\n\n only\n+next' }, comment: 'Appended 1 lines' });
    assert.equal(fs.readFileSync(name, 'utf8'), 'only\nnext\n');
    assert.deepEqual(await runState(fileAppend, { name, text: 'next' }), { name, result: true, changes: {}, comment: `File ${name} is in correct state` });
  });

  it("presence is line-anchored as Salt's search: a line that merely contains the text does not count", async () => {
    const name = p('anchored.conf');
    fs.writeFileSync(name, 'PermitRootLogin no # default\n');
    const r = await runState(fileAppend, { name, text: 'PermitRootLogin no' });
    assert.equal(r.comment, 'Appended 1 lines');
    assert.ok(whitespaceSplitRegex('a  b').test('x\n  a b  \ny'));
    assert.ok(!whitespaceSplitRegex('a b').test('a b c'));
  });
});
