// The host's user and group databases, read through `getent` (so NSS sources such as LDAP are
// included, as Python's pwd/grp modules do for Salt) or, without getent, from /etc/passwd and
// /etc/group.

import { readFile } from 'node:fs/promises';
import { BrineError } from '../util/errors.js';
import { runArgv, which } from './host-tools.js';

export { parseGroup, parsePasswd, type GroupEntry, type PasswdEntry } from '../util/account-db.js';
import { parseGroup, parsePasswd, type GroupEntry, type PasswdEntry } from '../util/account-db.js';

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
