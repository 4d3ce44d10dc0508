// The host's user and group databases, read through `getent` (so NSS sources such as LDAP are
// included, as Python's pwd/grp modules do for Salt) or, without getent, from /etc/passwd and
// /etc/group.

import { readFile } from 'node:fs/promises';
import { BrineError } from '../util/errors.js';
import { runArgv, which } from './host-tools.js';

export interface PasswdEntry {
  name: string;
  passwd: string;
  uid: number;
  gid: number;
  gecos: string;
  home: string;
  shell: string;
}

export interface GroupEntry {
  name: string;
  passwd: string;
  gid: number;
  members: string[];
}

export function parsePasswd(text: string): PasswdEntry[] {
  const out: PasswdEntry[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const f = line.split(':');
    if (f.length < 7) continue;
    out.push({ name: f[0]!, passwd: f[1]!, uid: Number(f[2]), gid: Number(f[3]), gecos: f[4]!, home: f[5]!, shell: f.slice(6).join(':') });
  }
  return out;
}

export function parseGroup(text: string): GroupEntry[] {
  const out: GroupEntry[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const f = line.split(':');
    if (f.length < 4) continue;
    out.push({ name: f[0]!, passwd: f[1]!, gid: Number(f[2]), members: f[3]!.split(',').filter((m) => m !== '') });
  }
  return out;
}

async function database(label: string, db: 'passwd' | 'group', file: string): Promise<string> {
  if (which('getent')) {
    const r = await runArgv(label, ['getent', db]);
    if (r.retcode === 0) return r.stdout;
  }
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new BrineError('EXEC_FAILED', `${label}: cannot read ${file} and getent is not available; check that the file exists and is readable`, { cause: err });
  }
}

export async function readPasswd(label: string): Promise<PasswdEntry[]> {
  return parsePasswd(await database(label, 'passwd', '/etc/passwd'));
}

export async function readGroups(label: string): Promise<GroupEntry[]> {
  return parseGroup(await database(label, 'group', '/etc/group'));
}

/** A user by name or numeric uid (Salt's user_to_uid accepts both). */
export function findUser(users: readonly PasswdEntry[], who: string | number): PasswdEntry | undefined {
  const text = String(who);
  return users.find((u) => u.name === text) ?? (/^\d+$/.test(text) ? users.find((u) => u.uid === Number(text)) : undefined);
}

export function findGroup(groups: readonly GroupEntry[], which_: string | number): GroupEntry | undefined {
  const text = String(which_);
  return groups.find((g) => g.name === text) ?? (/^\d+$/.test(text) ? groups.find((g) => g.gid === Number(text)) : undefined);
}
