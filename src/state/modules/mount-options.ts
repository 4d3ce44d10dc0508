// Which wanted mount options are missing from an active mount, so that mount.mounted must
// remount (Salt's trigger_remount): options the kernel never shows (noauto, _netdev, secrets
// given as key=value) are left out, sizes are compared in kilobytes, tcp/udp read proto=.

import type { ActiveMount } from '../../modules/mount-module.js';

const INVISIBLE = [
  '_netdev',
  'actimeo',
  'bg',
  'comment',
  'defaults',
  'delay_connect',
  'direct-io-mode',
  'intr',
  'loop',
  'nointr',
  'nobootwait',
  'nofail',
  'password',
  'reconnect',
  'retry',
  'soft',
  'auto',
  'users',
  'bind',
  'nonempty',
  'transform_symlinks',
  'port',
  'backup-volfile-servers',
  'secretfile',
];
const INVISIBLE_KEYS = ['actimeo', 'comment', 'credentials', 'direct-io-mode', 'password', 'port', 'retry', 'secretfile'];
const IGNORE_FS_KEYS: Record<string, string[]> = { ramfs: ['size'] };
const TRANSLATE: Record<string, string> = { tcp: 'proto=tcp', udp: 'proto=udp' };

/** size=<n>(k|m|g) as size=<kilobytes>k, the way the kernel shows it. */
const inKb = (opt: string): string => {
  const m = /^size=([0-9]+)([kmg])/.exec(opt);
  if (!m) return opt;
  const n = Number(m[1]) * (m[2] === 'm' ? 1024 : m[2] === 'g' ? 1024 * 1024 : 1);
  return `size=${n}k`;
};

export function optionsToRemount(
  wanted: readonly string[],
  fstype: string,
  active: ActiveMount,
  extra: { hidden?: readonly string[]; invisible?: readonly string[]; invisibleKeys?: readonly string[] } = {},
): string[] {
  const invisible = new Set([...INVISIBLE, ...(extra.invisible ?? []), ...(extra.hidden ?? [])]);
  const invisibleKeys = new Set([...INVISIBLE_KEYS, ...(extra.invisibleKeys ?? [])]);
  const ignored = IGNORE_FS_KEYS[fstype] ?? [];
  // Salt rewrites the active sizes in kilobytes before comparing (it then also lets the active
  // size stand in for every wanted option, which hides real changes; brine compares each one).
  const superopts = active.superopts.map(inKb);
  const out: string[] = [];
  for (const raw of wanted) {
    let opt = TRANSLATE[raw] ?? raw;
    const k = opt.split('=')[0]!;
    if (invisibleKeys.has(k)) opt = k;
    opt = inKb(opt);
    if (fstype === 'cifs' && k === 'user') opt = `username=${opt.split('=')[1]}`;
    if (ignored.includes(k)) opt = k;
    if (!active.opts.includes(opt) && !superopts.includes(opt) && !invisible.has(opt) && !ignored.includes(opt) && !invisibleKeys.has(opt)) out.push(opt);
  }
  return out;
}
