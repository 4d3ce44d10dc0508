// Ownership and mode for the file states (Salt's check_perms): resolve user/group names once,
// decide which of user, group and mode differ on a path (a pure report, also used by
// test=True), then apply exactly those.

import type { Stats } from 'node:fs';
import { chmod, chown, lchown, lstat, stat } from 'node:fs/promises';
import { formatMode } from '../../modules/file-common.js';
import { findGroup, findUser, readGroups, readPasswd } from '../../modules/user-db.js';

/** The ownership and mode a state asks for; an absent field is left as it is. */
export interface PermSpec {
  user?: string;
  group?: string;
  mode?: number;
}

/** A PermSpec with names resolved to ids. */
export interface ResolvedPerms {
  uid?: number;
  gid?: number;
  user?: string;
  group?: string;
  mode?: number;
}

/**
 * A mode argument: '0644', 644 (a YAML int read as octal digits, as Salt does) or '0o644';
 * nothing given is no mode; anything else is a failed-state comment.
 */
export function modeArg(raw: unknown): { mode?: number } | { error: string } {
  if (raw === undefined || raw === null || raw === '') return {};
  const text = String(raw).trim().replace(/^0o/i, '');
  if (!/^[0-7]{1,4}$/.test(text)) return { error: `Invalid mode '${String(raw)}'; give octal digits such as 644 or '0755'` };
  return { mode: parseInt(text, 8) };
}

// An owner that does not exist yet in test mode: no id matches it, so every path reports the name
// as a change; -1 is also chown's "leave it" should it ever reach one
const UNKNOWN_ID = -1;

/**
 * Resolves user and group names (or numeric ids); an unknown one is Salt's "User x is not
 * available". With `testLenient` (test=True in file.managed, file.directory, file.recurse and
 * file.copy: Salt's _check_user) an unknown owner is not an error: a package installed earlier in
 * the same run usually creates it, so the change is reported by name instead.
 */
export async function resolvePerms(fun: string, spec: PermSpec, testLenient = false): Promise<ResolvedPerms | { error: string }> {
  const out: ResolvedPerms = {};
  if (spec.mode !== undefined) out.mode = spec.mode;
  if (spec.user !== undefined && spec.user !== '') {
    const u = findUser(await readPasswd(fun), spec.user);
    if (!u && !testLenient) return { error: `User ${spec.user} is not available; create it first (user.present) or fix the name` };
    out.uid = u ? u.uid : UNKNOWN_ID;
    out.user = spec.user;
  }
  if (spec.group !== undefined && spec.group !== '') {
    const g = findGroup(await readGroups(fun), spec.group);
    if (!g && !testLenient) return { error: `Group ${spec.group} is not available; create it first (group.present) or fix the name` };
    out.gid = g ? g.gid : UNKNOWN_ID;
    out.group = spec.group;
  }
  return out;
}

/** What would change on a path with these stats: Salt's changes keys `user`, `group`, `mode`. */
export function permChanges(st: Stats, want: ResolvedPerms, isLink = false): Record<string, string> {
  const changes: Record<string, string> = {};
  if (want.uid !== undefined && st.uid !== want.uid) changes.user = want.user ?? String(want.uid);
  if (want.gid !== undefined && st.gid !== want.gid) changes.group = want.group ?? String(want.gid);
  // A symlink's own mode means nothing on Linux; only its ownership is managed.
  if (!isLink && want.mode !== undefined && (st.mode & 0o7777) !== want.mode) changes.mode = formatMode(want.mode);
  return changes;
}

/** The changes `permChanges` reports for an existing path (followed unless it is a symlink we manage). */
export async function pathPermChanges(p: string, want: ResolvedPerms, link = false): Promise<Record<string, string>> {
  const st = link ? await lstat(p) : await stat(p);
  return permChanges(st, want, link);
}

/** Applies ownership, then mode (chown clears setuid bits, so the mode goes last). */
export async function applyPerms(p: string, want: ResolvedPerms, link = false): Promise<Record<string, string>> {
  const changes = await pathPermChanges(p, want, link);
  if (changes.user !== undefined || changes.group !== undefined) {
    const uid = changes.user !== undefined ? want.uid! : -1;
    const gid = changes.group !== undefined ? want.gid! : -1;
    await (link ? lchown(p, uid, gid) : chown(p, uid, gid));
  }
  const chowned = changes.user !== undefined || changes.group !== undefined;
  if (!link && want.mode !== undefined && (changes.mode !== undefined || chowned)) await chmod(p, want.mode);
  return changes;
}
