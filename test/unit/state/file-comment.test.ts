// file.comment and file.uncomment on real files. The shapes (comments, changes, result in real
// and test mode) are Salt 3007's salt/states/file.py comment()/uncomment(), whose edit is
// salt/modules/file.py comment_line (a '#' prefixed; uncommenting lstrips the char).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { commentLines, fileComment, fileUncomment } from '../../../src/state/modules/file-comment.js';
import { runState, snapshot, tempDir } from './file-fixture.js';

let dir: string;
before(() => {
  dir = tempDir('brine-comment-');
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const p = (name: string): string => path.join(dir, name);
const read = (name: string) => fs.readFileSync(p(name), 'utf8');

describe('commentLines (Salt file.comment_line)', () => {
  it('prefixes matching lines; uncommenting strips every leading char as Python lstrip does', () => {
    assert.equal(commentLines('t', 'bind 127.0.0.1\nport 6379\n', '^bind 127.0.0.1', '#', true), '#bind 127.0.0.1\nport 6379\n');
    assert.equal(commentLines('t', 'a\nxa\n', 'a$', '#', true), '#a\nxa\n', 're.match anchors at the line start even without ^');
    assert.equal(commentLines('t', '#  foo\nfoo\n', 'foo', '#', false), '  foo\nfoo\n', "lstrip('#') leaves the space after it");
  });
});

describe('file.comment', () => {
  it('comments the line, writes a .bak, reports the diff; the second run says already commented', async () => {
    fs.writeFileSync(p('redis.conf'), 'port 6379\nbind 127.0.0.1\n');
    const r = await runState(fileComment, { name: p('redis.conf'), regex: '^bind 127.0.0.1' });
    assert.deepEqual(r, {
      name: p('redis.conf'),
      result: true,
      comment: 'Commented lines successfully',
      changes: { diff: '--- \n+++ \n@@ -1,2 +1,2 @@\n port 6379\n-bind 127.0.0.1\n+#bind 127.0.0.1\n' },
    });
    assert.equal(read('redis.conf'), 'port 6379\n#bind 127.0.0.1\n');
    assert.equal(read('redis.conf.bak'), 'port 6379\nbind 127.0.0.1\n');
    const again = await runState(fileComment, { name: p('redis.conf'), regex: '^bind 127.0.0.1' });
    assert.deepEqual(again, { name: p('redis.conf'), result: true, changes: {}, comment: 'Pattern already commented' });
  });

  it('test=True: result None, changes {name: "updated"}, nothing written', async () => {
    fs.writeFileSync(p('t.conf'), 'PermitRootLogin yes\n');
    const before_ = snapshot(dir);
    const r = await runState(fileComment, { name: p('t.conf'), regex: '^PermitRootLogin', char: '# ' }, { test: true });
    assert.deepEqual(r, { name: p('t.conf'), result: null, changes: { [p('t.conf')]: 'updated' }, comment: `File ${p('t.conf')} is set to be updated` });
    assert.deepEqual(snapshot(dir), before_);
  });

  it('a missing pattern fails unless ignore_missing; a relative path and a missing file fail', async () => {
    fs.writeFileSync(p('m.conf'), 'nothing here\n');
    assert.deepEqual(await runState(fileComment, { name: p('m.conf'), regex: '^foo$' }), { name: p('m.conf'), result: false, changes: {}, comment: 'foo: Pattern not found' });
    assert.deepEqual(await runState(fileComment, { name: p('m.conf'), regex: '^foo$', ignore_missing: true }), {
      name: p('m.conf'),
      result: true,
      changes: {},
      comment: 'Pattern not found and ignore_missing set to True',
    });
    assert.equal((await runState(fileComment, { name: 'rel/x', regex: 'a' })).comment, 'Specified file rel/x is not an absolute path');
    assert.equal((await runState(fileComment, { name: p('nope'), regex: 'a' })).comment, `${p('nope')}: file not found`);
  });

  it('backup: False leaves no copy', async () => {
    fs.writeFileSync(p('nb.conf'), 'x = 1\n');
    await runState(fileComment, { name: p('nb.conf'), regex: '^x', backup: false });
    assert.equal(read('nb.conf'), '#x = 1\n');
    assert.equal(fs.existsSync(p('nb.conf.bak')), false);
  });
});

describe('file.uncomment', () => {
  it('uncomments, reports the diff, then says already uncommented', async () => {
    fs.writeFileSync(p('adduser.conf'), '#EXTRA_GROUPS="dialout cdrom"\nDSHELL=/bin/bash\n');
    const r = await runState(fileUncomment, { name: p('adduser.conf'), regex: 'EXTRA_GROUPS' });
    assert.deepEqual(r, {
      name: p('adduser.conf'),
      result: true,
      comment: 'Uncommented lines successfully',
      changes: { diff: '--- \n+++ \n@@ -1,2 +1,2 @@\n-#EXTRA_GROUPS="dialout cdrom"\n+EXTRA_GROUPS="dialout cdrom"\n DSHELL=/bin/bash\n' },
    });
    assert.equal(read('adduser.conf.bak'), '#EXTRA_GROUPS="dialout cdrom"\nDSHELL=/bin/bash\n');
    assert.deepEqual(await runState(fileUncomment, { name: p('adduser.conf'), regex: 'EXTRA_GROUPS' }), {
      name: p('adduser.conf'),
      result: true,
      changes: {},
      comment: 'Pattern already uncommented',
    });
  });

  it('test=True reports without writing; a pattern nowhere fails with the regex as given', async () => {
    fs.writeFileSync(p('u.conf'), '# ServerName example\n');
    const before_ = snapshot(dir);
    const t = await runState(fileUncomment, { name: p('u.conf'), regex: '^ServerName' }, { test: true });
    assert.deepEqual(t, { name: p('u.conf'), result: null, changes: { [p('u.conf')]: 'updated' }, comment: `File ${p('u.conf')} is set to be updated` });
    assert.deepEqual(snapshot(dir), before_);
    assert.deepEqual(await runState(fileUncomment, { name: p('u.conf'), regex: '^Listen' }), { name: p('u.conf'), result: false, changes: {}, comment: '^Listen: Pattern not found' });
  });
});
