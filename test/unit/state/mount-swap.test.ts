// mount.swap (issue 22: thusoy/salt-states `swap`, which Salt runs) with a real swap file: made
// by mkswap in a temp dir, activated by swapon and listed in a temp fstab; swapoff'd and removed
// after. Comments and changes from salt/states/mount.py swap().

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { privilegedSkip } from '../../helpers/privileged.js';
import { runState } from './state-ctx.js';
import { activeSwaps, parseProcSwaps } from '../../../src/modules/mount-swap.js';

const skipReason = process.getuid?.() !== 0 ? 'needs root to swapon' : spawnSync('sh', ['-c', 'command -v mkswap && command -v swapon']).status !== 0 ? 'util-linux swap programs missing' : false;
const skip = privilegedSkip('mount.swap with a real swap file', skipReason);

describe('mount.swap with a real swap file', { skip }, () => {
  let dir = '';
  let file = '';
  let fstab = '';
  const swapped: string[] = [];

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-swap-'));
    file = path.join(dir, 'swapfile');
    fs.writeFileSync(file, Buffer.alloc(8 * 1024 * 1024), { mode: 0o600 });
    execFileSync('mkswap', [file], { stdio: 'ignore' });
    fstab = path.join(dir, 'fstab');
    fs.writeFileSync(fstab, 'proc /proc proc defaults 0 0\n');
  });
  after(() => {
    for (const f of swapped) if (activeSwaps()[f] !== undefined) spawnSync('swapoff', [f]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('test=True says it would activate it and changes nothing', async () => {
    const r = await runState('mount.swap', { name: file, config: fstab }, { test: true });
    assert.deepEqual(r, { name: file, result: null, changes: {}, comment: `Swap ${file} is set to be activated` });
    assert.equal(activeSwaps()[file], undefined);
    assert.equal(fs.readFileSync(fstab, 'utf8'), 'proc /proc proc defaults 0 0\n');
  });

  it('activates the swap file and adds its fstab line; again it is already active', async () => {
    swapped.push(file);
    const r = await runState('mount.swap', { name: file, config: fstab });
    const on = activeSwaps()[file];
    assert.ok(on, 'the kernel lists the swap file');
    assert.deepEqual(r, { name: file, result: true, changes: { ...on, used: r.changes.used, persist: 'new' }, comment: `Swap ${file} activated. Added new entry to the fstab.` });
    assert.equal(r.changes.type, 'file');
    assert.match(fs.readFileSync(fstab, 'utf8'), new RegExp(`^proc /proc proc defaults 0 0\\n${file}\\s+none\\s+swap\\s+defaults\\s+0\\s+0\\n$`));
    assert.deepEqual(await runState('mount.swap', { name: file, config: fstab }), { name: file, result: true, changes: {}, comment: `Swap ${file} already active` });
    assert.deepEqual(await runState('mount.swap', { name: file, config: fstab }, { test: true }), { name: file, result: true, changes: {}, comment: `Swap ${file} already active` });
  });

  it('a symlink to an active swap file is already active; test=True with no fstab line says so in Salt’s words', async () => {
    const link = path.join(dir, 'link');
    fs.symlinkSync(file, link);
    const other = path.join(dir, 'other-fstab');
    fs.writeFileSync(other, '');
    assert.deepEqual(await runState('mount.swap', { name: link, config: other, persist: false }), { name: link, result: true, changes: {}, comment: `Swap ${link} already active` });
    assert.deepEqual(await runState('mount.swap', { name: file, config: other }, { test: true }), {
      name: file,
      result: null,
      changes: {},
      comment: `Swap ${file} is set to be added to the fstab and to be activated`,
    });
  });

  it('a file swapon refuses fails to activate, still persisted as Salt does; a missing fstab is reported', async () => {
    const bad = path.join(dir, 'not-swap');
    fs.writeFileSync(bad, Buffer.alloc(1024 * 1024), { mode: 0o600 });
    swapped.push(bad);
    const r = await runState('mount.swap', { name: bad, config: fstab });
    assert.deepEqual(r, { name: bad, result: false, changes: { persist: 'new' }, comment: `Swap ${bad} failed to activate. Added new entry to the fstab.` });
    assert.equal(activeSwaps()[bad], undefined);
    const missing = await runState('mount.swap', { name: file, config: path.join(dir, 'no-fstab') });
    assert.deepEqual(missing, { name: file, result: false, changes: {}, comment: `Swap ${file} already active. However, the fstab was not found.` });
  });
});

describe('parseProcSwaps', () => {
  it('reads /proc/swaps as Salt’s mount.swaps, a \\040 in a path as a space', () => {
    const text = 'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n/dev/sda2   partition\t1048572\t\t0\t\t-2\n/srv/my\\040swap   file\t40956\t\t12\t\t5\n';
    assert.deepEqual(parseProcSwaps(text), {
      '/dev/sda2': { type: 'partition', size: '1048572', used: '0', priority: '-2' },
      '/srv/my swap': { type: 'file', size: '40956', used: '12', priority: '5' },
    });
  });
});
