// The `mount` module for Linux (Salt's salt/modules/mount.py): the active mounts from
// /proc/self/mountinfo, fstab entries (fstab.ts decides, this file reads and writes), and
// mount / remount / umount through the mount programs. Salt's return values: True, or the
// program's stderr as a string on failure.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { BrineError, errorMessage } from '../util/errors.js';
import { defineFunction } from './define-function.js';
import { type FstabEntry, fstabTable, rmFstab, setFstab } from './fstab.js';
import { runArgv, which } from './host-tools.js';
import type { ModuleFunction } from './types.js';

export interface ActiveMount {
  mountid: string;
  parentid: string;
  major: string;
  minor: string;
  root: string;
  opts: string[];
  fstype: string;
  device: string;
  superopts: string[];
}

/** /proc/self/mountinfo as Salt's active(extended=True): keyed by mount point (spaces stay \040). */
export function parseMountinfo(text: string): Record<string, ActiveMount> {
  const out: Record<string, ActiveMount> = {};
  for (const line of text.split('\n')) {
    const comps = line.split(' ');
    const sep = comps.indexOf('-');
    if (sep < 6 || comps.length < sep + 4) continue;
    const [major, minor] = comps[2]!.split(':');
    out[comps[4]!] = {
      mountid: comps[0]!,
      parentid: comps[1]!,
      major: major ?? '',
      minor: minor ?? '',
      root: comps[3]!,
      opts: comps[5]!.split(','),
      fstype: comps[sep + 1]!,
      device: comps[sep + 2]!.replace(/\\040/g, '\\ '),
      superopts: comps[sep + 3]!.split(','),
    };
  }
  return out;
}

export const activeMounts = (): Record<string, ActiveMount> => parseMountinfo(readFileSync('/proc/self/mountinfo', 'utf8'));

const optsList = (opts: unknown): string[] => (Array.isArray(opts) ? opts.map(String) : String(opts ?? '').split(',')).filter((o) => o !== '');

function requireProgram(fun: string, program: string): void {
  if (!which(program)) throw new BrineError('EXEC_FAILED', `${fun}: the ${program} program is not installed on this host (Debian: apt-get install mount)`);
}

/** Salt's mount(): True, or the program's stderr. */
export async function mountFs(fun: string, name: string, device: string | undefined, mkmnt: boolean, fstype: string | undefined, opts: unknown): Promise<true | string> {
  requireProgram(fun, 'mount');
  if (!existsSync(name) && mkmnt) mkdirSync(name, { recursive: true });
  const o = optsList(opts);
  const argv = ['mount', ...(o.length ? ['-o', o.join(',')] : []), ...(fstype ? ['-t', fstype] : []), ...(device ? [device, name] : [name])];
  const r = await runArgv(fun, argv);
  return r.retcode === 0 ? true : r.stderr;
}

export async function umountFs(fun: string, name: string, device?: string): Promise<true | string> {
  if (!Object.hasOwn(activeMounts(), name.replace(/ /g, '\\040'))) return `${name} does not have anything mounted`;
  requireProgram(fun, 'umount');
  const r = await runArgv(fun, ['umount', device || name]);
  return r.retcode === 0 ? true : r.stderr;
}

function readConfig(fun: string, config: string): string {
  try {
    return readFileSync(config, 'utf8');
  } catch (err) {
    throw new BrineError('EXEC_FAILED', `${fun}: Couldn't read from ${config}: ${errorMessage(err)}`);
  }
}

const NAME = { name: 'name', type: 'string', required: true, doc: 'the mount point' } as const;
const CONFIG = { name: 'config', type: 'string', default: '/etc/fstab', doc: 'the fstab file' } as const;

export const mountFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'mount.active',
    doc: 'The active mounts as {mount point: {device, fstype, opts, superopts, ...}} (from /proc/self/mountinfo).',
    params: [{ name: 'extended', type: 'bool', default: false, doc: 'accepted for Salt compatibility (the extended form is always returned)' }],
    run: () => activeMounts(),
  }),
  defineFunction({
    name: 'mount.is_mounted',
    doc: 'Whether something is mounted on the mount point.',
    params: [NAME],
    run: (_ctx, a) => Object.hasOwn(activeMounts(), a.named.name.replace(/ /g, '\\040')),
  }),
  defineFunction({
    name: 'mount.fstab',
    doc: 'The entries of an fstab file as {mount point: {device, fstype, opts, dump, pass}} ({} when the file is missing).',
    params: [CONFIG],
    run: (_ctx, a) => (existsSync(a.named.config) ? fstabTable(readConfig('mount.fstab', a.named.config)) : {}),
  }),
  defineFunction({
    name: 'mount.set_fstab',
    doc: "Add or update an fstab entry; returns 'present', 'change' or 'new' (test=True writes nothing).",
    params: [
      NAME,
      { name: 'device', type: 'string', required: true, doc: 'the device (or UUID=..., LABEL=..., a remote path)' },
      { name: 'fstype', type: 'string', required: true, doc: 'the file system type' },
      { name: 'opts', type: 'any', default: 'defaults', doc: 'mount options: a comma-separated string or a list' },
      { name: 'dump', type: 'any', default: 0, doc: 'the dump field' },
      { name: 'pass_num', type: 'any', default: 0, doc: 'the fsck pass field' },
      CONFIG,
      { name: 'test', type: 'bool', default: false, doc: 'only say what would change' },
      { name: 'match_on', type: 'any', default: 'auto', doc: "the fields an existing line is found by: 'auto', a field name, or a list" },
      { name: 'not_change', type: 'bool', default: false, doc: 'keep a found line as it is' },
    ],
    kwargs: true,
    run: (_ctx, a) => {
      const n = a.named;
      if (!existsSync(n.config)) throw new BrineError('EXEC_FAILED', `Bad config file "${n.config}"`);
      const entry: FstabEntry = {
        name: n.name,
        device: n.device.replace(/\\ /g, '\\040'),
        fstype: n.fstype,
        opts: optsList(n.opts).join(',').replace(/\\ /g, '\\040'),
        dump: String(n.dump),
        pass_num: String(n.pass_num),
      };
      const matchOn = Array.isArray(n.match_on) ? n.match_on.map(String) : String(n.match_on);
      let decided: ReturnType<typeof setFstab>;
      try {
        decided = setFstab(readConfig('mount.set_fstab', n.config), entry, matchOn, n.not_change);
      } catch (err) {
        throw new BrineError('EXEC_FAILED', errorMessage(err));
      }
      if (decided.status !== 'present' && !n.test) writeFileSync(n.config, decided.text);
      return decided.status;
    },
  }),
  defineFunction({
    name: 'mount.rm_fstab',
    doc: 'Remove the fstab entries of a mount point (and device, when given); returns True.',
    params: [NAME, { name: 'device', type: 'string', doc: 'only the entry for this device' }, CONFIG],
    run: (_ctx, a) => {
      const r = rmFstab(readConfig('mount.rm_fstab', a.named.config), a.named.name, a.named.device);
      if (r.removed) writeFileSync(a.named.config, r.text);
      return true;
    },
  }),
  defineFunction({
    name: 'mount.mount',
    doc: "Mount a device; returns True, or mount's error text.",
    params: [
      NAME,
      { name: 'device', type: 'string', doc: 'the device' },
      { name: 'mkmnt', type: 'bool', default: false, doc: 'create the mount point when missing' },
      { name: 'fstype', type: 'string', doc: 'the file system type' },
      { name: 'opts', type: 'any', default: 'defaults', doc: 'mount options' },
    ],
    kwargs: true,
    run: (_ctx, a) => mountFs('mount.mount', a.named.name, a.named.device, a.named.mkmnt, a.named.fstype, a.named.opts),
  }),
  defineFunction({
    name: 'mount.remount',
    doc: "Remount with new options (mounts when not mounted); returns True, or mount's error text.",
    params: [
      NAME,
      { name: 'device', type: 'string', required: true, doc: 'the device' },
      { name: 'mkmnt', type: 'bool', default: false, doc: 'create the mount point when missing' },
      { name: 'fstype', type: 'string', default: '', doc: 'the file system type' },
      { name: 'opts', type: 'any', default: 'defaults', doc: 'mount options' },
    ],
    kwargs: true,
    run: (_ctx, a) => {
      const n = a.named;
      const opts = optsList(n.opts);
      if (!Object.hasOwn(activeMounts(), n.name.replace(/ /g, '\\040'))) return mountFs('mount.remount', n.name, n.device, n.mkmnt, n.fstype, opts);
      if (!opts.includes('remount')) opts.push('remount');
      return mountFs('mount.remount', n.name, n.device, false, n.fstype, opts);
    },
  }),
  defineFunction({
    name: 'mount.umount',
    doc: 'Unmount what is mounted on the mount point; returns True, or the error text.',
    params: [NAME, { name: 'device', type: 'string', doc: 'unmount this device instead of naming the mount point' }],
    kwargs: true,
    run: (_ctx, a) => umountFs('mount.umount', a.named.name, a.named.device),
  }),
];
