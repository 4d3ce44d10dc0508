import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDefaultRegistry, unifiedDiff } from '../../../src/modules/index.js';
import { makeCtx } from './context.js';

const registry = createDefaultRegistry();
const run = (fun: string, arg: unknown[], kwarg: Record<string, unknown> = {}) => registry.call(fun, arg, kwarg, makeCtx());

let dir: string;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-'));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const f = path.join(dir, name);
  fs.writeFileSync(f, text);
  return f;
}

describe('unifiedDiff (Python difflib.unified_diff as Salt prints it)', () => {
  it('one changed line among three', () => {
    assert.equal(unifiedDiff(['a\n', 'b\n', 'c\n'], ['a\n', 'B\n', 'c\n']), '--- \n+++ \n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n');
  });
  it('three lines of context and separate hunks for distant changes', () => {
    const a = Array.from({ length: 20 }, (_, i) => `l${i + 1}\n`);
    const b = a.map((l) => (l === 'l5\n' ? 'L5\n' : l === 'l18\n' ? 'L18\n' : l));
    assert.equal(unifiedDiff(a, b), '--- \n+++ \n@@ -2,7 +2,7 @@\n l2\n l3\n l4\n-l5\n+L5\n l6\n l7\n l8\n@@ -15,6 +15,6 @@\n l15\n l16\n l17\n-l18\n+L18\n l19\n l20\n');
  });
  it('an insertion into an empty file and no diff for equal inputs', () => {
    assert.equal(unifiedDiff([], ['x\n']), '--- \n+++ \n@@ -0,0 +1 @@\n+x\n');
    assert.equal(unifiedDiff(['same\n'], ['same\n']), '');
  });
});

describe('file.replace', () => {
  it('replaces every match by default, returns the diff and writes a .bak backup', async () => {
    const f = file('r1.conf', 'port = 80\nhost = a\nport = 80\n');
    const res = await run('file.replace', [f, '^port = \\d+$', 'port = 8080']);
    assert.equal(res.return, '--- \n+++ \n@@ -1,3 +1,3 @@\n-port = 80\n+port = 8080\n host = a\n-port = 80\n+port = 8080\n');
    assert.equal(fs.readFileSync(f, 'utf8'), 'port = 8080\nhost = a\nport = 8080\n');
    assert.equal(fs.readFileSync(`${f}.bak`, 'utf8'), 'port = 80\nhost = a\nport = 80\n');
  });

  it('count limits replacements; Python groups \\1 and \\g<name> are expanded', async () => {
    const f = file('r2.txt', 'key1=a\nkey2=b\nkey3=c\n');
    await run('file.replace', [f, '^(?P<k>key\\d)=(\\w)$', '\\g<k>: \\2\\2', 2], { backup: false });
    assert.equal(fs.readFileSync(f, 'utf8'), 'key1: aa\nkey2: bb\nkey3=c\n');
    assert.equal(fs.existsSync(`${f}.bak`), false);
  });

  it("flags accept names like Salt's ['IGNORECASE', 'DOTALL'] and an int", async () => {
    const f = file('r3.txt', 'Start\nmiddle\nEND\n');
    await run('file.replace', [f, 'start.*end', 'x'], { flags: ['IGNORECASE', 'DOTALL'], backup: false });
    assert.equal(fs.readFileSync(f, 'utf8'), 'x\n');
    const g = file('r3b.txt', 'ABC\n');
    await run('file.replace', [g, 'abc', 'def'], { flags: 2, backup: false });
    assert.equal(fs.readFileSync(g, 'utf8'), 'def\n');
    assert.equal((await run('file.replace', [g, 'a', 'b'], { flags: ['NOPE'] })).error?.code, 'BAD_ARGUMENTS');
    assert.equal((await run('file.replace', [g, 'a', 'b'], { flags: 'VERBOSE' })).error?.code, 'BAD_ARGUMENTS');
  });

  it('show_changes=false returns whether the file changed; dry_run leaves it alone', async () => {
    const f = file('r4.txt', 'alpha\n');
    assert.equal((await run('file.replace', [f, 'alpha', 'beta'], { show_changes: false, dry_run: true })).return, true);
    assert.equal(fs.readFileSync(f, 'utf8'), 'alpha\n');
    assert.equal((await run('file.replace', [f, 'zeta', 'beta'], { show_changes: false })).return, false);
    assert.equal((await run('file.replace', [f, 'alpha', 'alpha'], { show_changes: false })).return, false, 'a match that changes nothing is no change');
    assert.equal((await run('file.replace', [f, 'alp', 'x'], { search_only: true })).return, true);
  });

  it('append_if_not_found adds the line once; prepend_if_not_found puts it first', async () => {
    const f = file('r5.txt', 'a=1');
    await run('file.replace', [f, '^b=.*$', 'b=2'], { append_if_not_found: true, backup: false });
    assert.equal(fs.readFileSync(f, 'utf8'), 'a=1\nb=2\n');
    await run('file.replace', [f, '^c=.*$', 'b=2'], { append_if_not_found: true, backup: false });
    assert.equal(fs.readFileSync(f, 'utf8'), 'a=1\nb=2\n', 'content already present as a line counts as found');
    await run('file.replace', [f, '^z=.*$', 'z=0'], { prepend_if_not_found: true, not_found_content: '# managed', backup: false });
    assert.equal(fs.readFileSync(f, 'utf8'), '# managed\na=1\nb=2\n');
    const both = await run('file.replace', [f, 'x', 'y'], { prepend_if_not_found: true, append_if_not_found: true });
    assert.equal(both.error?.code, 'BAD_ARGUMENTS');
  });

  it('backslash_literal keeps backslashes; bad escapes and group numbers are BAD_ARGUMENTS', async () => {
    const f = file('r6.txt', 'path=X\n');
    await run('file.replace', [f, 'X', 'C:\\new\\1'], { backslash_literal: true, backup: false });
    assert.equal(fs.readFileSync(f, 'utf8'), 'path=C:\\new\\1\n');
    const bad = await run('file.replace', [f, '(p)ath', '\\3']);
    assert.equal(bad.error?.code, 'BAD_ARGUMENTS');
    assert.match(String(bad.error?.message), /invalid group reference 3/);
    assert.equal((await run('file.replace', [f, '(unclosed', 'x'])).error?.code, 'BAD_ARGUMENTS');
  });

  it('a missing file is EXEC_FAILED naming it, or false with ignore_if_missing; binary files are refused', async () => {
    const missing = path.join(dir, 'nope.txt');
    const res = await run('file.replace', [missing, 'a', 'b']);
    assert.equal(res.error?.code, 'EXEC_FAILED');
    assert.match(String(res.error?.message), new RegExp(`file not found: ${missing}`));
    assert.equal((await run('file.replace', [missing, 'a', 'b'], { ignore_if_missing: true })).return, false);
    const bin = path.join(dir, 'bin');
    fs.writeFileSync(bin, Buffer.from([97, 0, 98]));
    assert.match(String((await run('file.replace', [bin, 'a', 'b'])).error?.message), /binary file/);
  });

  it('keeps the inode, so hard links see the change', async () => {
    const f = file('r7.txt', 'one\n');
    const link = path.join(dir, 'r7.hard');
    fs.linkSync(f, link);
    const ino = fs.statSync(f).ino;
    await run('file.replace', [f, 'one', 'two'], { backup: false });
    assert.equal(fs.statSync(f).ino, ino);
    assert.equal(fs.readFileSync(link, 'utf8'), 'two\n');
  });
});
