// user.present and user.absent: compare the account (user.info, shadow.info) with what the SLS
// asks for, change only what differs with the user.* functions, and report Salt's per-attribute
// changes (the password hash is never shown).

import { BrineError } from '../../util/errors.js';
import { defineState, type StateContext, type StateFunction } from '../types.js';
import { callFn, defined, stateResult } from './state-result.js';

const REDACTED = 'XXX-REDACTED-XXX';

interface UserInfo {
  name: string;
  uid: number;
  gid: number;
  home: string;
  shell: string;
  fullname: string;
  groups: string[];
}

interface GroupInfo {
  name: string;
  gid: number;
}

const PARAMS = [
  { name: 'name', type: 'string', required: true, doc: 'the user name' },
  { name: 'uid', type: 'int', doc: 'the uid' },
  { name: 'gid', type: 'any', doc: 'the primary group (gid or name)' },
  { name: 'usergroup', type: 'bool', doc: 'create a group named after the user (when gid is not given)' },
  { name: 'groups', type: 'any', doc: 'supplementary groups the user must be in (each must exist)' },
  { name: 'optional_groups', type: 'any', doc: 'supplementary groups added when they exist' },
  { name: 'remove_groups', type: 'bool', default: true, doc: 'remove the user from groups not listed in groups/optional_groups' },
  { name: 'home', type: 'string', doc: 'the home directory' },
  { name: 'createhome', type: 'bool', default: true, doc: 'create the home directory for a new user' },
  { name: 'password', type: 'string', doc: "the password hash (e.g. from 'openssl passwd -6')" },
  { name: 'enforce_password', type: 'bool', default: true, doc: 'set the password when the current hash differs' },
  { name: 'shell', type: 'string', doc: 'the login shell' },
  { name: 'fullname', type: 'string', doc: 'the full name (GECOS)' },
  { name: 'system', type: 'bool', default: false, doc: 'create a system account' },
  { name: 'allow_uid_change', type: 'bool', default: false, doc: 'allow changing the uid of an existing user' },
  { name: 'allow_gid_change', type: 'bool', default: false, doc: 'allow changing the primary group of an existing user' },
] as const;

function nameList(v: unknown): string[] {
  if (v === undefined || v === null || v === '') return [];
  return (Array.isArray(v) ? v.map(String) : String(v).split(',')).map((s) => s.trim()).filter((s) => s !== '');
}

/** The gid a gid argument names (a number, or a group by name), or undefined when no such group. */
function resolveGid(gid: unknown, groups: readonly GroupInfo[]): number | undefined {
  if (typeof gid === 'number' || /^\d+$/.test(String(gid))) return Number(gid);
  return groups.find((g) => g.name === String(gid))?.gid;
}

interface Want {
  uid?: number;
  gid?: number;
  home?: string;
  shell?: string;
  fullname?: string;
  /** The supplementary groups the user should end up in (primary group excluded). */
  groups?: string[];
  passwd?: string;
}

/** What would change: {attribute: wanted value}. Pure; the same for test=True and for the real run. */
function changesFor(cur: UserInfo, curHash: string | undefined, want: Want, primaryName: string | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (want.uid !== undefined && want.uid !== cur.uid) out.uid = want.uid;
  if (want.gid !== undefined && want.gid !== cur.gid) out.gid = want.gid;
  if (want.home !== undefined && want.home !== cur.home) out.home = want.home;
  if (want.shell !== undefined && want.shell !== cur.shell) out.shell = want.shell;
  if (want.fullname !== undefined && want.fullname !== cur.fullname) out.fullname = want.fullname;
  if (want.groups !== undefined) {
    const have = cur.groups.filter((g) => g !== primaryName).sort();
    if (JSON.stringify(have) !== JSON.stringify([...want.groups].sort())) out.groups = [...want.groups].sort();
  }
  if (want.passwd !== undefined && want.passwd !== curHash) out.passwd = REDACTED;
  return out;
}

async function info(ctx: StateContext, name: string): Promise<{ user?: UserInfo; hash?: string; groups: GroupInfo[] }> {
  const u = await callFn<UserInfo | Record<string, never>>(ctx, 'user.info', [name]);
  if (!u.ok) throw new BrineError('EXEC_FAILED', u.message);
  const g = await callFn<GroupInfo[]>(ctx, 'group.getent');
  if (!g.ok) throw new BrineError('EXEC_FAILED', g.message);
  const user = 'uid' in u.value ? (u.value as UserInfo) : undefined;
  let hash: string | undefined;
  if (user) {
    const s = await callFn<{ passwd?: string }>(ctx, 'shadow.info', [name]);
    hash = s.ok ? s.value.passwd : undefined;
  }
  return { user, hash, groups: g.value };
}

const present = defineState({
  name: 'user.present',
  doc: 'Make sure a user exists with the given uid, groups, home, shell, full name and password hash.',
  params: PARAMS,
  example:
    "deploy:\n  user.present:\n    - uid: 2001\n    - gid: deploy\n    - groups:\n      - www-data\n    - optional_groups:\n      - docker\n    - home: /srv/deploy\n    - shell: /bin/bash\n    - fullname: Deploy Bot\n    - password: '$6$abcdefgh$...'",
  run: async (ctx, a) => {
    const n = a.named;
    const name = n.name;
    const { user, hash, groups } = await info(ctx, name);
    const exists = (g: string) => groups.some((x) => x.name === g);
    const required = nameList(n.groups);
    const missing = required.filter((g) => !exists(g));
    if (missing.length) return stateResult(name, false, `The following group(s) are not present: ${missing.join(',')}`);
    const optional = nameList(n.optional_groups).filter(exists);
    const listed = [...new Set([...required, ...optional])];
    let gid: number | undefined;
    if (n.gid !== undefined && n.gid !== null) {
      gid = resolveGid(n.gid, groups);
      // Salt does not look it up for a user a test run would add (the run may create the group first)
      if (gid === undefined && !(ctx.test && !user)) return stateResult(name, false, `The default group ${String(n.gid)} is not present`);
    }
    const primaryName = (g: number | undefined) => groups.find((x) => x.gid === g)?.name;

    if (!user) {
      if (ctx.test) return stateResult(name, null, `User ${name} set to be added`);
      const add = await callFn(
        ctx,
        'user.add',
        [name],
        defined({ uid: n.uid, gid: n.gid, usergroup: n.usergroup, groups: listed, home: n.home, shell: n.shell, fullname: n.fullname, createhome: n.createhome, system: n.system }),
      );
      if (!add.ok) return stateResult(name, false, `Failed to create new user ${name}: ${add.message}`);
      if (n.password !== undefined) {
        const pw = await callFn(ctx, 'shadow.set_password', [name, n.password]);
        if (!pw.ok) return stateResult(name, false, `User ${name} created, but setting its password failed: ${pw.message}`);
      }
      const after = await callFn<Record<string, unknown>>(ctx, 'user.info', [name]);
      const changes: Record<string, unknown> = after.ok ? { ...after.value } : { name };
      if (n.password !== undefined) changes.password = REDACTED;
      return stateResult(name, true, `New user ${name} created`, changes);
    }

    // With remove_groups False the listed groups are only added to the current ones.
    const wantGroups =
      n.groups === undefined && n.optional_groups === undefined ? undefined : n.remove_groups ? listed : [...new Set([...user.groups.filter((g) => g !== primaryName(gid ?? user.gid)), ...listed])];
    const want: Want = { uid: n.uid, gid, home: n.home, shell: n.shell, fullname: n.fullname, groups: wantGroups, passwd: n.enforce_password ? n.password : undefined };
    const changes = changesFor(user, hash, want, primaryName(gid ?? user.gid));
    if (changes.uid !== undefined && !n.allow_uid_change) {
      return stateResult(
        name,
        false,
        `Changing uid (${user.uid} -> ${String(changes.uid)}) not permitted, set allow_uid_change to True to force this change. Note that this will not change file ownership.`,
      );
    }
    if (changes.gid !== undefined && !n.allow_gid_change) {
      return stateResult(
        name,
        false,
        `Changing gid (${user.gid} -> ${String(changes.gid)}) not permitted, set allow_gid_change to True to force this change. Note that this will not change file ownership.`,
      );
    }
    if (Object.keys(changes).length === 0) return stateResult(name, true, `User ${name} is present and up to date`);
    if (ctx.test) {
      const lines = Object.entries(changes).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}`);
      return stateResult(name, null, `The following user attributes are set to be changed:\n${lines.join('\n')}\n`);
    }
    const steps: [string, unknown[]][] = [];
    if (changes.uid !== undefined) steps.push(['user.chuid', [name, changes.uid]]);
    if (changes.gid !== undefined) steps.push(['user.chgid', [name, changes.gid]]);
    if (changes.home !== undefined) steps.push(['user.chhome', [name, changes.home]]);
    if (changes.shell !== undefined) steps.push(['user.chshell', [name, changes.shell]]);
    if (changes.fullname !== undefined) steps.push(['user.chfullname', [name, changes.fullname]]);
    if (changes.groups !== undefined) steps.push(['user.chgroups', [name, changes.groups]]);
    if (changes.passwd !== undefined) steps.push(['shadow.set_password', [name, n.password]]);
    const done: Record<string, unknown> = {};
    for (const [fun, arg] of steps) {
      const r = await callFn(ctx, fun, arg);
      if (!r.ok) return stateResult(name, false, `These values could not be changed: ${fun.replace(/^(user|shadow)\.(ch|set_)?/, '')}: ${r.message}`, done);
      const key = Object.keys(changes).find((k) => fun.endsWith(k === 'passwd' ? 'set_password' : `ch${k}`))!;
      done[key] = changes[key];
    }
    return stateResult(name, true, `Updated user ${name}`, done);
  },
});

const absent = defineState({
  name: 'user.absent',
  doc: 'Make sure a user does not exist (purge: True also deletes its home directory and mail).',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'the user name' },
    { name: 'purge', type: 'bool', default: false, doc: 'delete the home directory and mail spool too' },
    { name: 'force', type: 'bool', default: false, doc: 'delete even while the user is logged in' },
  ],
  example: 'olduser:\n  user.absent:\n    - purge: True',
  run: async (ctx, a) => {
    const { name, purge, force } = a.named;
    const u = await callFn<Record<string, unknown>>(ctx, 'user.info', [name]);
    if (!u.ok) return stateResult(name, false, u.message);
    if (Object.keys(u.value).length === 0) return stateResult(name, true, `User ${name} is not present`);
    if (ctx.test) return stateResult(name, null, `User ${name} set for removal`);
    const before = await callFn<GroupInfo[]>(ctx, 'group.getent');
    const del = await callFn(ctx, 'user.delete', [name], { remove: purge, force });
    if (!del.ok) return stateResult(name, false, `Failed to remove user ${name}: ${del.message}`);
    const after = await callFn<GroupInfo[]>(ctx, 'group.getent');
    const changes: Record<string, unknown> = {};
    // userdel also removes the user's own group when nobody else uses it; Salt reports that.
    if (before.ok && after.ok) for (const g of before.value) if (!after.value.some((x) => x.name === g.name)) changes[`${g.name} group`] = 'removed';
    changes[name] = 'removed';
    return stateResult(name, true, `Removed user ${name}`, changes);
  },
});

export const userStates: readonly StateFunction[] = [present, absent];
