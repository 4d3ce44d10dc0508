// Issue 22 (mysql-formula: `file.managed: ~/.my.cnf` from its pillar.example): Salt's file states
// start with os.path.expanduser(name), so `~` and `~user` name a home directory instead of
// failing as relative paths.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { expandUser } from '../../../src/state/modules/expand-user.js';
import { tempDir } from './file-fixture.js';
import { runState } from './state-ctx.js';

const home = tempDir('brine-home-');
const savedHome = process.env.HOME;
after(() => {
  process.env.HOME = savedHome;
  fs.rmSync(home, { recursive: true, force: true });
});

describe('file states expand ~ as os.path.expanduser does', () => {
  it('file.managed ~/.my.cnf writes into $HOME', async () => {
    process.env.HOME = home;
    try {
      const r = await runState('file.managed', { name: '~/.my.cnf', contents: '[client]\n' });
      assert.equal(r.result, true, r.comment);
      assert.equal(fs.readFileSync(path.join(home, '.my.cnf'), 'utf8'), '[client]\n');
      assert.equal((await runState('file.managed', { name: '~/.my.cnf', contents: '[client]\n' }, { test: true })).result, true);
    } finally {
      process.env.HOME = savedHome;
    }
  });

  it('~user is that user home from passwd; an unknown user or a relative path still fails', async () => {
    assert.equal(expandUser('~root/.my.cnf'), '/root/.my.cnf');
    assert.equal(expandUser('~no-such-user-x/.my.cnf'), '~no-such-user-x/.my.cnf');
    assert.equal(expandUser('/etc/~x'), '/etc/~x');
    const r = await runState('file.managed', { name: '~no-such-user-x/f', contents: 'x' });
    assert.equal(r.result, false);
    assert.match(r.comment, /~no-such-user-x\/f is not an absolute path/);
  });
});
