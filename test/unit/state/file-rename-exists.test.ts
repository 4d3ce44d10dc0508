// file.rename, file.exists and file.missing on real files in a temp dir. The comments, results
// and changes pinned are Salt's, from salt/states/file.py (rename, exists, missing) in 3007:
// rename's changes are {name: source} and only in a real run; test=True has result None and no
// changes; a source already gone is success. Real trees use file.rename (corpus of issue 22: 11
// files in 3 trees).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileExists, fileMissing } from '../../../src/state/modules/file-exists.js';
import { fileRename } from '../../../src/state/modules/file-rename.js';
import { runState, snapshot, tempDir } from './file-fixture.js';

let dir: string;
before(() => {
  dir = tempDir();
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const p = (name: string): string => path.join(dir, name);

describe('file.rename', () => {
  it('test=True: result None, Salt comment, no changes, nothing moved; then the move with {name: source}', async () => {
    fs.writeFileSync(p('a.conf'), 'one\n');
    const before_ = snapshot(dir);
    const t = await runState(fileRename, { name: p('b.conf'), source: p('a.conf') }, { test: true });
    assert.deepEqual(t, { name: p('b.conf'), result: null, changes: {}, comment: `File "${p('a.conf')}" is set to be moved to "${p('b.conf')}"` });
    assert.deepEqual(snapshot(dir), before_);
    const r = await runState(fileRename, { name: p('b.conf'), source: p('a.conf') });
    assert.deepEqual(r, { name: p('b.conf'), result: true, changes: { [p('b.conf')]: p('a.conf') }, comment: `Moved "${p('a.conf')}" to "${p('b.conf')}"` });
    assert.equal(fs.readFileSync(p('b.conf'), 'utf8'), 'one\n');
    assert.equal(fs.existsSync(p('a.conf')), false);
    // the second run: the source is gone, which is success without changes
    const again = await runState(fileRename, { name: p('b.conf'), source: p('a.conf') });
    assert.deepEqual(again, { name: p('b.conf'), result: true, changes: {}, comment: `Source file "${p('a.conf')}" has already been moved out of place` });
  });

  it('an existing target is kept unless force; force replaces it', async () => {
    fs.writeFileSync(p('src1'), 'new\n');
    fs.writeFileSync(p('dst1'), 'old\n');
    const kept = await runState(fileRename, { name: p('dst1'), source: p('src1') });
    assert.deepEqual(kept, { name: p('dst1'), result: false, changes: {}, comment: `The target file "${p('dst1')}" exists and will not be overwritten` });
    assert.equal(fs.readFileSync(p('dst1'), 'utf8'), 'old\n');
    const forcedTest = await runState(fileRename, { name: p('dst1'), source: p('src1'), force: true }, { test: true });
    assert.equal(forcedTest.result, null);
    assert.equal(fs.readFileSync(p('dst1'), 'utf8'), 'old\n', 'test=True deletes nothing');
    const forced = await runState(fileRename, { name: p('dst1'), source: p('src1'), force: true });
    assert.equal(forced.result, true, forced.comment);
    assert.equal(fs.readFileSync(p('dst1'), 'utf8'), 'new\n');
  });

  it('a missing target directory fails unless makedirs; a symlink moves as a symlink', async () => {
    fs.writeFileSync(p('src2'), 'x');
    const noDir = await runState(fileRename, { name: p('deep/er/dst2'), source: p('src2') });
    assert.deepEqual(noDir, { name: p('deep/er/dst2'), result: false, changes: {}, comment: `The target directory ${p('deep/er')} is not present` });
    const made = await runState(fileRename, { name: p('deep/er/dst2'), source: p('src2'), makedirs: true });
    assert.equal(made.result, true, made.comment);
    assert.equal(fs.readFileSync(p('deep/er/dst2'), 'utf8'), 'x');
    fs.symlinkSync('/etc/hostname', p('link1'));
    const link = await runState(fileRename, { name: p('link2'), source: p('link1') });
    assert.equal(link.result, true, link.comment);
    assert.equal(fs.readlinkSync(p('link2')), '/etc/hostname');
    assert.equal(fs.existsSync(p('link1')), false);
  });

  it('a relative name is refused with Salt comment', async () => {
    const r = await runState(fileRename, { name: 'relative/x', source: p('nothing') });
    assert.equal(r.result, false);
    assert.equal(r.comment, 'Specified file relative/x is not an absolute path');
  });
});

describe('file.exists and file.missing', () => {
  it('report the path without changing anything, in test mode too', async () => {
    fs.writeFileSync(p('here'), '');
    for (const test of [false, true]) {
      assert.deepEqual(await runState(fileExists, { name: p('here') }, { test }), { name: p('here'), result: true, changes: {}, comment: `Path ${p('here')} exists` });
      assert.deepEqual(await runState(fileExists, { name: p('gone') }, { test }), { name: p('gone'), result: false, changes: {}, comment: `Specified path ${p('gone')} does not exist` });
      assert.deepEqual(await runState(fileMissing, { name: p('gone') }, { test }), { name: p('gone'), result: true, changes: {}, comment: `Path ${p('gone')} is missing` });
      assert.deepEqual(await runState(fileMissing, { name: p('here') }, { test }), { name: p('here'), result: false, changes: {}, comment: `Specified path ${p('here')} exists` });
    }
  });
});
