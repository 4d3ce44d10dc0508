import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { privilegedSkip } from '../../helpers/privileged.js';
import { runState } from './state-ctx.js';
import { onPath } from '../../helpers/paths.js';

const tools = ['useradd', 'usermod', 'userdel', 'groupadd', 'groupmod', 'groupdel', 'gpasswd', 'chpasswd', 'getent'];
const reason = process.getuid?.() !== 0 ? 'needs root to create users and groups' : tools.find((t) => !onPath(t)) ? `${tools.find((t) => !onPath(t))} is not installed` : false;
const skip = privilegedSkip('user/group states', reason);

const rnd = () => randomBytes(3).toString('hex');
const users: string[] = [];
const groups: string[] = [];
const dirs: string[] = [];
const newUser = () => {
  const u = `brinet${rnd()}`;
  users.push(u);
  return u;
};
const newGroup = () => {
  const g = `brinetg${rnd()}`;
  groups.push(g);
  return g;
};

after(() => {
  // Remove everything a test created, even when an assertion failed half-way.
  for (const u of users) spawnSync('userdel', ['-r', u], { stdio: 'ignore' });
  for (const g of groups) spawnSync('groupdel', [g], { stdio: 'ignore' });
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const getent = (db: string, key: string): string[] | undefined => {
  const r = spawnSync('getent', [db, key], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim().split(':') : undefined;
};
const groupsOf = (u: string) => execFileSync('id', ['-nG', u], { encoding: 'utf8' }).trim().split(' ').sort();

describe('user.present / user.absent with real accounts', { skip }, () => {
  it('creates a user with uid, groups, optional groups, home, shell, fullname and password hash; a second run changes nothing', async () => {
    const name = newUser();
    const g1 = newGroup();
    const g2 = newGroup();
    execFileSync('groupadd', [g1]);
    execFileSync('groupadd', [g2]);
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-home-'));
    dirs.push(home);
    const homeDir = path.join(home, name);
    const hash = execFileSync('openssl', ['passwd', '-6', '-salt', 'brinesalt', 'pw1'], { encoding: 'utf8' }).trim();
    const args = {
      name,
      uid: 47001 + Math.floor(Math.random() * 1000),
      groups: [g1],
      optional_groups: [g2, 'no-such-group-brine'],
      home: homeDir,
      shell: '/bin/sh',
      fullname: 'Brine Test',
      password: hash,
    };

    const dry = await runState('user.present', args, { test: true });
    assert.equal(dry.result, null);
    assert.equal(dry.comment, `User ${name} set to be added`);
    assert.equal(getent('passwd', name), undefined, 'test=True created nothing');

    const r = await runState('user.present', args);
    assert.equal(r.result, true, r.comment);
    assert.equal(r.comment, `New user ${name} created`);
    assert.equal(r.changes.password, 'XXX-REDACTED-XXX');
    const pw = getent('passwd', name)!;
    assert.equal(pw[2], String(args.uid));
    assert.equal(pw[4], 'Brine Test');
    assert.equal(pw[5], homeDir);
    assert.equal(pw[6], '/bin/sh');
    assert.ok(fs.statSync(homeDir).isDirectory(), 'createhome');
    assert.equal(getent('shadow', name)![1], hash);
    assert.deepEqual(groupsOf(name), [g1, g2, name].sort());

    const again = await runState('user.present', args);
    assert.deepEqual(again.changes, {});
    assert.equal(again.result, true);
    assert.equal(again.comment, `User ${name} is present and up to date`);
  });

  it('changes only what differs, reports each attribute, and removes unlisted groups (remove_groups)', async () => {
    const name = newUser();
    const g1 = newGroup();
    const g2 = newGroup();
    execFileSync('groupadd', [g1]);
    execFileSync('groupadd', [g2]);
    execFileSync('useradd', ['-M', '-G', g1, '-s', '/bin/sh', name]);
    const want = { name, shell: '/bin/bash', fullname: 'New Name', groups: [g2] };

    const dry = await runState('user.present', want, { test: true });
    assert.equal(dry.result, null);
    assert.equal(dry.comment, `The following user attributes are set to be changed:\nshell: /bin/bash\nfullname: New Name\ngroups: ${g2}\n`);
    assert.equal(getent('passwd', name)![6], '/bin/sh');

    const r = await runState('user.present', want);
    assert.equal(r.result, true, r.comment);
    assert.equal(r.comment, `Updated user ${name}`);
    assert.deepEqual(r.changes, { shell: '/bin/bash', fullname: 'New Name', groups: [g2] });
    assert.deepEqual(groupsOf(name), [g2, name].sort());
    assert.deepEqual((await runState('user.present', want)).changes, {});

    const keep = await runState('user.present', { name, groups: [g1], remove_groups: false });
    assert.deepEqual(keep.changes, { groups: [g1, g2].sort() });
    assert.deepEqual(groupsOf(name), [g1, g2, name].sort());
  });

  it('refuses a uid change without allow_uid_change, and a required group that does not exist', async () => {
    const name = newUser();
    execFileSync('useradd', ['-M', name]);
    const uid = getent('passwd', name)![2];
    const r = await runState('user.present', { name, uid: Number(uid) + 1 });
    assert.equal(r.result, false);
    assert.match(r.comment, new RegExp(`^Changing uid \\(${uid} -> ${Number(uid) + 1}\\) not permitted, set allow_uid_change to True`));
    assert.equal(getent('passwd', name)![2], uid);
    const g = await runState('user.present', { name, groups: ['no-such-group-brine'] });
    assert.equal(g.result, false);
    assert.equal(g.comment, 'The following group(s) are not present: no-such-group-brine');
  });

  it('user.absent removes the user (and its own group), then reports it absent', async () => {
    const name = newUser();
    execFileSync('useradd', ['-U', '-M', name]);
    const dry = await runState('user.absent', { name }, { test: true });
    assert.equal(dry.result, null);
    assert.ok(getent('passwd', name));
    const r = await runState('user.absent', { name });
    assert.equal(r.result, true, r.comment);
    assert.equal(r.comment, `Removed user ${name}`);
    assert.deepEqual(r.changes, { [`${name} group`]: 'removed', [name]: 'removed' });
    assert.equal(getent('passwd', name), undefined);
    const again = await runState('user.absent', { name });
    assert.deepEqual(again, { name, result: true, changes: {}, comment: `User ${name} is not present` });
  });
});

describe('group.present / group.absent with real groups', { skip }, () => {
  it('creates with gid and members, adjusts with addusers/delusers, and is idempotent', async () => {
    const name = newGroup();
    const u1 = newUser();
    const u2 = newUser();
    execFileSync('useradd', ['-M', u1]);
    execFileSync('useradd', ['-M', u2]);
    const gid = 48001 + Math.floor(Math.random() * 1000);

    const dry = await runState('group.present', { name, gid, members: [u1] }, { test: true });
    assert.equal(dry.result, null);
    assert.equal(getent('group', name), undefined);

    const r = await runState('group.present', { name, gid, members: [u1] });
    assert.equal(r.result, true, r.comment);
    assert.equal(r.comment, `New group ${name} created`);
    assert.deepEqual(getent('group', name), [name, 'x', String(gid), u1]);
    assert.deepEqual((await runState('group.present', { name, gid, members: [u1] })).changes, {});

    const adj = await runState('group.present', { name, addusers: [u2], delusers: [u1] });
    assert.equal(adj.result, true, adj.comment);
    assert.deepEqual(adj.changes, { members: [u2] });
    assert.equal(getent('group', name)![3], u2);

    const regid = await runState('group.present', { name, gid: gid + 1 });
    assert.deepEqual(regid.changes, { gid: gid + 1 });
    assert.equal(getent('group', name)![2], String(gid + 1));
  });

  it('a new user whose default group the run has not created yet: test=True would add it (Salt does not look); a real run fails', async () => {
    const name = newUser();
    const want = { name, gid: 'no-such-group-brine' };
    assert.deepEqual(await runState('user.present', want, { test: true }), { name, result: null, changes: {}, comment: `User ${name} set to be added` });
    const r = await runState('user.present', want);
    assert.deepEqual([r.result, r.comment], [false, 'The default group no-such-group-brine is not present']);
    assert.equal(getent('passwd', name), undefined);
  });

  it('members with addusers is a conflict; an unknown user is refused; nothing is created', async () => {
    const name = newGroup();
    const c = await runState('group.present', { name, members: ['root'], addusers: ['root'] });
    assert.equal(c.result, false);
    assert.match(c.comment, /Conflicting options "members" with "addusers"/);
    const u = await runState('group.present', { name, members: ['no-such-user-brine'] });
    assert.equal(u.result, false);
    assert.equal(u.comment, 'The following users do not exist: no-such-user-brine');
    assert.equal(getent('group', name), undefined);
    // test=True cannot know (the run may create the user first) and Salt's does not look
    const t = await runState('group.present', { name, members: ['no-such-user-brine'] }, { test: true });
    assert.deepEqual([t.result, t.comment], [null, `Group ${name} set to be added`]);
  });

  it('group.absent removes, then reports the group not present', async () => {
    const name = newGroup();
    execFileSync('groupadd', [name]);
    const r = await runState('group.absent', { name });
    assert.deepEqual(r, { name, result: true, changes: { [name]: '' }, comment: `Removed group ${name}` });
    assert.equal(getent('group', name), undefined);
    assert.equal((await runState('group.absent', { name })).comment, 'Group not present');
  });
});
