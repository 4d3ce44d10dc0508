// The changing half of the `user` and `group` modules (user.add, user.chuid, group.adduser ...)
// and `shadow.info`/`shadow.set_password`, all through the shadow-utils programs (useradd,
// usermod, userdel, groupadd, groupmod, groupdel, gpasswd, chpasswd) with argv arrays.

import { BrineError } from '../util/errors.js';
import { checkName, runArgv, runChecked } from './host-tools.js';
import type { ModuleFunction } from './types.js';
import { defineFunction } from './define-function.js';
import { findGroup, findUser, readGroups, readPasswd } from './user-db.js';

// POSIX-ish account names (plus Samba's trailing '$'); never a leading '-'.
export const ACCOUNT_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*\$?$/;
// passwd/group fields are ':'-separated lines: no ':' and no line breaks inside a field.
const FIELD = /^[^:\n\r\0]*$/;
// A crypt(3) hash, or a locked/empty marker ('!', '*', '!!', '').
const HASH = /^[!*]*(\$[A-Za-z0-9./$=,-]+)?$/;

function user(fun: string, name: string): string {
  return checkName(fun, 'user name', name, ACCOUNT_NAME);
}

function group(fun: string, name: string): string {
  return checkName(fun, 'group name', name, ACCOUNT_NAME);
}

function id(fun: string, what: string, value: unknown): string {
  const text = String(value);
  if (!/^\d+$/.test(text)) throw new BrineError('BAD_ARGUMENTS', `${fun}: ${what} must be a non-negative integer, got '${text}'`);
  return text;
}

/** A gid given as a number or as a group name (Salt accepts both). */
function gidArg(fun: string, value: unknown): string {
  return /^\d+$/.test(String(value)) ? String(value) : group(fun, String(value));
}

function absPath(fun: string, what: string, value: string): string {
  if (!value.startsWith('/') || !FIELD.test(value) || value.includes(',')) throw new BrineError('BAD_ARGUMENTS', `${fun}: ${what} must be an absolute path without ':' or line breaks, got '${value}'`);
  return value;
}

function field(fun: string, what: string, value: unknown): string {
  const text = value === null || value === undefined ? '' : String(value);
  if (!FIELD.test(text) || text.includes(',')) throw new BrineError('BAD_ARGUMENTS', `${fun}: ${what} must not contain ':', ',' or line breaks`);
  return text;
}

/** groups as Salt takes them: a list or a comma-separated string. */
export function groupList(fun: string, value: unknown): string[] {
  if (value === null || value === undefined || value === '') return [];
  const items = Array.isArray(value) ? value.map(String) : String(value).split(',');
  return items
    .map((g) => g.trim())
    .filter((g) => g !== '')
    .map((g) => group(fun, g));
}

async function requireUser(fun: string, name: string) {
  const u = findUser(await readPasswd(fun), user(fun, name));
  if (!u || u.name !== name) throw new BrineError('EXEC_FAILED', `${fun}: user '${name}' does not exist; create it with user.add`);
  return u;
}

async function requireGroup(fun: string, name: string) {
  const g = findGroup(await readGroups(fun), group(fun, name));
  if (!g || g.name !== name) throw new BrineError('EXEC_FAILED', `${fun}: group '${name}' does not exist; create it with group.add`);
  return g;
}

const NAME = { name: 'name', type: 'string', required: true, doc: 'user name' } as const;
const GNAME = { name: 'name', type: 'string', required: true, doc: 'group name' } as const;

export const userAdminFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'user.add',
    doc: 'Create a user with useradd; true on success.',
    params: [
      NAME,
      { name: 'uid', type: 'any', doc: 'numeric uid (default: the next free one)' },
      { name: 'gid', type: 'any', doc: 'primary group, name or gid (default: a group named after the user)' },
      { name: 'groups', type: 'any', doc: 'supplementary groups, a list or comma-separated' },
      { name: 'home', type: 'string', doc: 'home directory (default: /home/<name>)' },
      { name: 'shell', type: 'string', doc: 'login shell' },
      { name: 'unique', type: 'bool', default: true, doc: 'refuse a uid another user has' },
      { name: 'system', type: 'bool', default: false, doc: 'a system account (uid from the system range, no aging)' },
      { name: 'fullname', type: 'string', default: '', doc: 'GECOS full name' },
      { name: 'roomnumber', type: 'string', default: '', doc: 'GECOS room number' },
      { name: 'workphone', type: 'string', default: '', doc: 'GECOS work phone' },
      { name: 'homephone', type: 'string', default: '', doc: 'GECOS home phone' },
      { name: 'other', type: 'string', default: '', doc: 'GECOS other field' },
      { name: 'createhome', type: 'bool', default: true, doc: 'create the home directory from /etc/skel' },
      { name: 'usergroup', type: 'bool', doc: 'create a group named after the user (default: useradd’s USERGROUPS_ENAB, unless gid is given)' },
    ],
    run: async (_ctx, a) => {
      const fun = 'user.add';
      const n = a.named;
      const argv = ['useradd'];
      if (n.uid !== undefined && n.uid !== null) argv.push('-u', id(fun, 'uid', n.uid));
      if (!n.unique) argv.push('-o');
      if (n.gid !== undefined && n.gid !== null) argv.push('-g', gidArg(fun, n.gid));
      if (n.usergroup === true && (n.gid === undefined || n.gid === null)) argv.push('-U');
      if (n.usergroup === false || (n.gid !== undefined && n.gid !== null)) argv.push('-N');
      const groups = groupList(fun, n.groups);
      if (groups.length) argv.push('-G', groups.join(','));
      if (n.home !== undefined) argv.push('-d', absPath(fun, 'home', n.home));
      if (n.shell !== undefined) argv.push('-s', absPath(fun, 'shell', n.shell));
      const gecos = [n.fullname, n.roomnumber, n.workphone, n.homephone, n.other].map((v, i) => field(fun, ['fullname', 'roomnumber', 'workphone', 'homephone', 'other'][i]!, v));
      while (gecos.length > 1 && gecos.at(-1) === '') gecos.pop();
      if (gecos.join('') !== '') argv.push('-c', gecos.join(','));
      if (n.system) argv.push('-r');
      argv.push(n.createhome ? '-m' : '-M', '--', user(fun, n.name));
      await runChecked(fun, argv);
      return true;
    },
  }),
  defineFunction({
    name: 'user.delete',
    doc: 'Delete a user with userdel (remove=True also deletes the home directory and mail spool); true on success.',
    params: [
      NAME,
      { name: 'remove', type: 'bool', default: false, doc: 'delete the home directory and mail spool too' },
      { name: 'force', type: 'bool', default: false, doc: 'delete even if the user is logged in' },
    ],
    run: async (_ctx, a) => {
      const fun = 'user.delete';
      await requireUser(fun, a.named.name);
      const argv = ['userdel'];
      if (a.named.remove) argv.push('-r');
      if (a.named.force) argv.push('-f');
      argv.push('--', a.named.name);
      const r = await runArgv(fun, argv);
      // userdel -r exits 12 when only the home directory could not be removed (already gone).
      if (r.retcode !== 0 && !(a.named.remove && r.retcode === 12)) {
        throw new BrineError('EXEC_FAILED', `${fun}: '${argv.join(' ')}' failed with exit code ${r.retcode}: ${r.stderr.trim() || r.stdout.trim()}`);
      }
      return true;
    },
  }),
  usermod('user.chuid', 'Change a user’s uid; true on success.', { name: 'uid', type: 'any', required: true, doc: 'new uid' }, (fun, v) => ['-u', id(fun, 'uid', v)]),
  usermod('user.chgid', 'Change a user’s primary group; true on success.', { name: 'gid', type: 'any', required: true, doc: 'new primary group, gid or name' }, (fun, v) => ['-g', gidArg(fun, v)]),
  usermod('user.chshell', 'Change a user’s login shell; true on success.', { name: 'shell', type: 'string', required: true, doc: 'new shell' }, (fun, v) => ['-s', absPath(fun, 'shell', String(v))]),
  defineFunction({
    name: 'user.chhome',
    doc: 'Change a user’s home directory (persist=True moves the old one there); true on success.',
    params: [NAME, { name: 'home', type: 'string', required: true, doc: 'new home directory' }, { name: 'persist', type: 'bool', default: false, doc: 'move the contents of the old home' }],
    run: async (_ctx, a) => {
      const fun = 'user.chhome';
      await requireUser(fun, a.named.name);
      await runChecked(fun, ['usermod', '-d', absPath(fun, 'home', a.named.home), ...(a.named.persist ? ['-m'] : []), '--', a.named.name]);
      return true;
    },
  }),
  defineFunction({
    name: 'user.chgroups',
    doc: 'Set a user’s supplementary groups (append=True adds to them instead); true on success.',
    params: [NAME, { name: 'groups', type: 'any', required: true, doc: 'a list or comma-separated names' }, { name: 'append', type: 'bool', default: false, doc: 'add to the current groups' }],
    run: async (_ctx, a) => {
      const fun = 'user.chgroups';
      await requireUser(fun, a.named.name);
      const groups = groupList(fun, a.named.groups);
      if (a.named.append && groups.length === 0) return true;
      await runChecked(fun, ['usermod', ...(a.named.append ? ['-a'] : []), '-G', groups.join(','), '--', a.named.name]);
      return true;
    },
  }),
  defineFunction({
    name: 'user.chfullname',
    doc: 'Change the full name (first GECOS field) of a user, keeping the other fields; true on success.',
    params: [NAME, { name: 'fullname', type: 'string', required: true, doc: 'new full name' }],
    run: async (_ctx, a) => {
      const fun = 'user.chfullname';
      const u = await requireUser(fun, a.named.name);
      const gecos = u.gecos.split(',');
      gecos[0] = field(fun, 'fullname', a.named.fullname);
      await runChecked(fun, ['usermod', '-c', gecos.join(','), '--', a.named.name]);
      return true;
    },
  }),
  defineFunction({
    name: 'shadow.info',
    doc: 'Return {name, passwd, lstchg, min, max, warn, inact, expire} from the shadow database, or {} if there is no such user.',
    params: [NAME],
    run: async (_ctx, a) => {
      const fun = 'shadow.info';
      const r = await runArgv(fun, ['getent', 'shadow', '--', user(fun, a.named.name)]);
      if (r.retcode === 2) return {};
      if (r.retcode !== 0) throw new BrineError('EXEC_FAILED', `${fun}: cannot read the shadow database (getent exit ${r.retcode}); the minion must run as root to read it`);
      const f = r.stdout.trim().split(':');
      const num = (v: string | undefined) => (v === undefined || v === '' ? '' : Number(v));
      return { name: f[0], passwd: f[1] ?? '', lstchg: num(f[2]), min: num(f[3]), max: num(f[4]), warn: num(f[5]), inact: num(f[6]), expire: num(f[7]) };
    },
  }),
  defineFunction({
    name: 'shadow.set_password',
    doc: 'Set a user’s password to an already hashed value (crypt(3) format, e.g. from openssl passwd -6); true on success.',
    params: [NAME, { name: 'password', type: 'string', required: true, doc: 'the hash, e.g. $6$salt$...' }],
    run: async (_ctx, a) => {
      const fun = 'shadow.set_password';
      await requireUser(fun, a.named.name);
      if (!HASH.test(a.named.password))
        throw new BrineError('BAD_ARGUMENTS', `${fun}: password must be a crypt(3) hash such as '$6$salt$hash' (make one with 'openssl passwd -6'), not a clear-text password`);
      // On stdin, never in argv: a hash in argv is visible to every local user through ps.
      await runChecked(fun, ['chpasswd', '-e'], { stdin: `${a.named.name}:${a.named.password}\n` });
      return true;
    },
  }),
  defineFunction({
    name: 'group.add',
    doc: 'Create a group with groupadd; true on success.',
    params: [GNAME, { name: 'gid', type: 'any', doc: 'numeric gid (default: the next free one)' }, { name: 'system', type: 'bool', default: false, doc: 'a system group' }],
    run: async (_ctx, a) => {
      const fun = 'group.add';
      const argv = ['groupadd'];
      if (a.named.gid !== undefined && a.named.gid !== null) argv.push('-g', id(fun, 'gid', a.named.gid));
      if (a.named.system) argv.push('-r');
      argv.push('--', group(fun, a.named.name));
      await runChecked(fun, argv);
      return true;
    },
  }),
  defineFunction({
    name: 'group.delete',
    doc: 'Delete a group with groupdel; true on success.',
    params: [GNAME],
    run: async (_ctx, a) => {
      await requireGroup('group.delete', a.named.name);
      await runChecked('group.delete', ['groupdel', '--', a.named.name]);
      return true;
    },
  }),
  defineFunction({
    name: 'group.chgid',
    doc: 'Change a group’s gid; true on success.',
    params: [GNAME, { name: 'gid', type: 'any', required: true, doc: 'new gid' }],
    run: async (_ctx, a) => {
      await requireGroup('group.chgid', a.named.name);
      await runChecked('group.chgid', ['groupmod', '-g', id('group.chgid', 'gid', a.named.gid), '--', a.named.name]);
      return true;
    },
  }),
  defineFunction({
    name: 'group.adduser',
    doc: 'Add a user to a group; true on success.',
    params: [GNAME, { name: 'username', type: 'string', required: true, doc: 'user to add' }],
    run: async (_ctx, a) => {
      await requireGroup('group.adduser', a.named.name);
      await requireUser('group.adduser', a.named.username);
      await runChecked('group.adduser', ['gpasswd', '-a', a.named.username, '--', a.named.name]);
      return true;
    },
  }),
  defineFunction({
    name: 'group.deluser',
    doc: 'Remove a user from a group; true on success (also when the user was not a member).',
    params: [GNAME, { name: 'username', type: 'string', required: true, doc: 'user to remove' }],
    run: async (_ctx, a) => {
      const g = await requireGroup('group.deluser', a.named.name);
      user('group.deluser', a.named.username);
      if (!g.members.includes(a.named.username)) return true;
      await runChecked('group.deluser', ['gpasswd', '-d', a.named.username, '--', a.named.name]);
      return true;
    },
  }),
  defineFunction({
    name: 'group.members',
    doc: 'Replace a group’s members with the given users (comma-separated or a list); true on success.',
    params: [GNAME, { name: 'members_list', type: 'any', required: true, doc: 'the complete member list' }],
    run: async (_ctx, a) => {
      const fun = 'group.members';
      await requireGroup(fun, a.named.name);
      const members = (Array.isArray(a.named.members_list) ? a.named.members_list.map(String) : String(a.named.members_list ?? '').split(','))
        .map((m) => m.trim())
        .filter((m) => m !== '')
        .map((m) => user(fun, m));
      await runChecked(fun, ['gpasswd', '-M', members.join(','), '--', a.named.name]);
      return true;
    },
  }),
];

function usermod(name: string, doc: string, param: { name: string; type: 'any' | 'string'; required: true; doc: string }, flag: (fun: string, v: unknown) => string[]): ModuleFunction {
  return defineFunction({
    name,
    doc,
    params: [NAME, param],
    run: async (_ctx, a) => {
      await requireUser(name, a.named.name);
      await runChecked(name, ['usermod', ...flag(name, (a.named as Record<string, unknown>)[param.name]), '--', a.named.name]);
      return true;
    },
  });
}
