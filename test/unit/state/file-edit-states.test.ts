import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileAppend } from '../../../src/state/modules/file-append.js';
import { replaceBlock } from '../../../src/state/modules/file-block-edit.js';
import { fileBlockreplace } from '../../../src/state/modules/file-blockreplace.js';
import { fileLine } from '../../../src/state/modules/file-line.js';
import { editLines } from '../../../src/state/modules/file-line-edit.js';
import { fileReplace } from '../../../src/state/modules/file-replace.js';
import { runState, snapshot, tempDir } from './file-fixture.js';

let dir: string;
before(() => {
  dir = tempDir();
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const p = (name: string): string => path.join(dir, name);
const read = (name: string) => fs.readFileSync(p(name), 'utf8');

describe('file.append', () => {
  it('appends only the missing lines (adding a final newline first), then reports no changes', async () => {
    fs.writeFileSync(p('ap'), 'alpha\nbeta');
    const r = await runState(fileAppend, { name: p('ap'), text: ['beta', 'gamma', 'delta\nepsilon'] });
    assert.equal(r.result, true, r.comment);
    assert.equal(r.comment, 'Appended 3 lines');
    assert.equal(read('ap'), 'alpha\nbeta\ngamma\ndelta\nepsilon\n');
    // Salt's diff is difflib over the file's lines (splitlines), joined with '\n' (salt/states/file.py append).
    assert.equal(r.changes.diff, '--- \n\n+++ \n\n@@ -1,2 +1,5 @@\n\n alpha\n beta\n+gamma\n+delta\n+epsilon');
    const again = await runState(fileAppend, { name: p('ap'), text: ['beta', 'gamma', 'delta\nepsilon'] });
    assert.deepEqual(again, { name: p('ap'), result: true, changes: {}, comment: `File ${p('ap')} is in correct state` });
  });

  it('whitespace differences count as present by default', async () => {
    fs.writeFileSync(p('ws'), 'key   =  value\n');
    assert.deepEqual((await runState(fileAppend, { name: p('ws'), text: 'key = value' })).changes, {});
    const strict = await runState(fileAppend, { name: p('ws'), text: 'key = value', ignore_whitespace: false });
    assert.equal(strict.comment, 'Appended 1 lines');
  });

  it('creates a missing file; test=True changes nothing', async () => {
    const t = await runState(fileAppend, { name: p('newap'), text: 'x' }, { test: true });
    assert.equal(t.result, null);
    assert.equal(fs.existsSync(p('newap')), false);
    await runState(fileAppend, { name: p('newap'), text: 'x' });
    assert.equal(read('newap'), 'x\n');
    const nodir = await runState(fileAppend, { name: p('nodir/f'), text: 'x' });
    assert.equal(nodir.result, false);
  });
});

describe('file.line', () => {
  it('editLines covers the four modes', () => {
    const lines = ['a', '  b = 1', 'c'];
    assert.deepEqual(editLines(lines, { mode: 'replace', match: '^\\s*b', content: 'b = 2', indent: true }), ['a', '  b = 2', 'c']);
    assert.deepEqual(editLines(lines, { mode: 'delete', match: 'c', indent: true }), ['a', '  b = 1']);
    assert.deepEqual(editLines(lines, { mode: 'insert', location: 'start', content: 'z', indent: false }), ['z', 'a', '  b = 1', 'c']);
    assert.deepEqual(editLines(lines, { mode: 'insert', after: '^a$', content: 'new', indent: false }), ['a', 'new', '  b = 1', 'c']);
    assert.deepEqual(editLines(lines, { mode: 'ensure', after: '^a$', before: '^c$', content: 'b = 3', indent: true }), ['a', 'b = 3', 'c']);
    assert.deepEqual(editLines(lines, { mode: 'ensure', before: 'c', content: '  b = 1', indent: true }), lines);
    assert.ok('error' in (editLines(lines, { mode: 'ensure', content: 'x', indent: true }) as object));
  });

  it('replaces a line, reports the diff, then needs no changes', async () => {
    fs.writeFileSync(p('sshd'), 'Port 22\n#PermitRootLogin yes\nUsePAM yes\n');
    const args = { name: p('sshd'), mode: 'replace', match: '^#?PermitRootLogin', content: 'PermitRootLogin no' };
    const r = await runState(fileLine, args);
    assert.equal(r.comment, 'Changes were made');
    assert.equal(read('sshd'), 'Port 22\nPermitRootLogin no\nUsePAM yes\n');
    assert.match(String(r.changes.diff), /-#PermitRootLogin yes\n\+PermitRootLogin no\n/);
    assert.deepEqual(await runState(fileLine, args), { name: p('sshd'), result: true, changes: {}, comment: 'No changes needed to be made' });
  });

  it('test=True reports the diff and leaves the file alone; a missing anchor fails', async () => {
    fs.writeFileSync(p('ln'), 'one\ntwo\n');
    const before_ = snapshot(dir);
    const t = await runState(fileLine, { name: p('ln'), mode: 'insert', after: 'one', content: 'one-and-a-half' }, { test: true });
    assert.equal(t.result, null);
    assert.equal(t.comment, 'Changes would be made');
    assert.deepEqual(snapshot(dir), before_);
    const bad = await runState(fileLine, { name: p('ln'), mode: 'insert', after: 'zzz', content: 'x' });
    assert.equal(bad.result, false);
    assert.match(bad.comment, /'after' \(zzz\) was not found/);
    const badMode = await runState(fileLine, { name: p('ln'), mode: 'upsert', content: 'x' });
    assert.equal(badMode.result, false);
    const missing = await runState(fileLine, { name: p('nofile'), mode: 'insert', location: 'end', content: 'x' });
    assert.equal(missing.result, false);
    assert.match(missing.comment, /file not found/);
    assert.equal(read('ln'), 'one\ntwo\n');
  });
});

describe('file.blockreplace', () => {
  const ms = '# BEGIN managed';
  const me = '# END managed';

  it('replaceBlock keeps the marker lines and refuses missing or unterminated markers', () => {
    const e = { markerStart: ms, markerEnd: me, content: 'x\ny', appendIfNotFound: false, prependIfNotFound: false, appendNewline: true };
    assert.deepEqual(replaceBlock(['a', `${ms} (do not edit)`, 'old', me, 'b'], e), ['a', `${ms} (do not edit)`, 'x', 'y', me, 'b']);
    assert.match((replaceBlock(['a'], e) as { error: string }).error, /Markers were not found/);
    assert.match((replaceBlock([ms, 'a'], e) as { error: string }).error, /Unterminated marked block/);
    assert.deepEqual(replaceBlock(['a'], { ...e, prependIfNotFound: true }), [ms, 'x', 'y', me, 'a']);
  });

  it('appends the block when not found, then is idempotent; the .bak copy holds the old file', async () => {
    fs.writeFileSync(p('hosts'), '127.0.0.1 localhost\n');
    const args = { name: p('hosts'), marker_start: ms, marker_end: me, content: '10.0.0.1 db1\n', append_if_not_found: true };
    const r = await runState(fileBlockreplace, args);
    assert.equal(r.result, true, r.comment);
    assert.equal(read('hosts'), `127.0.0.1 localhost\n${ms}\n10.0.0.1 db1\n${me}\n`);
    assert.equal(read('hosts.bak'), '127.0.0.1 localhost\n');
    assert.deepEqual((await runState(fileBlockreplace, args)).changes, {});
    const changed = await runState(fileBlockreplace, { ...args, content: '10.0.0.2 db2' });
    assert.match(String(changed.changes.diff), /-10\.0\.0\.1 db1\n\+10\.0\.0\.2 db2\n/);
  });

  it('fails without markers (nothing written); test=True writes nothing', async () => {
    fs.writeFileSync(p('plain'), 'x\n');
    const r = await runState(fileBlockreplace, { name: p('plain'), content: 'y' });
    assert.equal(r.result, false);
    assert.match(r.comment, /Markers were not found/);
    const before_ = snapshot(dir);
    const t = await runState(fileBlockreplace, { name: p('plain'), content: 'y', append_if_not_found: true }, { test: true });
    assert.equal(t.result, null);
    assert.deepEqual(snapshot(dir), before_);
  });
});

describe('file.replace', () => {
  it('replaces, then reports no changes; test=True writes nothing', async () => {
    fs.writeFileSync(p('grub'), 'GRUB_TIMEOUT=5\nGRUB_CMDLINE=""\n');
    const args = { name: p('grub'), pattern: '^GRUB_TIMEOUT=.*$', repl: 'GRUB_TIMEOUT=2', backup: false };
    const before_ = snapshot(dir);
    const t = await runState(fileReplace, args, { test: true });
    assert.equal(t.result, null);
    assert.equal(t.comment, 'Changes would have been made');
    assert.deepEqual(snapshot(dir), before_);
    const r = await runState(fileReplace, args);
    assert.equal(r.comment, 'Changes were made');
    assert.match(String(r.changes.diff), /-GRUB_TIMEOUT=5\n\+GRUB_TIMEOUT=2\n/);
    assert.equal(read('grub'), 'GRUB_TIMEOUT=2\nGRUB_CMDLINE=""\n');
    assert.deepEqual(await runState(fileReplace, args), { name: p('grub'), result: true, changes: {}, comment: 'No changes needed to be made' });
  });

  it('append_if_not_found adds the line once', async () => {
    fs.writeFileSync(p('conf'), 'a=1\n');
    const args = { name: p('conf'), pattern: '^b=.*$', repl: 'b=2', append_if_not_found: true, backup: false };
    await runState(fileReplace, args);
    assert.equal(read('conf'), 'a=1\nb=2\n');
    assert.deepEqual((await runState(fileReplace, args)).changes, {});
  });

  it('a missing file fails unless ignore_if_missing; a bad pattern fails', async () => {
    assert.equal((await runState(fileReplace, { name: p('none'), pattern: 'a', repl: 'b' })).result, false);
    assert.equal((await runState(fileReplace, { name: p('none'), pattern: 'a', repl: 'b', ignore_if_missing: true })).result, true);
    fs.writeFileSync(p('re'), 'x\n');
    const bad = await runState(fileReplace, { name: p('re'), pattern: '(unclosed', repl: 'b' });
    assert.equal(bad.result, false);
    assert.match(bad.comment, /invalid regular expression/);
  });
});
