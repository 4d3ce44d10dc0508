// mount.fstab_present / mount.fstab_absent, following salt/states/mount.py: only the fstab
// entry, through mount.set_fstab / mount.rm_fstab, with Salt's comments. Salt returns the
// comment as a list of sentences; brine's state results carry one string, so they are joined
// with newlines (as Salt's highstate output prints them). Linux only (Salt's MacOS automaster and
// AIX filesystems branches are not followed).

import { defineState, type StateContext, type StateFunction, type StateResult } from '../types.js';
import { callFn, stateResult } from './state-result.js';

const MOUNT_BY = ['device', 'label', 'uuid', 'partlabel', 'partuuid'];

/** Salt's _convert_to: the fs_spec for `mount_by`, asked of blkid; undefined when it cannot be found. */
async function convertTo(ctx: StateContext, device: string, mountBy: string | undefined): Promise<string | undefined> {
  if (!mountBy || (mountBy === 'device' && device.startsWith('/')) || device.startsWith(`${mountBy.toUpperCase()}=`)) return device;
  const key = mountBy.toUpperCase();
  const argv = device.startsWith('/') ? ['blkid', '-o', 'value', '-s', key, device] : ['blkid', '-o', 'device', '-t', device];
  const r = await callFn<{ retcode: number; stdout: string }>(ctx, 'cmd.run_all', [argv], { python_shell: false });
  const lines = r.ok && r.value.retcode === 0 ? r.value.stdout.split('\n').filter((l) => l.trim() !== '') : [];
  if (lines.length !== 1) return undefined;
  if (!device.startsWith('/')) {
    if (mountBy === 'device') return lines[0];
    return convertTo(ctx, lines[0] as string, mountBy);
  }
  return `${key}=${lines[0]}`;
}

const mountPoint = (p: string): string => (p === '/' ? p : p.replace(/\/+$/, ''));

interface PresentArgs {
  name: string;
  fs_file: string;
  fs_vfstype: string;
  fs_mntops: unknown;
  fs_freq: unknown;
  fs_passno: unknown;
  mount_by?: string;
  config: string;
  mount: boolean;
  match_on: unknown;
  not_change: boolean;
}

async function fstabPresent(ctx: StateContext, n: PresentArgs): Promise<StateResult> {
  const comment: string[] = [];
  const done = (result: boolean | null, changes: Record<string, unknown> = {}): StateResult => stateResult(n.name, result, comment.join('\n'), changes);
  const fsFile = mountPoint(n.fs_file);
  const spec = await convertTo(ctx, n.name, n.mount_by);
  if (!spec) {
    comment.push(`Device ${n.name} cannot be converted to ${n.mount_by}`);
    return done(false);
  }
  const kw = { opts: n.fs_mntops, dump: n.fs_freq, pass_num: n.fs_passno, config: n.config, match_on: n.match_on, not_change: n.not_change };
  const set = await callFn<string>(ctx, 'mount.set_fstab', [fsFile, spec, n.fs_vfstype], { ...kw, test: ctx.test });
  const out = set.ok ? set.value : set.message;
  if (ctx.test) {
    if (out === 'present') comment.push(`${fsFile} entry is already in ${n.config}.`);
    else if (out === 'new') {
      comment.push(`${fsFile} entry will be written in ${n.config}.`);
      if (n.mount) comment.push(`Will mount ${n.name} on ${fsFile}`);
    } else if (out === 'change') comment.push(`${fsFile} entry will be updated in ${n.config}.`);
    else {
      comment.push(`${fsFile} entry cannot be created in ${n.config}: ${out}.`);
      return done(false);
    }
    return done(null);
  }
  if (out === 'present') {
    comment.push(`${fsFile} entry was already in ${n.config}.`);
    return done(true);
  }
  if (out === 'new') {
    comment.push(`${fsFile} entry added in ${n.config}.`);
    let result = true;
    if (n.mount) {
      const m = await callFn<true | string>(ctx, 'mount.mount', [fsFile]);
      const error = !m.ok ? m.message : typeof m.value === 'string' ? m.value : undefined;
      if (error !== undefined) {
        result = false;
        comment.push(`Error while mounting ${error.includes(':') ? error.slice(error.indexOf(':') + 1) : error}`);
      } else comment.push(`Mounted ${n.name} on ${fsFile}`);
    }
    return done(result, { persist: 'new' });
  }
  if (out === 'change') {
    comment.push(`${fsFile} entry updated in ${n.config}.`);
    return done(true, { persist: 'change' });
  }
  comment.push(`${fsFile} entry cannot be changed in ${n.config}: ${out}.`);
  return done(false);
}

async function fstabAbsent(ctx: StateContext, n: { name: string; fs_file: string; mount_by?: string; config: string }): Promise<StateResult> {
  const fsFile = mountPoint(n.fs_file);
  const spec = await convertTo(ctx, n.name, n.mount_by);
  const table = await callFn<Record<string, unknown>>(ctx, 'mount.fstab', [], { config: n.config });
  if (!table.ok) return stateResult(n.name, false, table.message);
  const present = Object.hasOwn(table.value, fsFile);
  if (ctx.test) return stateResult(n.name, null, present ? `${fsFile} entry will be removed from ${n.config}.` : `${fsFile} entry is already missing in ${n.config}.`);
  if (!present) return stateResult(n.name, true, `${fsFile} entry is already missing in ${n.config}.`);
  const rm = await callFn(ctx, 'mount.rm_fstab', [fsFile], { ...(spec ? { device: spec } : {}), config: n.config });
  if (!rm.ok || rm.value !== true) return stateResult(n.name, false, `${fsFile} entry failed when removing from ${n.config}.`);
  return stateResult(n.name, true, `${fsFile} entry removed from ${n.config}.`, { persist: 'removed' });
}

const NAME = { name: 'name', type: 'string', required: true, doc: 'the device (any fs_spec: a path, UUID=..., LABEL=..., host:/export)' } as const;
const FS_FILE = { name: 'fs_file', type: 'string', required: true, doc: 'the mount point' } as const;
const MOUNT_BY_PARAM = { name: 'mount_by', type: 'string', doc: `write the device as one of ${MOUNT_BY.join(', ')} (asked of blkid)` } as const;
const CONFIG = { name: 'config', type: 'string', default: '/etc/fstab', doc: 'the fstab file' } as const;

export const fstabStates: readonly StateFunction[] = [
  defineState({
    name: 'mount.fstab_present',
    doc: 'Make sure fstab has an entry for a mount point (added or updated; mounted when new, unless mount is False).',
    params: [
      NAME,
      FS_FILE,
      { name: 'fs_vfstype', type: 'string', required: true, doc: 'the file system type' },
      { name: 'fs_mntops', type: 'any', default: 'defaults', doc: 'mount options: a comma-separated string or a list' },
      { name: 'fs_freq', type: 'any', default: 0, doc: "fstab's dump field" },
      { name: 'fs_passno', type: 'any', default: 0, doc: "fstab's fsck pass field" },
      MOUNT_BY_PARAM,
      CONFIG,
      { name: 'mount', type: 'bool', default: true, doc: 'mount a new entry now' },
      { name: 'match_on', type: 'any', default: 'auto', doc: "which fstab fields find an existing entry: 'auto', a field, or a list" },
      { name: 'not_change', type: 'bool', default: false, doc: 'keep a found entry as it is' },
      { name: 'fs_mount', type: 'bool', default: true, doc: 'AIX only; accepted for Salt compatibility' },
    ],
    example:
      'nfs_backup:\n  mount.fstab_present:\n    - name: backup.example.com:/export/backup\n    - fs_file: /mnt/backup\n    - fs_vfstype: nfs\n    - fs_mntops: noauto,x-systemd.automount\n    - mount: False',
    run: (ctx, a) => fstabPresent(ctx, a.named as unknown as PresentArgs),
  }),
  defineState({
    name: 'mount.fstab_absent',
    doc: 'Make sure fstab has no entry for a mount point (nothing is unmounted).',
    params: [NAME, FS_FILE, MOUNT_BY_PARAM, CONFIG],
    example: '/dev/sdb1:\n  mount.fstab_absent:\n    - fs_file: /mnt/old',
    run: (ctx, a) => fstabAbsent(ctx, a.named as { name: string; fs_file: string; mount_by?: string; config: string }),
  }),
];
