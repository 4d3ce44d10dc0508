// apache_module.enabled / disabled with Debian's real a2enmod / a2dismod on a copy of
// /etc/apache2 in a temp dir (APACHE_CONFDIR, which a2enmod and brine both read), so the
// host's Apache configuration is never touched.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { privilegedSkip } from '../../helpers/privileged.js';
import { runState } from './state-ctx.js';
import { onPath } from '../../helpers/paths.js';

const skip = privilegedSkip(
  'apache_module states',
  !onPath('a2enmod') || !fs.existsSync('/etc/apache2/mods-available') ? 'a2enmod and /etc/apache2 are needed (Debian: apt-get install apache2; .ci/run installs it)' : false,
);

describe('apache_module with a real a2enmod on a temp copy of /etc/apache2', { skip }, () => {
  let dir = '';
  const saved = { conf: process.env.APACHE_CONFDIR, state: process.env.APACHE_STATE_DIRECTORY };
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-apache-'));
    fs.cpSync('/etc/apache2', path.join(dir, 'etc'), { recursive: true, verbatimSymlinks: true });
    fs.mkdirSync(path.join(dir, 'state'));
    process.env.APACHE_CONFDIR = path.join(dir, 'etc');
    process.env.APACHE_STATE_DIRECTORY = path.join(dir, 'state');
    // A known starting point whatever the host's copy has enabled.
    fs.rmSync(path.join(dir, 'etc', 'mods-enabled', 'speling.load'), { force: true });
  });
  after(() => {
    for (const [k, v] of [
      ['APACHE_CONFDIR', saved.conf],
      ['APACHE_STATE_DIRECTORY', saved.state],
    ] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const link = () => path.join(dir, 'etc', 'mods-enabled', 'speling.load');

  it("enabled: test=True predicts {old: None, new: name}; the run makes the symlink; a second run is 'already enabled.'", async () => {
    // salt/states/apache_module.py enabled(): test -> result None, "Apache module X is set to be enabled."
    const dry = await runState('apache_module.enabled', { name: 'speling' }, { test: true });
    assert.deepEqual(dry, { name: 'speling', result: null, changes: { old: null, new: 'speling' }, comment: 'Apache module speling is set to be enabled.' });
    assert.equal(fs.existsSync(link()), false, 'test=True changed nothing');
    // the real run keeps the comment '' and reports {old: None, new: name}
    const r = await runState('apache_module.enabled', { name: 'speling' });
    assert.deepEqual(r, { name: 'speling', result: true, changes: { old: null, new: 'speling' }, comment: '' });
    assert.equal(fs.lstatSync(link()).isSymbolicLink(), true);
    assert.equal(fs.readlinkSync(link()), '../mods-available/speling.load');
    assert.deepEqual(await runState('apache_module.enabled', { name: 'speling' }), { name: 'speling', result: true, changes: {}, comment: 'speling already enabled.' });
  });

  it("disabled: the reverse shapes; an unknown module fails with Salt's 'Mod X Not found' status", async () => {
    const dry = await runState('apache_module.disabled', { name: 'speling' }, { test: true });
    assert.deepEqual(dry, { name: 'speling', result: null, changes: { old: 'speling', new: null }, comment: 'Apache module speling is set to be disabled.' });
    assert.deepEqual(await runState('apache_module.disabled', { name: 'speling' }), { name: 'speling', result: true, changes: { old: 'speling', new: null }, comment: '' });
    assert.equal(fs.existsSync(link()), false);
    assert.deepEqual(await runState('apache_module.disabled', { name: 'speling' }), { name: 'speling', result: true, changes: {}, comment: 'speling already disabled.' });
    const bad = await runState('apache_module.enabled', { name: 'no_such_mod' });
    assert.deepEqual(bad, { name: 'no_such_mod', result: false, changes: {}, comment: 'Failed to enable no_such_mod Apache module (Mod no_such_mod Not found)' });
  });

  it('without a2enmod on PATH the state fails saying which package provides it', async () => {
    const savedPath = process.env.PATH;
    process.env.PATH = dir;
    try {
      const r = await runState('apache_module.enabled', { name: 'speling' });
      assert.equal(r.result, false);
      assert.match(r.comment, /a2enmod is not installed on this host; it comes with Apache's Debian packaging \(apt-get install apache2\)/);
    } finally {
      process.env.PATH = savedPath;
    }
  });
});
