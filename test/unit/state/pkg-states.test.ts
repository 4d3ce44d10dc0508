import { after, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { installFakeApt } from './fake-apt.js';
import { runState } from './state-ctx.js';

// apt cannot install and remove real packages on every run; a recording stand-in does (fake-apt.ts).
const apt = installFakeApt();
after(() => apt.dispose());

beforeEach(() => {
  apt.setInstalled({ curl: '7.88.1-10' });
  apt.setAvailable({ curl: ['7.88.1-10', '7.88.1-11'], nginx: ['1.22.1-9'], jq: ['1.6-2.1', '1.7-1'] });
});

const installs = () => apt.calls().filter((c) => / install /.test(c));

describe('pkg.installed', () => {
  it('test=True: {name: {new: <newest available>, old: ""}} for a package asked for without a version (Salt 3007)', async () => {
    const dry = await runState('pkg.installed', { name: 'tools', pkgs: ['nginx', 'jq'] }, { test: true });
    assert.deepEqual(dry, {
      name: 'tools',
      result: null,
      changes: { nginx: { new: '1.22.1-9', old: '' }, jq: { new: '1.7-1', old: '' } },
      comment: 'The following packages would be installed/updated: nginx, jq',
    });
    assert.equal(installs().length, 0);
  });

  it("installs what is missing with Salt's {name: {old, new}}; a second run changes nothing", async () => {
    const r = await runState('pkg.installed', { name: 'nginx', install_recommends: false });
    assert.match(installs().at(-1)!, / install --no-install-recommends -- nginx$/);
    assert.equal(r.result, true, r.comment);
    assert.deepEqual(r.changes, { nginx: { old: '', new: '1.22.1-9' } });
    assert.equal(r.comment, 'The following packages were installed/updated: nginx');
    const again = await runState('pkg.installed', { name: 'nginx' });
    assert.deepEqual(again, { name: 'nginx', result: true, changes: {}, comment: 'Package nginx is already installed' });
    assert.equal(installs().length, 1, 'the second run did not call apt-get install');
  });

  it('pkgs with a {name: version} entry installs only what differs, pinned to the version', async () => {
    const before = apt.calls().length;
    const r = await runState('pkg.installed', { name: 'tools', pkgs: ['curl', { jq: '1.6-2.1' }] });
    assert.equal(r.result, true, r.comment);
    assert.deepEqual(r.changes, { jq: { old: '', new: '1.6-2.1' } });
    assert.equal(r.comment, 'The following packages were installed/updated: jq\nThe following packages were already installed: curl');
    const call = apt
      .calls()
      .slice(before)
      .find((c) => / install /.test(c));
    assert.match(call!, /install -- jq=1\.6-2\.1$/, 'curl is not handed to apt-get again');
    const again = await runState('pkg.installed', { name: 'tools', pkgs: ['curl', { jq: '1.6-2.1' }] });
    assert.equal(again.comment, 'All specified packages are already installed and are at the desired version');
    assert.equal((await runState('pkg.installed', { name: 'tools', pkgs: ['curl', 'jq'] })).comment, 'All specified packages are already installed');
  });

  it('a different version is an upgrade; test=True reports it and installs nothing', async () => {
    const dry = await runState('pkg.installed', { name: 'curl', version: '7.88.1-11' }, { test: true });
    // Salt 3007 (salt/states/pkg.py installed, _get_installable_versions): names in the comment,
    // {name: {new, old: ''}} as changes, 'installed' for a pinned version on apt
    assert.deepEqual(dry, { name: 'curl', result: null, changes: { curl: { new: 'installed', old: '' } }, comment: 'The following packages would be installed/updated: curl' });
    assert.equal(apt.installed().curl, '7.88.1-10');
    const r = await runState('pkg.installed', { name: 'curl', version: '7.88.1-11' });
    assert.deepEqual(r.changes, { curl: { old: '7.88.1-10', new: '7.88.1-11' } });
    assert.equal((await runState('pkg.installed', { name: 'curl', version: '7.88.1-11' })).comment, "Version 7.88.1-11 of package 'curl' is already installed");
    // a wildcard is not the installed version itself: Salt's general answer
    assert.equal((await runState('pkg.installed', { name: 'curl', version: '7.88.1-1*' })).comment, 'All specified packages are already installed and are at the desired version');
  });

  it("an unknown package fails with apt-get's message; a bad pkgs entry fails before anything runs", async () => {
    const r = await runState('pkg.installed', { name: 'no-such-pkg' });
    assert.equal(r.result, false);
    assert.match(r.comment, /Unable to locate package no-such-pkg/);
    const before = apt.calls().length;
    const bad = await runState('pkg.installed', { name: 'x', pkgs: [['nested']] });
    assert.equal(bad.result, false);
    assert.match(bad.comment, /Invalidly formatted pkgs parameter: entry \["nested"\] is not a package name/);
    const opt = await runState('pkg.installed', { name: '--force-yes' });
    assert.equal(opt.result, false);
    assert.match(opt.comment, /package name '--force-yes' is not valid/);
    assert.equal(apt.calls().length, before);
  });
});

describe('pkg.installed pkgs shapes as Salt 3007 repacks them (issue 22, php-formula)', () => {
  it('a null entry (php-formula on Debian: a module with no package) fails before apt runs, as Salt 3007 fails it', async () => {
    const before = apt.calls().length;
    const r = await runState('pkg.installed', { name: 'php_install_ctype', pkgs: [null] }, { test: true });
    assert.equal(r.result, false);
    assert.match(r.comment, /Invalidly formatted pkgs parameter: entry null .*Salt 3007 fails this state too/);
    assert.equal(apt.calls().length, before);
  });

  it("an empty list is Salt's 'No packages to install provided' (True); a name twice is Salt's duplicate error", async () => {
    assert.deepEqual(await runState('pkg.installed', { name: 'none', pkgs: [] }, { test: true }), {
      name: 'none',
      result: true,
      changes: {},
      comment: 'No packages to install provided',
    });
    assert.equal((await runState('pkg.latest', { name: 'none', pkgs: [] })).comment, 'No packages to install provided');
    // pkg.removed: an empty list is no list, so the name is the package (SnapServ's software.packages)
    assert.deepEqual(await runState('pkg.removed', { name: 'brine-no-such-package', pkgs: [] }, { test: true }), {
      name: 'brine-no-such-package',
      result: true,
      changes: {},
      comment: 'None of the targeted packages are installed',
    });
    const dup = await runState('pkg.installed', { name: 'twice', pkgs: ['curl', { curl: '7.88.1-11' }] }, { test: true });
    assert.equal(dup.result, false);
    assert.match(dup.comment, /contains duplicated packages names/);
  });
});

describe('pkg.latest', () => {
  it('upgrades to the newest candidate, then reports up-to-date', async () => {
    const r = await runState('pkg.latest', { name: 'curl', refresh: false });
    assert.equal(r.result, true, r.comment);
    assert.deepEqual(r.changes, { curl: { old: '7.88.1-10', new: '7.88.1-11' } });
    assert.equal(r.comment, 'The following packages were successfully installed/upgraded: curl');
    const again = await runState('pkg.latest', { name: 'curl', refresh: false });
    assert.deepEqual(again, { name: 'curl', result: true, changes: {}, comment: 'Package curl is already up-to-date' });
  });

  it('refresh runs apt-get update first; an unknown package fails', async () => {
    const before = apt.calls().length;
    await runState('pkg.latest', { name: 'jq' });
    assert.match(apt.calls()[before]!, /update/);
    assert.equal(apt.installed().jq, '1.7-1');
    const r = await runState('pkg.latest', { name: 'nothere', refresh: false });
    assert.equal(r.result, false);
    assert.match(r.comment, /No information found for 'nothere'/);
  });
});

describe('pkg.removed / pkg.purged', () => {
  it('removes installed packages only, once; purged uses apt-get purge', async () => {
    const dry = await runState('pkg.removed', { name: 'curl' }, { test: true });
    assert.equal(dry.result, null);
    // salt/states/pkg.py _uninstall: a final period, {name: {new: removed, old: ''}} as the test changes
    assert.deepEqual(dry, { name: 'curl', result: null, changes: { curl: { new: 'removed', old: '' } }, comment: 'The following packages will be removed: curl.' });
    assert.equal(apt.installed().curl, '7.88.1-10');
    const r = await runState('pkg.removed', { name: 'curl' });
    assert.deepEqual(r, { name: 'curl', result: true, changes: { curl: { old: '7.88.1-10', new: '' } }, comment: 'All targeted packages were removed.' });
    assert.equal((await runState('pkg.removed', { name: 'curl' })).comment, 'None of the targeted packages are installed');
    assert.deepEqual(apt.residual(), ['curl'], 'remove left the configuration files');
  });

  it("purged also purges packages removed earlier whose configuration files remain, with Salt's apt {installed, removed} changes", async () => {
    apt.setInstalled({ nginx: '1.22.1-9', jq: '1.7-1' }, { curl: '7.88.1-10' });
    const dry = await runState('pkg.purged', { name: 'x', pkgs: ['nginx', 'curl', 'absent-one'] }, { test: true });
    assert.equal(dry.comment, 'The following packages will be purged: curl, nginx.');
    const p = await runState('pkg.purged', { name: 'x', pkgs: ['nginx', 'curl', 'absent-one'] });
    assert.equal(p.result, true, p.comment);
    assert.deepEqual(p.changes, { installed: { nginx: { old: '1.22.1-9', new: '' } }, removed: { curl: { old: '7.88.1-10', new: '' } } });
    assert.equal(p.comment, 'The following packages were not installed: absent-one The following packages were purged: curl, nginx.');
    assert.match(apt.calls().at(-1)!, / purge -- nginx curl$/);
    assert.deepEqual(apt.installed(), { jq: '1.7-1' });
    assert.deepEqual(apt.residual(), []);
    assert.equal((await runState('pkg.purged', { name: 'curl' })).comment, 'None of the targeted packages are installed or partially installed');
  });

  it('version: only removes when that version is installed', async () => {
    const r = await runState('pkg.removed', { name: 'curl', version: '1.0' });
    assert.equal(r.comment, 'None of the targeted packages are installed');
    assert.equal(apt.installed().curl, '7.88.1-10');
  });
});
