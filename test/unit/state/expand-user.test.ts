// Salt's file states expand `~` and `~user` in their path first (os.path.expanduser); thusoy's
// dotfiles state manages `~<user>/.bashrc` (issue 22).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { expandUser } from '../../../src/state/modules/expand-user.js';
import { fileManaged } from '../../../src/state/modules/file-managed.js';
import { fileDirectory } from '../../../src/state/modules/file-directory.js';
import { runState, tempDir } from './file-fixture.js';

describe('expanduser in file states', () => {
  it("`~user` is that user's home from /etc/passwd, `~` is $HOME; an unknown user and other paths stay as written", () => {
    const root = fs
      .readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .map((l) => l.split(':'))
      .find((f) => f[0] === 'root');
    assert.ok(root, 'this host has a root entry');
    assert.equal(expandUser('~root/.bashrc'), `${root[5]!.replace(/\/+$/, '')}/.bashrc`);
    assert.equal(expandUser('~root'), root[5]!.replace(/\/+$/, '') || '/');
    assert.equal(expandUser('~no-such-user-brine/.bashrc'), '~no-such-user-brine/.bashrc');
    assert.equal(expandUser('/etc/~root'), '/etc/~root');
    assert.equal(expandUser('relative/~'), 'relative/~');
  });

  it('file.managed and file.directory write under $HOME for `~/...`; an unknown `~user` is not an absolute path, as in Salt', async (t) => {
    const home = tempDir('brine-home-');
    const saved = process.env.HOME;
    process.env.HOME = home;
    t.after(() => {
      process.env.HOME = saved;
      fs.rmSync(home, { recursive: true, force: true });
    });
    const d = await runState(fileDirectory, { name: '~/conf.d' });
    assert.equal(d.result, true, d.comment);
    assert.ok(fs.statSync(path.join(home, 'conf.d')).isDirectory());
    const m = await runState(fileManaged, { name: '~/conf.d/app.conf', contents: 'x = 1' });
    assert.equal(m.result, true, m.comment);
    assert.equal(fs.readFileSync(path.join(home, 'conf.d', 'app.conf'), 'utf8'), 'x = 1\n');
    const bad = await runState(fileManaged, { name: '~no-such-user-brine/.bashrc', contents: 'x' });
    assert.equal(bad.result, false);
    assert.match(bad.comment, /^Specified file ~no-such-user-brine\/\.bashrc is not an absolute path/);
  });
});
