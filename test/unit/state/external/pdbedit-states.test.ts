// Issue 22 (samba-formula's samba/users): pdbedit.managed / present / absent compile with Salt's
// **kwargs, answer test=True, and a real run either acts (absent: pdbedit --delete) or fails
// naming why. pdbedit (Debian samba-common-bin) is not on this machine: the account database is
// a stand-in program on PATH that answers `--list` and `--delete` in pdbedit's own format.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../file-fixture.js';
import { harness } from '../harness.js';
import { runState } from '../state-ctx.js';

let dir: string;
const savedPath = process.env.PATH;

before(() => {
  dir = tempDir('brine-pdbedit-');
  fs.mkdirSync(path.join(dir, 'bin'));
  fs.mkdirSync(path.join(dir, 'empty'));
  fs.writeFileSync(path.join(dir, 'passdb'), 'alice:1001:Alice A\nbob:1002:\n');
  // pdbedit --list prints user:uid:full name; --delete removes one account
  const stub = `#!/bin/sh\ndb='${path.join(dir, 'passdb')}'\ncase "$1" in\n  --list) cat "$db" ;;\n  --delete) grep -v "^$2:" "$db" > "$db.new"; mv "$db.new" "$db" ;;\n  *) echo "unexpected $*" >&2; exit 2 ;;\nesac\n`;
  fs.writeFileSync(path.join(dir, 'bin', 'pdbedit'), stub, { mode: 0o755 });
});
after(() => {
  process.env.PATH = savedPath;
  fs.rmSync(dir, { recursive: true, force: true });
});

function withPath<T>(p: string, body: () => Promise<T>): Promise<T> {
  process.env.PATH = p;
  return body().finally(() => {
    process.env.PATH = savedPath;
  });
}

describe('pdbedit states', () => {
  it("samba-formula's users state compiles: managed takes Salt's keyword arguments without a warning", async () => {
    const h = harness({ base: { 'samba/users.sls': 'alice:\n  pdbedit.managed:\n    - login: alice\n    - password: 0123456789ABCDEF0123456789ABCDEF\n    - password_hashed: True\n' } });
    const r = await h.call('state.show_sls', ['samba.users']);
    assert.equal(r.success, true, JSON.stringify(r.return));
    const show = r.return as Record<string, Record<string, unknown>>;
    assert.deepEqual(Object.keys(show.alice ?? {}).sort(), ['__env__', '__sls__', 'pdbedit']);
  });

  it('absent: deletes an account with pdbedit --delete; test=True first; then nothing to do', async () => {
    await withPath(`${path.join(dir, 'bin')}:/usr/bin:/bin`, async () => {
      assert.deepEqual(await runState('pdbedit.absent', { name: 'alice' }, { test: true }), { name: 'alice', result: null, changes: { alice: 'deleted' }, comment: 'account alice would be deleted' });
      assert.match(fs.readFileSync(path.join(dir, 'passdb'), 'utf8'), /^alice:/m);
      assert.deepEqual(await runState('pdbedit.absent', { name: 'alice' }), { name: 'alice', result: true, changes: { alice: 'deleted' }, comment: '' });
      assert.equal(fs.readFileSync(path.join(dir, 'passdb'), 'utf8'), 'bob:1002:\n');
      assert.deepEqual(await runState('pdbedit.absent', { name: 'alice' }), { name: 'alice', result: true, changes: {}, comment: 'account alice is absent' });
    });
  });

  it('managed: test=True says what would happen; a real run fails naming why, and changes nothing', async () => {
    await withPath(`${path.join(dir, 'bin')}:/usr/bin:/bin`, async () => {
      assert.deepEqual(await runState('pdbedit.managed', { name: 'carol', password: 'x' }, { test: true }), {
        name: 'carol',
        result: null,
        changes: { carol: 'created' },
        comment: 'account carol would be created',
      });
      const r = await runState('pdbedit.present', { name: 'bob', password: 'x' });
      assert.equal(r.result, false);
      assert.match(r.comment, /^pdbedit\.present cannot act on this minion: brine does not create or change Samba accounts yet/);
      assert.equal(fs.readFileSync(path.join(dir, 'passdb'), 'utf8'), 'bob:1002:\n');
    });
  });

  it('without pdbedit: test=True answers, a real run names the Debian package to install', async () => {
    await withPath(path.join(dir, 'empty'), async () => {
      assert.equal((await runState('pdbedit.managed', { name: 'dave' }, { test: true })).result, null);
      const r = await runState('pdbedit.managed', { name: 'dave' });
      assert.equal(r.result, false);
      assert.match(r.comment, /pdbedit is not installed on this minion .*install the samba-common-bin package/);
      assert.deepEqual(await runState('pdbedit.absent', { name: 'dave' }), { name: 'dave', result: true, changes: {}, comment: 'account dave is absent' });
    });
  });
});
