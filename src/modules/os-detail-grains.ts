// Salt's derived OS grains (salt/grains/core.py, os_data): osfullname, oscodename, osfinger,
// osmajorrelease, osrelease_info, the lsb_distrib_* grains and osarch (init: grains/init-grain.ts). Real
// trees pick their package repositories and paths by them (`grains['oscodename']`,
// `grains['osarch']`); without them a tree's Jinja fails on an undefined grain.

import type { OsGrains } from './os-release.js';

// Salt names these by `os`, the others by `osfullname`, in osfinger.
const FINGER_BY_OS = new Set(['Debian', 'FreeBSD', 'OpenBSD', 'NetBSD', 'Mac', 'Raspbian']);

// `uname -m` -> `dpkg --print-architecture`, which Salt runs for osarch on the Debian family.
const DPKG_ARCH = new Map([
  ['x86_64', 'amd64'],
  ['aarch64', 'arm64'],
  ['armv7l', 'armhf'],
  ['armv6l', 'armel'],
  ['i686', 'i386'],
  ['i386', 'i386'],
  ['ppc64le', 'ppc64el'],
  ['s390x', 's390x'],
  ['riscv64', 'riscv64'],
]);

/**
 * osrelease split on dots, numeric parts as numbers (Salt's osrelease_info tuple), and
 * osmajorrelease as its first part when that is a number.
 */
function releaseInfo(osrelease: string): { osrelease_info?: (number | string)[]; osmajorrelease?: number } {
  if (osrelease === '') return {};
  const info = osrelease.split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  return typeof info[0] === 'number' ? { osrelease_info: info, osmajorrelease: info[0] } : { osrelease_info: info };
}

/**
 * The lsb_distrib_* grains: /etc/lsb-release (DISTRIB_*) when the host has it, else
 * os-release's NAME, VERSION_ID and VERSION_CODENAME (for Debian, the codename in PRETTY_NAME's
 * parentheses when VERSION_CODENAME is missing), as Salt falls back.
 */
function lsbGrains(osRelease: ReadonlyMap<string, string> | undefined, lsbRelease: ReadonlyMap<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  const set = (k: string, v: string | undefined) => {
    if (v !== undefined && v.trim() !== '') out[k] = v.trim();
  };
  set('lsb_distrib_id', lsbRelease?.get('DISTRIB_ID'));
  set('lsb_distrib_release', lsbRelease?.get('DISTRIB_RELEASE'));
  set('lsb_distrib_codename', lsbRelease?.get('DISTRIB_CODENAME'));
  set('lsb_distrib_description', lsbRelease?.get('DISTRIB_DESCRIPTION'));
  if (out.lsb_distrib_id === undefined && osRelease !== undefined) {
    set('lsb_distrib_id', osRelease.get('NAME'));
    set('lsb_distrib_release', out.lsb_distrib_release ?? osRelease.get('VERSION_ID'));
    let codename = osRelease.get('VERSION_CODENAME');
    const pretty = osRelease.get('PRETTY_NAME');
    if (codename === undefined && pretty !== undefined) codename = osRelease.get('ID') === 'debian' ? (/\((\w+)\)$/.exec(pretty)?.[1] ?? pretty) : pretty;
    set('lsb_distrib_codename', out.lsb_distrib_codename ?? codename);
  }
  return out;
}

/** How the package manager names the architecture (dpkg on the Debian family, else uname's). */
export function osArch(osFamily: string, cpuarch: string): string {
  return osFamily === 'Debian' ? (DPKG_ARCH.get(cpuarch) ?? cpuarch) : cpuarch;
}

export interface OsDetailInput {
  base: OsGrains;
  osRelease: ReadonlyMap<string, string> | undefined;
  lsbRelease: ReadonlyMap<string, string> | undefined;
  cpuarch: string;
}

/** The derived OS grains for one host (pure: the caller reads the files). */
export function osDetailGrains(i: OsDetailInput): Record<string, unknown> {
  const lsb = lsbGrains(i.osRelease, i.lsbRelease);
  const out: Record<string, unknown> = { ...lsb, osarch: osArch(i.base.os_family, i.cpuarch), ...releaseInfo(i.base.osrelease) };
  if (lsb.lsb_distrib_id !== undefined) out.osfullname = lsb.lsb_distrib_id;
  if (lsb.lsb_distrib_codename !== undefined) out.oscodename = lsb.lsb_distrib_codename;
  const info = out.osrelease_info as (number | string)[] | undefined;
  if (i.base.osrelease !== '' && info !== undefined) {
    const name = FINGER_BY_OS.has(i.base.os) ? i.base.os : String(out.osfullname ?? i.base.os);
    out.osfinger = `${name}-${name === 'Ubuntu' ? i.base.osrelease : String(info[0])}`;
  }
  return out;
}
