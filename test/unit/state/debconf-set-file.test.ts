// debconf.set_file (issue 22, oracle: tdf/salt-states-base `console`, which Salt runs) with the
// real debconf database: a salt:// selections file (rendered as a Jinja template in one case)
// loaded by debconf-set-selections, read back with debconf-communicate, purged after.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { privilegedSkip } from '../../helpers/privileged.js';
import { DirFileClient } from './file-fixture.js';
import { byId, harness } from './harness.js';

const PKG = 'brine-test-debconf-set-file';
const skipReason =
  process.getuid?.() !== 0 ? 'needs root to write the debconf database' : spawnSync('sh', ['-c', 'command -v debconf-set-selections']).status !== 0 ? 'debconf is not installed' : false;
const skip = privilegedSkip('debconf.set_file', skipReason);

const answer = (q: string) => execFileSync('debconf-communicate', [PKG], { input: `GET ${q}\n`, encoding: 'utf8' }).trim();

describe('debconf.set_file', { skip }, () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-debconf-test-'));
  after(() => {
    spawnSync('debconf-communicate', [PKG], { input: 'PURGE\n' });
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('test=True answers as Salt; a run loads the file, a template rendered first; a missing source fails', async () => {
    const root = path.join(tmp, 'root');
    fs.mkdirSync(root);
    fs.writeFileSync(path.join(root, 'plain.sel'), `${PKG} ${PKG}/colour string blue\n`);
    fs.writeFileSync(path.join(root, 'tpl.sel'), `${PKG} ${PKG}/size string {{ size }}\n`);
    const files = new DirFileClient(root, path.join(tmp, 'cache'));
    const sls = `
plain:
  debconf.set_file:
    - source: salt://plain.sel
templated:
  debconf.set_file:
    - source: salt://tpl.sel
    - template: jinja
    - context:
        size: large
missing:
  debconf.set_file:
    - source: salt://nowhere.sel
`;
    const h = harness({ base: { 's.sls': sls } });
    const t = byId((await h.call('state.sls', ['s'], { test: true }, { files })).return);
    assert.deepEqual([t.plain!.result, t.plain!.comment, t.plain!.changes], [null, 'Debconf selections would have been set.', {}]);
    const r = byId((await h.call('state.sls', ['s'], {}, { files })).return);
    assert.deepEqual([r.plain!.result, r.plain!.comment, r.plain!.changes], [true, 'Debconf selections were set.', {}]);
    assert.equal(r.templated!.result, true, r.templated!.comment);
    assert.equal(answer(`${PKG}/colour`), '0 blue');
    assert.equal(answer(`${PKG}/size`), '0 large');
    assert.equal(r.missing!.result, false);
    assert.match(r.missing!.comment, /^Unable to set debconf selections from file\. salt:\/\/nowhere\.sel: /);
  });
});
