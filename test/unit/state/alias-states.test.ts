// alias.present / alias.absent on a real aliases file in a temp dir (the `aliases.file` option, as
// Salt's salt/modules/aliases.py reads it). Comments and changes are Salt 3007's
// salt/states/alias.py (pinned in Salt's tests/pytests/unit/states/test_alias.py); the file text
// follows aliases.py's __ALIAS_RE parse and __write_aliases_file. newaliases is a stand-in on PATH
// that records its runs: the real one (exim4 or postfix) would rebuild the system's aliases, not
// the temp file's.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { aliasStates } from '../../../src/state/modules/alias-states.js';
import type { StateFunction } from '../../../src/state/index.js';
import { runState, tempDir } from './file-fixture.js';

let dir: string;
let file: string;
let oldPath: string | undefined;
const fn = (name: string): StateFunction => aliasStates.find((s) => s.name === name)!;
const run = (name: string, args: Record<string, unknown>, test = false) => runState(fn(name), args, { test, config: { 'aliases.file': file } });
const newaliasesRuns = () => (fs.existsSync(path.join(dir, 'newaliases.log')) ? fs.readFileSync(path.join(dir, 'newaliases.log'), 'utf8').split('\n').length - 1 : 0);

before(() => {
  dir = tempDir('brine-aliases-');
  file = path.join(dir, 'aliases');
  fs.mkdirSync(path.join(dir, 'bin'));
  fs.writeFileSync(path.join(dir, 'bin', 'newaliases'), `#!/bin/sh\necho run >> ${path.join(dir, 'newaliases.log')}\n`, { mode: 0o755 });
  oldPath = process.env.PATH;
  process.env.PATH = `${path.join(dir, 'bin')}:${process.env.PATH}`;
  fs.writeFileSync(file, '# See man 5 aliases\npostmaster: root\nroot: admin  # the admin\n', { mode: 0o640 });
});
after(() => {
  process.env.PATH = oldPath;
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('alias.present', () => {
  it('test=True says it would add and writes nothing', async () => {
    assert.deepEqual(await run('alias.present', { name: 'saltdude', target: 'dude@saltstack.com' }, true), {
      name: 'saltdude',
      result: null,
      changes: {},
      comment: 'Alias saltdude -> dude@saltstack.com is set to be added',
    });
    assert.equal(newaliasesRuns(), 0);
  });

  it('appends a new alias, keeps the file mode, runs newaliases; then already present', async () => {
    assert.deepEqual(await run('alias.present', { name: 'saltdude', target: 'dude@saltstack.com' }), {
      name: 'saltdude',
      result: true,
      changes: { alias: 'saltdude' },
      comment: 'Set email alias saltdude -> dude@saltstack.com',
    });
    assert.equal(fs.readFileSync(file, 'utf8'), '# See man 5 aliases\npostmaster: root\nroot: admin  # the admin\nsaltdude: dude@saltstack.com\n');
    assert.equal(fs.statSync(file).mode & 0o777, 0o640);
    assert.equal(newaliasesRuns(), 1);
    assert.deepEqual(await run('alias.present', { name: 'saltdude', target: 'dude@saltstack.com' }), { name: 'saltdude', result: true, changes: {}, comment: 'Alias saltdude already present' });
    assert.equal(newaliasesRuns(), 1);
  });

  it('a list target replaces the line in place, keeping its trailing comment', async () => {
    const r = await run('alias.present', { name: 'root', target: ['admin', 'ops@example.com'] });
    assert.equal(r.comment, 'Set email alias root -> admin, ops@example.com');
    assert.match(fs.readFileSync(file, 'utf8'), /^root: admin, ops@example\.com {2}# the admin$/m);
    assert.equal((await run('alias.present', { name: 'root', target: ['admin', 'ops@example.com'] }, true)).result, true);
  });

  it('creates a missing aliases file with mode 0644', async () => {
    const other = path.join(dir, 'aliases.new');
    const r = await runState(fn('alias.present'), { name: 'a', target: 'b' }, { config: { 'aliases.file': other } });
    assert.equal(r.result, true);
    assert.equal(fs.readFileSync(other, 'utf8'), 'a: b\n');
    assert.equal(fs.statSync(other).mode & 0o777, 0o644);
  });
});

describe('alias.absent', () => {
  it('test=True, removed, then already absent', async () => {
    assert.deepEqual(await run('alias.absent', { name: 'postmaster' }, true), { name: 'postmaster', result: null, changes: {}, comment: 'Alias postmaster is set to be removed' });
    assert.deepEqual(await run('alias.absent', { name: 'postmaster' }), { name: 'postmaster', result: true, changes: { alias: 'postmaster' }, comment: 'Removed alias postmaster' });
    assert.doesNotMatch(fs.readFileSync(file, 'utf8'), /postmaster/);
    assert.match(fs.readFileSync(file, 'utf8'), /^# See man 5 aliases$/m);
    assert.deepEqual(await run('alias.absent', { name: 'postmaster' }), { name: 'postmaster', result: true, changes: {}, comment: 'Alias postmaster already absent' });
  });
});
