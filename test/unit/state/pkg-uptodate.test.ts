// pkg.uptodate, pkg.list_upgrades and pkg.upgrade against the recording stand-in apt of
// fake-apt.ts (apt cannot upgrade real packages on every test run; see that file).

import { after, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { installFakeApt } from './fake-apt.js';
import { runState, stateCtx } from './state-ctx.js';

const apt = installFakeApt();
after(() => apt.dispose());

beforeEach(() => {
  apt.setInstalled({ curl: '7.88.1-10', jq: '1.6-2.1', nginx: '1.22.1-9' });
  apt.setAvailable({ curl: ['7.88.1-10', '7.88.1-11'], jq: ['1.6-2.1', '1.7-1'], nginx: ['1.22.1-9'], vim: ['9.0-1'] });
});

describe('pkg.list_upgrades / pkg.upgrade', () => {
  it("list_upgrades reads apt-get --just-print's Conf lines; upgrade returns {name: {old, new}}", async () => {
    const ctx = stateCtx('pkg.uptodate', 'x');
    const listed = await ctx.call('pkg.list_upgrades', [], { refresh: false });
    assert.deepEqual(listed.return, { curl: '7.88.1-11', jq: '1.7-1' });
    assert.ok(apt.calls().includes('--just-print dist-upgrade'), 'Salt lists upgrades as dist-upgrade by default');
    const up = await ctx.call('pkg.upgrade', [], { refresh: false });
    assert.deepEqual(up.return, { curl: { old: '7.88.1-10', new: '7.88.1-11' }, jq: { old: '1.6-2.1', new: '1.7-1' } });
    assert.match(apt.calls().at(-1)!, /-o DPkg::Options::=--force-confold -o DPkg::Options::=--force-confdef upgrade$/, 'pkg.upgrade is apt-get upgrade unless dist_upgrade');
  });
});

describe('pkg.uptodate', () => {
  it("test=True: Salt's 'System update will be performed' with {name: {new, old}}; nothing installed", async () => {
    // salt/states/pkg.py uptodate(): expected = {pkg: {"new": list_upgrades[pkg], "old": pkg.version(pkg)}}
    const dry = await runState('pkg.uptodate', { name: 'sys' }, { test: true });
    assert.deepEqual(dry, {
      name: 'sys',
      result: null,
      changes: { curl: { new: '7.88.1-11', old: '7.88.1-10' }, jq: { new: '1.7-1', old: '1.6-2.1' } },
      comment: 'System update will be performed',
    });
    assert.equal(apt.installed().curl, '7.88.1-10');
  });

  it("upgrades everything: 'Upgrade ran successfully' with the changes; then 'System is already up-to-date'", async () => {
    const r = await runState('pkg.uptodate', { name: 'sys', refresh: true });
    assert.deepEqual(r, {
      name: 'sys',
      result: true,
      changes: { curl: { old: '7.88.1-10', new: '7.88.1-11' }, jq: { old: '1.6-2.1', new: '1.7-1' } },
      comment: 'Upgrade ran successfully',
    });
    assert.ok(apt.calls().includes('-q update'), 'refresh: True updates the index');
    assert.deepEqual(apt.installed(), { curl: '7.88.1-11', jq: '1.7-1', nginx: '1.22.1-9' });
    assert.deepEqual(await runState('pkg.uptodate', { name: 'sys' }), { name: 'sys', result: true, changes: {}, comment: 'System is already up-to-date' });
  });

  it('pkgs limits the upgrade to the named packages (apt-get install --only-upgrade); others stay', async () => {
    const dry = await runState('pkg.uptodate', { name: 'sys', pkgs: ['jq', 'nginx'] }, { test: true });
    assert.deepEqual(dry.changes, { jq: { new: '1.7-1', old: '1.6-2.1' } });
    const r = await runState('pkg.uptodate', { name: 'sys', pkgs: ['jq', 'nginx'] });
    assert.deepEqual(r, { name: 'sys', result: true, changes: { jq: { old: '1.6-2.1', new: '1.7-1' } }, comment: 'Upgrade ran successfully' });
    assert.equal(apt.installed().curl, '7.88.1-10', 'curl was not in pkgs');
    assert.match(apt.calls().at(-1)!, /install --only-upgrade -- jq nginx$/, 'pkgs go to apt as given (Salt passes pkgs=pkgs); --only-upgrade never installs a missing one');
    assert.equal(apt.installed().nginx, '1.22.1-9');
  });

  it("refresh that is not a bool fails with Salt's comment", async () => {
    assert.deepEqual(await runState('pkg.uptodate', { name: 'sys', refresh: 'yes' }), { name: 'sys', result: false, changes: {}, comment: 'refresh must be either True or False' });
  });
});
