// Reads /etc/os-release into the `os`, `os_family` and `osrelease` grains, with Salt's names
// for the distributions (Debian, Ubuntu, CentOS, RedHat, ...) and their families.

/** Parses os-release text: `KEY=value` lines with optional shell-style quoting. */
export function parseOsRelease(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    const key = line.slice(0, eq).trim();
    let value = line.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
      value = value.slice(1, -1).replace(/\\(["\\$`])/g, '$1');
    } else if (value.length >= 2 && value.startsWith("'") && value.endsWith("'")) {
      value = value.slice(1, -1);
    }
    fields.set(key, value);
  }
  return fields;
}

// os-release ID → Salt's `os` grain.
const OS_BY_ID = new Map<string, string>([
  ['debian', 'Debian'],
  ['ubuntu', 'Ubuntu'],
  ['linuxmint', 'Mint'],
  ['raspbian', 'Raspbian'],
  ['kali', 'Kali'],
  ['pop', 'Pop'],
  ['devuan', 'Devuan'],
  ['centos', 'CentOS'],
  ['rhel', 'RedHat'],
  ['fedora', 'Fedora'],
  ['rocky', 'Rocky'],
  ['almalinux', 'AlmaLinux'],
  ['amzn', 'Amazon'],
  ['ol', 'OEL'],
  ['cloudlinux', 'CloudLinux'],
  ['scientific', 'Scientific'],
  ['photon', 'VMware Photon OS'],
  ['sles', 'SUSE'],
  ['sled', 'SUSE'],
  ['opensuse', 'openSUSE'],
  ['opensuse-leap', 'Leap'],
  ['opensuse-tumbleweed', 'openSUSE Tumbleweed'],
  ['arch', 'Arch'],
  ['manjaro', 'Manjaro'],
  ['alpine', 'Alpine'],
  ['gentoo', 'Gentoo'],
  ['void', 'Void'],
  ['nixos', 'NixOS'],
]);

// Salt's `os` grain → `os_family`.
const FAMILY_BY_OS = new Map<string, string>([
  ['Debian', 'Debian'],
  ['Ubuntu', 'Debian'],
  ['Mint', 'Debian'],
  ['Raspbian', 'Debian'],
  ['Kali', 'Debian'],
  ['Pop', 'Debian'],
  ['Devuan', 'Debian'],
  ['CentOS', 'RedHat'],
  ['RedHat', 'RedHat'],
  ['Fedora', 'RedHat'],
  ['Rocky', 'RedHat'],
  ['AlmaLinux', 'RedHat'],
  ['Amazon', 'RedHat'],
  ['OEL', 'RedHat'],
  ['CloudLinux', 'RedHat'],
  ['Scientific', 'RedHat'],
  ['VMware Photon OS', 'RedHat'],
  ['SUSE', 'Suse'],
  ['openSUSE', 'Suse'],
  ['Leap', 'Suse'],
  ['openSUSE Tumbleweed', 'Suse'],
  ['Arch', 'Arch'],
  ['Manjaro', 'Arch'],
  ['Alpine', 'Alpine'],
  ['Gentoo', 'Gentoo'],
  ['Void', 'Void'],
  ['NixOS', 'NixOS'],
]);

// ID_LIKE words → family, for derivatives the tables above do not name.
const FAMILY_BY_LIKE = new Map<string, string>([
  ['debian', 'Debian'],
  ['ubuntu', 'Debian'],
  ['rhel', 'RedHat'],
  ['fedora', 'RedHat'],
  ['centos', 'RedHat'],
  ['suse', 'Suse'],
  ['opensuse', 'Suse'],
  ['arch', 'Arch'],
]);

export interface OsGrains {
  os: string;
  os_family: string;
  osrelease: string;
}

/** Maps os-release fields to the OS grains; `fallbackOs` (os.type()) when nothing is known. */
export function osGrainsFrom(fields: ReadonlyMap<string, string> | undefined, fallbackOs: string): OsGrains {
  const id = fields?.get('ID')?.toLowerCase() ?? '';
  const name =
    fields
      ?.get('NAME')
      ?.replace(/\s+(GNU\/)?Linux$/i, '')
      .trim() ?? '';
  const os = OS_BY_ID.get(id) ?? (name !== '' ? name : fallbackOs);
  let family = FAMILY_BY_OS.get(os);
  if (family === undefined) {
    for (const like of (fields?.get('ID_LIKE') ?? '').toLowerCase().split(/\s+/)) {
      family = FAMILY_BY_LIKE.get(like);
      if (family) break;
    }
  }
  return { os, os_family: family ?? os, osrelease: fields?.get('VERSION_ID') ?? '' };
}
