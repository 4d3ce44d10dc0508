// Salt's hardware grains on Linux, all read from /proc and /sys (no process is started):
// cpu_model/cpu_flags/num_cpus (_linux_cpudata), mem_total/swap_total (_linux_memdata), the
// firmware grains from /sys/class/dmi/id (_hw_data), disks/ssds (salt/grains/disks.py), efi
// and efi-secure-boot (salt/grains/extra.py uefi) and zfs_support (salt/utils/zfs.py).

import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { readHostFile } from './read-host-file.js';

/** Pure: Salt's _linux_cpudata over /proc/cpuinfo's text (later lines win, as in Salt). */
export function cpuGrains(cpuinfo: string | undefined): { num_cpus: number; cpu_model: string; cpu_flags: string[] } {
  let num = 0;
  let model: string | undefined;
  let flags: string[] | undefined;
  for (const line of (cpuinfo ?? '').split('\n')) {
    const comps = line.split(':');
    if (comps.length < 2) continue;
    const key = (comps[0] ?? '').trim();
    const val = (comps[1] ?? '').trim();
    if (key === 'processor') num += 1;
    else if (key === '# processors') num = Number.parseInt(val, 10);
    else if (key === 'vendor_id' || key === 'model name' || key === 'cpu') model = val;
    else if (key === 'flags' || key === 'Features') flags = val.split(/\s+/).filter((f) => f !== '');
    else if (key === 'Processor') {
      model = val.split('-')[0];
      num = 1;
    }
  }
  return { num_cpus: num, cpu_model: model ?? 'Unknown', cpu_flags: flags ?? [] };
}

/** Pure: mem_total and swap_total in MiB, rounded down, from /proc/meminfo's kB figures. */
export function memGrains(meminfo: string | undefined): { mem_total: number; swap_total: number } {
  const out = { mem_total: 0, swap_total: 0 };
  for (const line of (meminfo ?? '').split('\n')) {
    const [key = '', rest = ''] = line.split(':');
    const kb = Number.parseInt(rest.trim().split(/\s+/)[0] ?? '', 10);
    if (Number.isNaN(kb)) continue;
    if (key.trim() === 'MemTotal') out.mem_total = Math.floor(kb / 1024);
    if (key.trim() === 'SwapTotal') out.swap_total = Math.floor(kb / 1024);
  }
  return out;
}

// grain -> file under /sys/class/dmi/id, as Salt's sysfs_firmware_info
const DMI_FILES: readonly (readonly [string, string])[] = [
  ['biosversion', 'bios_version'],
  ['biosvendor', 'bios_vendor'],
  ['boardname', 'board_name'],
  ['productname', 'product_name'],
  ['manufacturer', 'sys_vendor'],
  ['biosreleasedate', 'bios_date'],
  ['uuid', 'product_uuid'],
  ['serialnumber', 'product_serial'],
];

/** The firmware grains; a file that is missing or readable only by root leaves its grain out, as in Salt. */
export function dmiGrains(dir = '/sys/class/dmi/id'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [grain, file] of DMI_FILES) {
    const text = readHostFile(path.join(dir, file));
    if (text === undefined) continue;
    out[grain] = grain === 'uuid' ? text.trim().toLowerCase() : text.trim();
  }
  return out;
}

/**
 * disks (rotational) and ssds (non-rotational) of /sys/block, leaving out virtual devices
 * (loop, ram, zram, dm-*: their link points under ../devices/virtual/).
 */
export function diskGrains(dir = '/sys/block'): { disks: string[]; ssds: string[] } {
  const out = { disks: [] as string[], ssds: [] as string[] };
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return out;
  }
  for (const name of names) {
    try {
      if (readlinkSync(path.join(dir, name)).startsWith('../devices/virtual/')) continue;
    } catch {
      continue;
    }
    const flag = readHostFile(path.join(dir, name, 'queue', 'rotational'))?.[0];
    if (flag === '0') out.ssds.push(name);
    else if (flag === '1') out.disks.push(name);
  }
  return out;
}

/** efi and efi-secure-boot: the last byte of the SecureBoot variable is 1 when it is on. */
export function efiGrains(dirs = ['/sys/firmware/efi/efivars', '/sys/firmware/efi/vars']): Record<string, boolean> {
  const dir = dirs.find((d) => existsSync(d));
  if (dir === undefined) return { efi: false, 'efi-secure-boot': false };
  let secure = false;
  try {
    const vars = readdirSync(dir).filter((n) => n.startsWith('SecureBoot-'));
    if (vars.length === 1) {
      const file = path.basename(dir) === 'efivars' ? path.join(dir, vars[0] ?? '') : path.join(dir, vars[0] ?? '', 'data');
      const data = readFileSync(file);
      secure = data.length > 0 && data[data.length - 1] === 1;
    }
  } catch {
    // readable only by root: reported as off, as in Salt
  }
  return { efi: true, 'efi-secure-boot': secure };
}

/** zfs_support: the kernel module (or zfs-fuse) and the zpool command are both there. */
export function zfsSupport(hasZpool: boolean, hasZfsFuse: boolean, moduleDir = '/sys/module/zfs'): boolean {
  return hasZpool && (existsSync(moduleDir) || hasZfsFuse);
}
