// A local account as the master sees a control-socket peer: the kernel gives only numbers
// (uid, gid); the name and the groups that publisher_acl keys ('user', 'group%') refer to come
// from /etc/passwd and /etc/group, read at connect time so a change applies to the next command.

import * as fs from 'node:fs';
import { parseGroup, parsePasswd, type GroupEntry, type PasswdEntry } from './account-db.js';

export interface LocalAccount {
  uid: number;
  /** The passwd name; a uid with no passwd entry is named by its number ('1234'). */
  name: string;
  /** False when the uid has no passwd entry (then only '*' ACL keys can apply to it). */
  known: boolean;
  /** Every group id: the peer's gid, the passwd primary gid, and the supplementary groups. */
  gids: number[];
  /** The names of those groups that /etc/group names (a gid without an entry has no name). */
  groups: string[];
}

/**
 * Pure: the account of uid/gid in the given databases. Supplementary groups are those whose
 * member list names the user, as getgrouplist(3) computes them from /etc/group.
 */
export function resolveAccount(uid: number, gid: number, users: readonly PasswdEntry[], groups: readonly GroupEntry[]): LocalAccount {
  const user = users.find((u) => u.uid === uid);
  const name = user?.name ?? String(uid);
  const gids = new Set<number>([gid]);
  if (user !== undefined) {
    gids.add(user.gid);
    for (const g of groups) if (g.members.includes(user.name)) gids.add(g.gid);
  }
  const byGid = new Map<number, string>();
  // the first entry for a gid wins, as getgrgid(3) returns the first
  for (const g of groups) if (!byGid.has(g.gid)) byGid.set(g.gid, g.name);
  const sorted = [...gids].sort((a, b) => a - b);
  return { uid, name, known: user !== undefined, gids: sorted, groups: sorted.flatMap((g) => byGid.get(g) ?? []) };
}

function readOrEmpty(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    // an unreadable database leaves the peer with its numbers only: fewer ACL keys apply, never more
    return '';
  }
}

export interface AccountFiles {
  passwd: string;
  group: string;
}

const SYSTEM_FILES: AccountFiles = { passwd: '/etc/passwd', group: '/etc/group' };

/** The account of uid/gid on this host, from /etc/passwd and /etc/group (or `files`, for tests). */
export function readLocalAccount(uid: number, gid: number, files: AccountFiles = SYSTEM_FILES): LocalAccount {
  return resolveAccount(uid, gid, parsePasswd(readOrEmpty(files.passwd)), parseGroup(readOrEmpty(files.group)));
}

/** A group id by name or number from /etc/group; undefined when no such group exists. */
export function lookupGroupId(group: string, file = SYSTEM_FILES.group): number | undefined {
  const entries = parseGroup(readOrEmpty(file));
  const found = entries.find((g) => g.name === group);
  if (found !== undefined) return found.gid;
  return /^\d+$/.test(group) ? Number(group) : undefined;
}
