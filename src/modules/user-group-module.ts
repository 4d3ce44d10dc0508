// The `user` and `group` modules, read-only: user.info, user.list_users, user.list_groups,
// user.getent, group.info, group.getent, with Salt's return shapes.

import type { ModuleFunction } from './types.js';
import { defineFunction } from './define-function.js';
import { findGroup, findUser, readGroups, readPasswd, type GroupEntry, type PasswdEntry } from './user-db.js';

/** The names of the groups a user belongs to: its primary group plus every group listing it. */
function groupsOf(user: PasswdEntry, groups: readonly GroupEntry[]): string[] {
  const names = new Set<string>();
  for (const g of groups) if (g.gid === user.gid || g.members.includes(user.name)) names.add(g.name);
  return [...names].sort();
}

/** Salt's user.info shape, the GECOS field split into its four parts and the rest. */
function userInfo(u: PasswdEntry, groups: readonly GroupEntry[]): Record<string, unknown> {
  const gecos = u.gecos.split(',');
  return {
    name: u.name,
    passwd: u.passwd,
    uid: u.uid,
    gid: u.gid,
    home: u.home,
    shell: u.shell,
    fullname: gecos[0] ?? '',
    roomnumber: gecos[1] ?? '',
    workphone: gecos[2] ?? '',
    homephone: gecos[3] ?? '',
    other: gecos.slice(4).join(','),
    groups: groupsOf(u, groups),
  };
}

function groupInfo(g: GroupEntry): Record<string, unknown> {
  return { name: g.name, passwd: g.passwd, gid: g.gid, members: [...g.members] };
}

const REFRESH = { name: 'refresh', type: 'bool' as const, default: false, doc: 'accepted for compatibility; the database is read on every call' };

export const userGroupFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'user.info',
    doc: 'Return {name, uid, gid, home, shell, fullname, ..., groups} for a user (name or uid), or {} if there is no such user.',
    params: [{ name: 'name', type: 'string', required: true, doc: 'user name or uid' }],
    run: async (_ctx, a) => {
      const users = await readPasswd('user.info');
      const u = findUser(users, a.named.name);
      return u ? userInfo(u, await readGroups('user.info')) : {};
    },
  }),
  defineFunction({
    name: 'user.list_users',
    doc: 'Return the names of all users, sorted.',
    params: [],
    run: async () => [...new Set((await readPasswd('user.list_users')).map((u) => u.name))].sort(),
  }),
  defineFunction({
    name: 'user.list_groups',
    doc: 'Return the names of the groups a user belongs to (primary group included), sorted.',
    params: [{ name: 'name', type: 'string', required: true, doc: 'user name' }],
    run: async (_ctx, a) => {
      const u = findUser(await readPasswd('user.list_groups'), a.named.name);
      return u ? groupsOf(u, await readGroups('user.list_groups')) : [];
    },
  }),
  defineFunction({
    name: 'user.getent',
    doc: 'Return user.info for every user, as a list.',
    params: [REFRESH],
    run: async () => {
      const groups = await readGroups('user.getent');
      return (await readPasswd('user.getent')).map((u) => userInfo(u, groups));
    },
  }),
  defineFunction({
    name: 'group.info',
    doc: 'Return {name, passwd, gid, members} for a group (name or gid), or {} if there is no such group.',
    params: [{ name: 'name', type: 'string', required: true, doc: 'group name or gid' }],
    run: async (_ctx, a) => {
      const g = findGroup(await readGroups('group.info'), a.named.name);
      return g ? groupInfo(g) : {};
    },
  }),
  defineFunction({
    name: 'group.getent',
    doc: 'Return group.info for every group, as a list (the list of all groups).',
    params: [REFRESH],
    run: async () => (await readGroups('group.getent')).map(groupInfo),
  }),
];
