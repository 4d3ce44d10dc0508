// group.present and group.absent: gid and membership (members replaces the list; addusers and
// delusers adjust it), changed only where they differ, with Salt's comments.

import { defineState, type StateFunction } from '../types.js';
import { callFn, defined, stateResult } from './state-result.js';

interface GroupInfo {
  name: string;
  gid: number;
  members: string[];
}

function nameList(v: unknown): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  return (Array.isArray(v) ? v.map(String) : String(v).split(',')).map((s) => s.trim()).filter((s) => s !== '');
}

/** The member list the group should have, from members or addusers/delusers. */
export function wantedMembers(current: readonly string[], members?: string[], addusers?: string[], delusers?: string[]): string[] {
  if (members !== undefined) return [...new Set(members)].sort();
  const out = new Set(current);
  for (const u of addusers ?? []) out.add(u);
  for (const u of delusers ?? []) out.delete(u);
  return [...out].sort();
}

const present = defineState({
  name: 'group.present',
  doc: 'Make sure a group exists with the given gid and members.',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'the group name' },
    { name: 'gid', type: 'int', doc: 'the gid' },
    { name: 'system', type: 'bool', default: false, doc: 'create a system group' },
    { name: 'members', type: 'any', doc: 'the complete member list (replaces the current one)' },
    { name: 'addusers', type: 'any', doc: 'users to add to the group' },
    { name: 'delusers', type: 'any', doc: 'users to remove from the group' },
  ],
  example: 'developers:\n  group.present:\n    - gid: 3000\n    - addusers:\n      - alice\n      - bob\n    - delusers:\n      - mallory',
  run: async (ctx, a) => {
    const n = a.named;
    const name = n.name;
    const members = nameList(n.members);
    const addusers = nameList(n.addusers);
    const delusers = nameList(n.delusers);
    if (members !== undefined && (addusers !== undefined || delusers !== undefined)) {
      return stateResult(name, false, 'Error: Conflicting options "members" with "addusers" and/or "delusers" can not be used together.');
    }
    const both = (addusers ?? []).filter((u) => (delusers ?? []).includes(u));
    if (both.length) return stateResult(name, false, `Error. Same user(s) can not be added and deleted simultaneously: ${both.join(', ')}`);
    // A real run refuses members that do not exist (Salt would fail after half-applying them);
    // a test run cannot know, as the same run may create them (users-formula's pillar.example
    // puts openldap in ssl-cert), and Salt's test run does not look
    if (!ctx.test) {
      const users = await callFn<{ name: string }[]>(ctx, 'user.getent');
      if (!users.ok) return stateResult(name, false, users.message);
      const unknown = [...(members ?? []), ...(addusers ?? [])].filter((u) => !users.value.some((x) => x.name === u));
      if (unknown.length) return stateResult(name, false, `The following users do not exist: ${[...new Set(unknown)].join(', ')}`);
    }

    const info = await callFn<GroupInfo | Record<string, never>>(ctx, 'group.info', [name]);
    if (!info.ok) return stateResult(name, false, info.message);
    const cur = 'gid' in info.value ? (info.value as GroupInfo) : undefined;
    const touchesMembers = members !== undefined || addusers !== undefined || delusers !== undefined;

    if (!cur) {
      if (ctx.test) return stateResult(name, null, `Group ${name} set to be added`);
      const add = await callFn(ctx, 'group.add', [name], defined({ gid: n.gid, system: n.system }));
      if (!add.ok) return stateResult(name, false, `Failed to create new group ${name}: ${add.message}`);
      if (touchesMembers) {
        const m = await callFn(ctx, 'group.members', [name, wantedMembers([], members, addusers, delusers)]);
        if (!m.ok) return stateResult(name, false, `Group ${name} created, but setting its members failed: ${m.message}`);
      }
      const after = await callFn<Record<string, unknown>>(ctx, 'group.info', [name]);
      return stateResult(name, true, `New group ${name} created`, after.ok ? after.value : { name });
    }

    const changes: Record<string, unknown> = {};
    if (n.gid !== undefined && n.gid !== cur.gid) changes.gid = n.gid;
    const wanted = wantedMembers(cur.members, members, addusers, delusers);
    if (touchesMembers && JSON.stringify(wanted) !== JSON.stringify([...cur.members].sort())) changes.members = wanted;
    if (Object.keys(changes).length === 0) return stateResult(name, true, `Group ${name} is present and up to date`);
    if (ctx.test) {
      const lines = Object.entries(changes).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}`);
      return stateResult(name, null, `The following group attributes are set to be changed:\n${lines.join('\n')}\n`);
    }
    if (changes.gid !== undefined) {
      const r = await callFn(ctx, 'group.chgid', [name, changes.gid]);
      if (!r.ok) return stateResult(name, false, `Failed to change the gid of group ${name}: ${r.message}`);
    }
    if (changes.members !== undefined) {
      const r = await callFn(ctx, 'group.members', [name, changes.members]);
      if (!r.ok) return stateResult(name, false, `Failed to change the members of group ${name}: ${r.message}`, changes.gid !== undefined ? { gid: changes.gid } : {});
    }
    return stateResult(name, true, `Updated group ${name}`, changes);
  },
});

const absent = defineState({
  name: 'group.absent',
  doc: 'Make sure a group does not exist.',
  params: [{ name: 'name', type: 'string', required: true, doc: 'the group name' }],
  example: 'games:\n  group.absent: []',
  run: async (ctx, a) => {
    const name = a.named.name;
    const info = await callFn<Record<string, unknown>>(ctx, 'group.info', [name]);
    if (!info.ok) return stateResult(name, false, info.message);
    if (Object.keys(info.value).length === 0) return stateResult(name, true, 'Group not present');
    if (ctx.test) return stateResult(name, null, `Group ${name} is set for removal`);
    const del = await callFn(ctx, 'group.delete', [name]);
    if (!del.ok) return stateResult(name, false, `Failed to remove group ${name}: ${del.message}`);
    return stateResult(name, true, `Removed group ${name}`, { [name]: '' });
  },
});

export const groupStates: readonly StateFunction[] = [present, absent];
