// test.versions_information, test.versions_report and test.versions (salt/modules/test.py over
// salt/version.py): the "Salt Version" section names the Salt release brine follows and, beside
// it, brine's own version, so a front end or a support script reading Salt's report finds both.
// brine runs on Node.js, not Python: its runtime and libraries are the "Dependency Versions".

import * as fs from 'node:fs';
import * as os from 'node:os';
import { SALT_COMPAT_VERSION } from './grains/version-grains.js';
import { defineFunction } from './define-function.js';
import { parseOsRelease } from './os-release.js';
import type { ModuleFunction } from './types.js';
import { BRINE_VERSION } from './version.js';

/** Salt's machine names (uname -m) for Node's os.arch(). */
const MACHINE: Readonly<Record<string, string>> = { x64: 'x86_64', arm64: 'aarch64', ia32: 'i686', arm: 'armv7l', ppc64: 'ppc64le', s390x: 's390x' };

function systemVersions(): Record<string, string> {
  let dist = '';
  let version = '';
  try {
    const f = parseOsRelease(fs.readFileSync('/etc/os-release', 'utf8'));
    dist = [f.get('ID'), f.get('VERSION_ID'), f.get('VERSION_CODENAME')].filter((x) => x).join(' ');
    version = [f.get('NAME'), f.get('VERSION_ID'), f.get('VERSION_CODENAME')].filter((x) => x).join(' ');
  } catch {
    // no os-release: Salt reports empty fields too
  }
  return { dist, locale: 'utf-8', machine: MACHINE[os.arch()] ?? os.arch(), release: os.release(), system: os.type(), version };
}

/** Salt's versions_information() shape: section -> {name: version}. */
export function versionsInformation(): Record<string, Record<string, string>> {
  return {
    'Salt Version': { Salt: SALT_COMPAT_VERSION, brine: BRINE_VERSION },
    'Dependency Versions': { 'Node.js': process.versions.node, OpenSSL: process.versions.openssl ?? '', V8: process.versions.v8, libuv: process.versions.uv ?? '' },
    'System Versions': systemVersions(),
  };
}

/** Salt's versions_report(): right-aligned names, sections in order, a ' ' line after each. */
export function versionsReport(info = versionsInformation()): string {
  const notInstalled = 'Not Installed';
  const pad = Math.max(notInstalled.length, ...Object.keys(info['Dependency Versions']!).map((n) => n.length), ...Object.keys(info['System Versions']!).map((n) => n.length)) + 1;
  const lines: string[] = [];
  for (const [section, entries] of Object.entries(info)) {
    lines.push(`${section}:`);
    const names = Object.keys(entries).sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
    for (const name of names) lines.push(`${name.padStart(pad)}: ${entries[name] || notInstalled}`);
    lines.push(' ');
  }
  return lines.join('\n');
}

const report = { params: [], run: () => versionsReport() } as const;

export const testVersionFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'test.versions_information',
    doc: "Salt's version report as data: {'Salt Version': {Salt: '3007.8', brine: ...}, 'Dependency Versions': {...}, 'System Versions': {...}}.",
    params: [],
    run: () => versionsInformation(),
  }),
  defineFunction({ name: 'test.versions_report', doc: "Salt's version report as text (the Salt release brine follows, brine's own version, Node.js and the system).", ...report }),
  defineFunction({ name: 'test.versions', doc: 'Alias of test.versions_report.', ...report }),
];
