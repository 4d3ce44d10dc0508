// alternatives.install / set / auto / remove with Debian's real update-alternatives, pointed at
// temp --altdir/--admindir by a two-line wrapper first on PATH (the program is the real one; only
// its directories move), so the host's /etc/alternatives is never touched.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { privilegedSkip } from '../../helpers/privileged.js';
import { runState } from './state-ctx.js';

const real = ['/usr/bin/update-alternatives', '/usr/sbin/update-alternatives'].find((p) => fs.existsSync(p));
const skip = privilegedSkip('alternatives states', real === undefined ? 'update-alternatives is not installed (Debian: dpkg)' : false);

describe('alternatives states with a real update-alternatives in temp dirs', { skip }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-alt-'));
  const savedPath = process.env.PATH;
  const link = path.join(dir, 'bin', 'brine-editor');
  const [one, two] = [path.join(dir, 'one'), path.join(dir, 'two')];
  before(() => {
    for (const d of ['wrap', 'alt', 'admin', 'bin']) fs.mkdirSync(path.join(dir, d));
    fs.writeFileSync(path.join(dir, 'wrap', 'update-alternatives'), `#!/bin/sh\nexec ${real} --altdir ${dir}/alt --admindir ${dir}/admin "$@"\n`, { mode: 0o755 });
    for (const f of [one, two]) fs.writeFileSync(f, '#!/bin/sh\n', { mode: 0o755 });
    process.env.PATH = `${path.join(dir, 'wrap')}:${savedPath ?? ''}`;
  });
  after(() => {
    process.env.PATH = savedPath;
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const name = 'brine-editor';

  it("install: test=True, then registered and current (Salt's {name, link, path, priority}); a second path registered but not default", async () => {
    // salt/states/alternatives.py install()
    assert.deepEqual(await runState('alternatives.install', { name, link, path: one, priority: 50 }, { test: true }), {
      name,
      result: null,
      changes: {},
      comment: `Alternative will be set for ${name} to ${one} with priority 50`,
    });
    assert.equal(fs.existsSync(link), false);
    assert.deepEqual(await runState('alternatives.install', { name, link, path: one, priority: 50 }), {
      name,
      result: true,
      changes: { name, link, path: one, priority: 50 },
      comment: `Alternative for ${name} set to path ${one} with priority 50`,
    });
    assert.equal(fs.readlinkSync(link), path.join(dir, 'alt', name));
    assert.equal(fs.readlinkSync(path.join(dir, 'alt', name)), one);
    assert.deepEqual(await runState('alternatives.install', { name, link, path: one, priority: 50 }), {
      name,
      result: true,
      changes: {},
      comment: `Alternative ${one} for ${name} is already registered`,
    });
    assert.equal((await runState('alternatives.install', { name, link, path: two, priority: 10 })).comment, `Alternative ${two} for ${name} registered with priority 10 and not set to default`);
  });

  it('set switches to manual mode; auto goes back to the highest priority; remove falls back', async () => {
    assert.deepEqual(await runState('alternatives.set', { name, path: two }, { test: true }), { name, result: null, changes: {}, comment: `Alternative for ${name} will be set to path ${two}` });
    assert.deepEqual(await runState('alternatives.set', { name, path: two }), { name, result: true, changes: { path: two }, comment: `Alternative for ${name} set to path ${two}` });
    assert.equal(fs.readlinkSync(path.join(dir, 'alt', name)), two);
    assert.deepEqual(await runState('alternatives.set', { name, path: two }), { name, result: true, changes: {}, comment: `Alternative for ${name} already set to ${two}` });
    assert.deepEqual(await runState('alternatives.set', { name, path: '/nonexistent' }), { name, result: false, changes: {}, comment: `Alternative /nonexistent for ${name} doesn't exist` });
    assert.deepEqual(await runState('alternatives.auto', { name }, { test: true }), { name, result: null, changes: {}, comment: `${name} will be put in auto mode` });
    const auto = await runState('alternatives.auto', { name });
    assert.equal(auto.result, true);
    assert.ok('result' in auto.changes, "Salt's changes: {result: <update-alternatives output>}");
    assert.equal(fs.readlinkSync(path.join(dir, 'alt', name)), one, 'auto picks the highest priority');
    assert.deepEqual(await runState('alternatives.auto', { name }), { name, result: true, changes: {}, comment: `${name} already in auto mode` });
    assert.deepEqual(await runState('alternatives.remove', { name, path: one }), {
      name,
      result: true,
      changes: { path: two },
      comment: `Alternative for ${name} removed. Falling back to path ${two}`,
    });
    assert.deepEqual(await runState('alternatives.remove', { name, path: one }), { name, result: true, changes: {}, comment: `Alternative for ${name} is set to it's default path ${two}` });
    assert.deepEqual(await runState('alternatives.remove', { name, path: two }), { name, result: true, changes: {}, comment: `Alternative for ${name} removed` });
    assert.deepEqual(await runState('alternatives.remove', { name, path: two }), { name, result: false, changes: {}, comment: `Alternative for ${name} doesn't exist` });
  });
});
