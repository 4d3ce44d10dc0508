// mount.mounted / mount.unmounted on Linux, following salt/states/mount.py: compare the active
// mount (device, options) with the wanted one, mount, remount or unmount, then bring the fstab
// entry in line (persist). Comments and changes ({mount, umount, persist}) are Salt's.

import fs from 'node:fs';
import path from 'node:path';
import type { ActiveMount } from '../../modules/mount-module.js';
import { defineState, type StateContext, type StateFunction, type StateResult } from '../types.js';
import { callFn, stateResult } from './state-result.js';
import { optionsToRemount } from './mount-options.js';

const realpath = (p: string): string => {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
};

/** The device names the active mount goes by (its device, the device's real path, its UUID/label). */
async function deviceNames(ctx: StateContext, mount: ActiveMount, wanted: string): Promise<string[]> {
  const names = [mount.device, realpath(mount.device)];
  // Salt reads blkid for every device; brine asks only when the wanted device is named that way.
  const tag = /^(UUID|LABEL)=/i.exec(wanted)?.[1]?.toUpperCase();
  if (tag && mount.device.startsWith('/')) {
    const r = await ctx.call('cmd.run_all', [['blkid', '-o', 'value', '-s', tag, mount.device]], { python_shell: false });
    const out = r.success ? String((r.return as { stdout?: string }).stdout ?? '').trim() : '';
    if (out) names.push(tag === 'UUID' ? out.toLowerCase() : out);
  }
  return [...new Set(names)];
}

/** Salt's real_device: what the wanted device is called in the active mount table. */
async function realDevice(ctx: StateContext, device: string, opts: string[], active: Record<string, ActiveMount>, key: string): Promise<string | { error: string }> {
  if (device.startsWith('/')) {
    if (opts.includes('bind') && active[key]) {
      // A bind mount shows the device of the file system its source lives on.
      let d = device.replace(/ /g, '\\040');
      while (!active[d] && d !== '/' && d !== '') d = path.dirname(d);
      return active[d]?.device ?? active[key]!.device;
    }
    const lvm = /^\/dev\/([^/]+)\/([^/]+)$/.exec(device);
    if (lvm) {
      const mapper = `/dev/mapper/${lvm[1]!.replace(/-/g, '--')}-${lvm[2]!.replace(/-/g, '--')}`;
      if (fs.existsSync(mapper)) return mapper;
    }
    return realpath(device);
  }
  if (/^UUID=/i.test(device)) return device.split('=')[1]!.replace(/"/g, '').toLowerCase();
  if (/^LABEL=/i.test(device)) {
    const label = device.split('=')[1]!;
    const r = await ctx.call('cmd.run_all', [['blkid', '-l', '-o', 'device', '-t', `LABEL=${label}`]], { python_shell: false });
    const dev =
      r.success && (r.return as { retcode: number }).retcode === 0
        ? String((r.return as { stdout: string }).stdout)
            .split('\n')[0]!
            .trim()
        : '';
    return dev || { error: `Unable to find device with label ${label}.` };
  }
  // A FUSE device in a state is fstype#host:path; the mount table shows host:path.
  return /^\w+#(.+)$/.exec(device)?.[1] ?? device;
}

const activeTable = async (ctx: StateContext): Promise<Record<string, ActiveMount> | string> => {
  const r = await callFn<Record<string, ActiveMount>>(ctx, 'mount.active', [], { extended: true });
  return r.ok ? r.value : r.message;
};

async function mounted(ctx: StateContext, n: MountedArgs): Promise<StateResult> {
  const fail = (c: string, changes: Record<string, unknown> = {}) => stateResult(n.name, false, c, changes);
  if (!n.name) return fail('Must provide name to mount.mounted');
  if (!n.device) return fail('Must provide device to mount.mounted');
  if (!n.fstype) return fail('Must provide fstype to mount.mounted');
  let opts = Array.isArray(n.opts) ? n.opts.map(String) : String(n.opts).split(',');
  const hidden = n.hidden_opts === undefined ? [] : Array.isArray(n.hidden_opts) ? n.hidden_opts.map(String) : String(n.hidden_opts).split(',');
  const name = n.name === '/' ? n.name : n.name.replace(/\/+$/, '');
  const ret: StateResult = stateResult(name, true, '');
  let active = await activeTable(ctx);
  if (typeof active === 'string') return fail(active);
  const key = realpath(name).replace(/ /g, '\\040');
  const real = await realDevice(ctx, n.device, opts, active, key);
  if (typeof real !== 'string') return fail(real.error);
  const current = active[key];
  if (current && n.mount) {
    const names = await deviceNames(ctx, current, n.device);
    if (n.opts && opts.length) {
      const remount = optionsToRemount(opts, n.fstype, current, { hidden, invisible: n.extra_mount_invisible_options, invisibleKeys: n.extra_mount_invisible_keys });
      if (remount.length) {
        const which = remount.sort().join(',');
        if (ctx.test) return stateResult(name, null, `Remount would be forced because options (${which}) changed`);
        if (['nfs', 'cvfs'].includes(n.fstype) || n.fstype.startsWith('fuse')) {
          ret.changes.umount = `Forced unmount and mount because options (${which}) changed`;
          const u = await callFn<true | string>(ctx, 'mount.umount', [key]);
          if (!u.ok || u.value !== true) return fail(`Unable to unmount ${key}: ${u.ok ? u.value : u.message}.`, ret.changes);
          const m = await callFn<true | string>(ctx, 'mount.mount', [key, n.device], { mkmnt: n.mkmnt, fstype: n.fstype, opts });
          ret.result = m.ok && m.value === true;
        } else {
          ret.changes.umount = `Forced remount because options (${which}) changed`;
          const m = await callFn<true | string>(ctx, 'mount.remount', [key, n.device], { mkmnt: n.mkmnt, fstype: n.fstype, opts });
          ret.result = m.ok && m.value === true;
          // Salt keeps the remount out of the fstab entry.
          opts = opts.filter((o) => o !== 'remount');
        }
      }
    }
    if (!names.includes(real)) {
      const ignoredBy = names.find((d) => n.device_name_regex.some((re) => new RegExp(`^(?:${re})`).test(d)));
      if (ignoredBy) {
        ret.result = true;
        ret.comment = `An umount will not be forced because device matched device_name_regex: ${ignoredBy}`;
      } else if (ctx.test) {
        ret.result = null;
        ret.comment = `An umount would have been forced because devices do not match.  Watched: ${n.device}`;
      } else {
        ret.changes.umount = `Forced unmount because devices don't match. Wanted: ${n.device}${real !== n.device ? ` (${real})` : ''}, current: ${names.join(', ')}`;
        await callFn(ctx, 'mount.umount', [key]);
        active = await activeTable(ctx);
        if (typeof active === 'string') return fail(active, ret.changes);
        if (active[key]) return { ...ret, result: null, comment: 'Unable to unmount' };
      }
    } else {
      ret.comment = 'Target was already mounted';
    }
  }
  if (!active[key]) {
    const exists = fs.existsSync(name);
    if (n.mount) {
      if (ctx.test) {
        return stateResult(name, null, exists ? `${name} would be mounted` : n.mkmnt ? `${name} would be created and mounted` : `${name} does not exist and would not be created`);
      }
      if (!exists && !n.mkmnt) return fail('Mount directory is not present');
      const out = await callFn<true | string>(ctx, 'mount.mount', [name, n.device], { mkmnt: n.mkmnt, fstype: n.fstype, opts });
      if (!out.ok) return fail(out.message);
      if (out.value !== true) return fail(out.value);
      active = await activeTable(ctx);
      if (typeof active !== 'string' && active[key]) {
        ret.comment = 'Target was successfully mounted';
        ret.changes.mount = true;
      }
    } else if (!exists) {
      if (ctx.test) {
        ret.result = null;
        ret.comment = n.mkmnt ? `${name} would be created, but not mounted` : `${name} does not exist and would neither be created nor mounted`;
      } else if (n.mkmnt) {
        fs.mkdirSync(name, { recursive: true });
        ret.comment = `${name} was created, not mounted`;
      } else {
        ret.comment = `${name} not present and not mounted`;
      }
    } else {
      ret.comment = ctx.test ? `${name} would not be mounted` : `${name} not mounted`;
    }
  }
  if (!n.persist) return ret;
  const fstabArgs = [name, n.device, n.fstype, opts, n.dump, n.pass_num, n.config];
  const set = await callFn<string>(ctx, 'mount.set_fstab', fstabArgs, { test: ctx.test, match_on: n.match_on });
  // Salt's set_fstab raises on a missing fstab; the state says so in its own words.
  const out = set.ok ? set.value : /^Bad config file/.test(set.message) ? 'bad config' : undefined;
  if (out === undefined) return fail(set.ok ? '' : set.message, ret.changes);
  if (ctx.test && out !== 'present') {
    const m = n.mount;
    const comment =
      out === 'new'
        ? `${m ? `${name} is mounted, but needs` : `${name} needs`} to be written to the fstab in order to be made persistent.`
        : out === 'change'
          ? m
            ? `${name} is mounted, but its fstab entry must be updated.`
            : `The ${name} fstab entry must be updated.`
          : `Unable to detect fstab status for mount point ${name} due to unexpected output '${out}' from call to mount.set_fstab. This is most likely a bug.`;
    return { ...ret, result: out === 'new' || out === 'change' ? null : false, comment: `${ret.comment}. ${comment}` };
  }
  if (out === 'present') return { ...ret, comment: `${ret.comment}. Entry already exists in the fstab.` };
  if (out === 'new') return { ...ret, changes: { ...ret.changes, persist: 'new' }, comment: `${ret.comment}. Added new entry to the fstab.` };
  if (out === 'change') return { ...ret, changes: { ...ret.changes, persist: 'update' }, comment: `${ret.comment}. Updated the entry in the fstab.` };
  return { ...ret, result: false, comment: `${ret.comment}. However, the fstab was not found.` };
}

interface MountedArgs {
  name: string;
  device: string;
  fstype: string;
  mkmnt: boolean;
  opts: unknown;
  dump: unknown;
  pass_num: unknown;
  config: string;
  persist: boolean;
  mount: boolean;
  match_on: unknown;
  device_name_regex: string[];
  hidden_opts?: unknown;
  extra_mount_invisible_options?: string[];
  extra_mount_invisible_keys?: string[];
}

async function unmounted(ctx: StateContext, n: { name: string; device?: string; config: string; persist: boolean }): Promise<StateResult> {
  const { name } = n;
  if (!name) return stateResult(name, false, 'Must provide name to mount.unmounted');
  const ret = stateResult(name, true, '');
  const active = await activeTable(ctx);
  if (typeof active === 'string') return stateResult(name, false, active);
  if (!active[name.replace(/ /g, '\\040')]) {
    ret.comment = 'Target was already unmounted';
  } else {
    if (ctx.test) return stateResult(name, null, `Mount point ${name} is mounted but should not be`);
    const out = await callFn<true | string>(ctx, 'mount.umount', [name, ...(n.device ? [n.device] : [])]);
    if (!out.ok || out.value !== true) {
      ret.result = false;
      ret.comment = out.ok ? String(out.value) : out.message;
    } else {
      ret.comment = 'Target was successfully unmounted';
      ret.changes.umount = true;
    }
  }
  if (!n.persist) return ret;
  const tab = await callFn<Record<string, { device: string }>>(ctx, 'mount.fstab', [n.config]);
  if (!tab.ok) return { ...ret, result: false, comment: tab.message };
  const entry = tab.value[name];
  if (!entry) return { ...ret, comment: `${ret.comment}. fstab entry not found` };
  if (n.device && entry.device !== n.device) return { ...ret, comment: `${ret.comment}. fstab entry for device ${n.device} not found` };
  if (ctx.test) return { ...ret, result: null, comment: `Mount point ${name} is unmounted but needs to be purged from ${n.config} to be made persistent` };
  const rm = await callFn<boolean>(ctx, 'mount.rm_fstab', [name, n.device ?? null, n.config]);
  if (!rm.ok || rm.value !== true) return { ...ret, result: false, comment: `${ret.comment}. Failed to persist purge` };
  return { ...ret, changes: { ...ret.changes, persist: 'purged' }, comment: `${ret.comment}. Removed target from fstab` };
}

export const mountStates: readonly StateFunction[] = [
  defineState({
    name: 'mount.mounted',
    doc: 'Make sure a device is mounted on a directory (remounted when options change) and, with persist, listed in fstab.',
    params: [
      { name: 'name', type: 'string', required: true, doc: 'the mount point' },
      { name: 'device', type: 'string', required: true, doc: 'the device: a path, UUID=..., LABEL=..., host:/export, or tmpfs' },
      { name: 'fstype', type: 'string', required: true, doc: 'the file system type' },
      { name: 'mkmnt', type: 'bool', default: false, doc: 'create the mount point when missing' },
      { name: 'opts', type: 'any', default: 'defaults', doc: 'mount options: a comma-separated string or a list' },
      { name: 'dump', type: 'any', default: 0, doc: "fstab's dump field" },
      { name: 'pass_num', type: 'any', default: 0, doc: "fstab's fsck pass field" },
      { name: 'config', type: 'string', default: '/etc/fstab', doc: 'the fstab file' },
      { name: 'persist', type: 'bool', default: true, doc: 'keep the entry in fstab in line' },
      { name: 'mount', type: 'bool', default: true, doc: 'mount now (False: only the fstab entry)' },
      { name: 'user', type: 'string', doc: 'accepted for Salt compatibility (brine mounts as the minion user)' },
      { name: 'match_on', type: 'any', default: 'auto', doc: "which fstab fields find an existing entry: 'auto' (name for tmpfs, nfs, ...; else device), a field, or a list" },
      { name: 'device_name_regex', type: 'list', default: [], doc: 'regular expressions; a mounted device matching one is never unmounted for being different' },
      { name: 'extra_mount_invisible_options', type: 'list', doc: 'options the kernel does not show once mounted (never force a remount)' },
      { name: 'extra_mount_invisible_keys', type: 'list', doc: 'key=value options whose value is not shown once mounted' },
      { name: 'extra_mount_ignore_fs_keys', type: 'map', doc: 'accepted for Salt compatibility' },
      { name: 'extra_mount_translate_options', type: 'map', doc: 'accepted for Salt compatibility' },
      { name: 'hidden_opts', type: 'any', doc: 'options (list or comma-separated) never compared with the mounted ones' },
      { name: 'bind_mount_copy_active_opts', type: 'bool', default: true, doc: 'accepted for Salt compatibility' },
    ],
    kwargs: true,
    example:
      '/mnt/scratch:\n  mount.mounted:\n    - device: tmpfs\n    - fstype: tmpfs\n    - opts: size=512m,mode=1777\n    - mkmnt: True\n\n/srv/data:\n  mount.mounted:\n    - device: UUID=6a3c2c1e-8f0b-4b8e-9a57-2f1f2d9e4c11\n    - fstype: ext4\n    - opts:\n      - noatime\n      - nodev',
    run: (ctx, a) => mounted(ctx, a.named as unknown as MountedArgs),
  }),
  defineState({
    name: 'mount.unmounted',
    doc: 'Make sure nothing is mounted on a directory and, with persist, that fstab has no entry for it.',
    params: [
      { name: 'name', type: 'string', required: true, doc: 'the mount point' },
      { name: 'device', type: 'string', doc: 'only this device (unmount it, and only its fstab entry)' },
      { name: 'config', type: 'string', default: '/etc/fstab', doc: 'the fstab file' },
      { name: 'persist', type: 'bool', default: false, doc: 'also remove the fstab entry' },
      { name: 'user', type: 'string', doc: 'accepted for Salt compatibility' },
    ],
    kwargs: true,
    example: '/mnt/old-backup:\n  mount.unmounted:\n    - persist: True',
    run: (ctx, a) => unmounted(ctx, a.named),
  }),
];
