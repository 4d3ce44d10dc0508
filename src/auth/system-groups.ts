// The groups of a local account, for 'group%' ACL keys with the pam backend: its primary group
// from /etc/passwd and every /etc/group line that lists it (what getgrouplist(3) reads from files).

import { readFileSync } from 'node:fs';

/** Group names of `user` from the text of /etc/passwd and /etc/group. */
export function groupsFromFiles(user: string, passwd: string, group: string): string[] {
  let primaryGid: string | undefined;
  for (const line of passwd.split('\n')) {
    const f = line.split(':');
    if (f[0] === user && f.length >= 4) {
      primaryGid = f[3];
      break;
    }
  }
  const out = new Set<string>();
  for (const line of group.split('\n')) {
    const f = line.split(':');
    if (f.length < 4 || f[0] === '' || f[0]!.startsWith('#')) continue;
    const members = f[3]!.trim() === '' ? [] : f[3]!.trim().split(',');
    if (f[2] === primaryGid || members.includes(user)) out.add(f[0]!);
  }
  return [...out];
}

/** Group names of a local account; empty when the files cannot be read. */
export function systemGroups(user: string, files = { passwd: '/etc/passwd', group: '/etc/group' }): string[] {
  try {
    return groupsFromFiles(user, readFileSync(files.passwd, 'utf8'), readFileSync(files.group, 'utf8'));
  } catch {
    return [];
  }
}
