// mount.mounted / mount.unmounted with real tmpfs mounts under a temp dir (as root) and a temp
// fstab (the states' config argument); the fstab decisions and option comparison also pure.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fstabTable, rmFstab, setFstab } from '../../../src/modules/fstab.js';
import { parseMountinfo } from '../../../src/modules/mount-module.js';
import { optionsToRemount } from '../../../src/state/modules/mount-options.js';
import { privilegedSkip } from '../../helpers/privileged.js';
import { runState } from './state-ctx.js';

const skip = privilegedSkip('mount states', process.getuid?.() !== 0 ? 'needs root to mount tmpfs' : spawnSync('mount', ['--version']).status !== 0 ? 'mount (util-linux) is not installed' : false);

describe('fstab entries and mount options (pure)', () => {
  const base = '# static\nUUID=abc\t/\text4\terrors=remount-ro\t0 1\n';
  it("set_fstab: 'new' appends Salt's tab-separated line, 'present' keeps the file, 'change' rewrites the matched line", () => {
    const entry = { name: '/mnt/x', device: 'tmpfs', fstype: 'tmpfs', opts: 'size=1m,noexec', dump: '0', pass_num: '0' };
    const added = setFstab(base, entry, 'auto');
    assert.equal(added.status, 'new');
    assert.equal(added.text, `${base}tmpfs\t\t/mnt/x\ttmpfs\tsize=1m,noexec\t0 0\n`);
    assert.equal(setFstab(added.text, { ...entry, opts: 'noexec,size=1m' }, 'auto').status, 'present', 'options compare as sets');
    const changed = setFstab(added.text, { ...entry, opts: 'size=2m' }, 'auto');
    assert.equal(changed.status, 'change');
    assert.equal(changed.text, `${base}tmpfs\t\t/mnt/x\ttmpfs\tsize=2m\t0 0\n`);
    assert.deepEqual(fstabTable(changed.text)['/mnt/x'], { device: 'tmpfs', fstype: 'tmpfs', opts: ['size=2m'], dump: '0', pass: '0' });
    assert.equal(rmFstab(changed.text, '/mnt/x').text, base);
    assert.throws(() => setFstab(base, entry, 'nope'), /Unrecognized keys in match_on/);
  });

  it('remount triggers: sizes compare in kilobytes, invisible options and hidden_opts never trigger', () => {
    const active = parseMountinfo('98 30 0:51 / /mnt/x rw,noexec,relatime shared:50 - tmpfs tmpfs rw,size=1024k,inode64\n')['/mnt/x']!;
    assert.equal(active.fstype, 'tmpfs');
    assert.deepEqual(optionsToRemount(['size=1m', 'noexec', 'defaults', 'nofail'], 'tmpfs', active), []);
    assert.deepEqual(optionsToRemount(['size=2m', 'nodev'], 'tmpfs', active), ['size=2048k', 'nodev']);
    assert.deepEqual(optionsToRemount(['nodev'], 'tmpfs', active, { hidden: ['nodev'] }), []);
  });
});

describe('mount.mounted / mount.unmounted with real tmpfs mounts', { skip }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-mount-'));
  const mnt = path.join(dir, 'scratch');
  const fstab = path.join(dir, 'fstab');
  fs.writeFileSync(fstab, '# test fstab\n');
  const mountedHere = () =>
    fs
      .readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .find((l) => l.split(' ')[4] === mnt);
  after(() => {
    while (mountedHere()) spawnSync('umount', ['-l', mnt]);
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const args = (opts: string) => ({ name: mnt, device: 'tmpfs', fstype: 'tmpfs', opts, mkmnt: true, config: fstab });

  it("mounts with mkmnt and adds the fstab entry; test=True first; a second run is 'already mounted'", async () => {
    // salt/states/mount.py mounted(): test mode, not mounted, missing dir, mkmnt -> "X would be created and mounted"
    assert.deepEqual(await runState('mount.mounted', args('size=1m,noexec'), { test: true }), { name: mnt, result: null, changes: {}, comment: `${mnt} would be created and mounted` });
    assert.equal(fs.existsSync(mnt), false);
    const r = await runState('mount.mounted', args('size=1m,noexec'));
    assert.deepEqual(r, { name: mnt, result: true, changes: { mount: true, persist: 'new' }, comment: 'Target was successfully mounted. Added new entry to the fstab.' });
    assert.match(mountedHere()!, / - tmpfs tmpfs rw,size=1024k/);
    assert.equal(fs.readFileSync(fstab, 'utf8'), `# test fstab\ntmpfs\t\t${mnt}\ttmpfs\tsize=1m,noexec\t0 0\n`);
    assert.deepEqual(await runState('mount.mounted', args('size=1m,noexec')), { name: mnt, result: true, changes: {}, comment: 'Target was already mounted. Entry already exists in the fstab.' });
  });

  it('changed options: test=True says a remount would be forced; the run remounts and updates the entry', async () => {
    assert.deepEqual(await runState('mount.mounted', args('size=2m,noexec'), { test: true }), {
      name: mnt,
      result: null,
      changes: {},
      comment: 'Remount would be forced because options (size=2048k) changed',
    });
    const r = await runState('mount.mounted', args('size=2m,noexec'));
    assert.deepEqual(r, {
      name: mnt,
      result: true,
      changes: { umount: 'Forced remount because options (size=2048k) changed', persist: 'update' },
      comment: 'Target was already mounted. Updated the entry in the fstab.',
    });
    assert.match(mountedHere()!, /size=2048k/);
    assert.equal(fs.readFileSync(fstab, 'utf8'), `# test fstab\ntmpfs\t\t${mnt}\ttmpfs\tsize=2m,noexec\t0 0\n`, 'remount is kept out of the entry');
  });

  it('unmounted with persist: test=True, then unmount and purge the entry; then already unmounted', async () => {
    const u = { name: mnt, config: fstab, persist: true };
    assert.deepEqual(await runState('mount.unmounted', u, { test: true }), { name: mnt, result: null, changes: {}, comment: `Mount point ${mnt} is mounted but should not be` });
    assert.deepEqual(await runState('mount.unmounted', u), {
      name: mnt,
      result: true,
      changes: { umount: true, persist: 'purged' },
      comment: 'Target was successfully unmounted. Removed target from fstab',
    });
    assert.equal(mountedHere(), undefined);
    assert.equal(fs.readFileSync(fstab, 'utf8'), '# test fstab\n');
    assert.deepEqual(await runState('mount.unmounted', u), { name: mnt, result: true, changes: {}, comment: 'Target was already unmounted. fstab entry not found' });
  });

  it('mount: False only writes the entry; a missing mount point without mkmnt fails; a missing fstab fails', async () => {
    const r = await runState('mount.mounted', { ...args('size=1m'), mount: false });
    assert.deepEqual(r, { name: mnt, result: true, changes: { persist: 'new' }, comment: `${mnt} not mounted. Added new entry to the fstab.` });
    assert.equal(mountedHere(), undefined);
    const missing = path.join(dir, 'nowhere');
    assert.deepEqual(await runState('mount.mounted', { ...args('size=1m'), name: missing, mkmnt: false }), { name: missing, result: false, changes: {}, comment: 'Mount directory is not present' });
    assert.deepEqual(await runState('mount.mounted', { ...args('size=1m'), name: missing, mkmnt: false }, { test: true }), {
      name: missing,
      result: null,
      changes: {},
      comment: `${missing} does not exist and would not be created`,
    });
    const noTab = await runState('mount.mounted', { ...args('size=1m'), mount: false, config: path.join(dir, 'no-fstab') });
    assert.deepEqual(noTab, { name: mnt, result: false, changes: {}, comment: `${mnt} not mounted. However, the fstab was not found.` });
  });
});

describe('mount.fstab_present / mount.fstab_absent on a temp fstab (salt/states/mount.py)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-fstab-'));
  const fstab = path.join(dir, 'fstab');
  fs.writeFileSync(fstab, '# test fstab\n');
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const present = (over: Record<string, unknown> = {}) => ({ name: 'backup:/export', fs_file: '/mnt/backup/', fs_vfstype: 'nfs', fs_mntops: 'noauto', config: fstab, mount: false, ...over });

  it("test=True says what it would write (and mount); a run adds the entry, then 'was already', then an update", async () => {
    assert.deepEqual(await runState('mount.fstab_present', present({ mount: true }), { test: true }), {
      name: 'backup:/export',
      result: null,
      changes: {},
      comment: `/mnt/backup entry will be written in ${fstab}.\nWill mount backup:/export on /mnt/backup`,
    });
    assert.equal(fs.readFileSync(fstab, 'utf8'), '# test fstab\n', 'test=True writes nothing');
    assert.deepEqual(await runState('mount.fstab_present', present()), { name: 'backup:/export', result: true, changes: { persist: 'new' }, comment: `/mnt/backup entry added in ${fstab}.` });
    assert.equal(fs.readFileSync(fstab, 'utf8'), '# test fstab\nbackup:/export\t\t/mnt/backup\tnfs\tnoauto\t0 0\n');
    assert.deepEqual(await runState('mount.fstab_present', present()), { name: 'backup:/export', result: true, changes: {}, comment: `/mnt/backup entry was already in ${fstab}.` });
    assert.deepEqual(await runState('mount.fstab_present', present({ fs_mntops: ['noauto', 'ro'] })), {
      name: 'backup:/export',
      result: true,
      changes: { persist: 'change' },
      comment: `/mnt/backup entry updated in ${fstab}.`,
    });
    assert.match(fs.readFileSync(fstab, 'utf8'), /\tnoauto,ro\t0 0\n$/);
  });

  it('fstab_absent: test=True, removal, then already missing; a missing fstab fails with its reason', async () => {
    const absent = { name: 'backup:/export', fs_file: '/mnt/backup', config: fstab };
    assert.deepEqual(await runState('mount.fstab_absent', absent, { test: true }), { name: 'backup:/export', result: null, changes: {}, comment: `/mnt/backup entry will be removed from ${fstab}.` });
    assert.deepEqual(await runState('mount.fstab_absent', absent), { name: 'backup:/export', result: true, changes: { persist: 'removed' }, comment: `/mnt/backup entry removed from ${fstab}.` });
    assert.equal(fs.readFileSync(fstab, 'utf8'), '# test fstab\n');
    assert.deepEqual(await runState('mount.fstab_absent', absent), { name: 'backup:/export', result: true, changes: {}, comment: `/mnt/backup entry is already missing in ${fstab}.` });
    const r = await runState('mount.fstab_present', present({ config: path.join(dir, 'none') }));
    assert.equal(r.result, false);
    assert.match(r.comment, /^\/mnt\/backup entry cannot be changed in .*none: .*Bad config file/);
  });
});
