// uid/gid -> the account publisher_acl keys refer to: the passwd name, the primary and
// supplementary groups from /etc/group (as getgrouplist), and what an unknown uid becomes.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseGroup, parsePasswd } from '../../../src/util/account-db.js';
import { lookupGroupId, readLocalAccount, resolveAccount } from '../../../src/util/local-account.js';

const PASSWD = ['root:x:0:0:root:/root:/bin/bash', 'alice:x:1001:1001:Alice:/home/alice:/bin/sh', 'bob:x:1002:100::/home/bob:/bin/sh', '# a comment', ''].join('\n');
const GROUP = ['root:x:0:', 'users:x:100:', 'alice:x:1001:', 'ops:x:2000:bob,carol', 'brine:x:2001:alice,bob', 'dup:x:2000:', 'web:x:2002:alicex'].join('\n');
const users = parsePasswd(PASSWD);
const groups = parseGroup(GROUP);

test('a known uid: its name, primary group and the groups that list it as a member', () => {
  assert.deepEqual(resolveAccount(1002, 100, users, groups), { uid: 1002, name: 'bob', known: true, gids: [100, 2000, 2001], groups: ['users', 'ops', 'brine'] });
  assert.deepEqual(resolveAccount(1001, 1001, users, groups), { uid: 1001, name: 'alice', known: true, gids: [1001, 2001], groups: ['alice', 'brine'] });
});

test('membership is by exact name: alicex in web does not make alice a member', () => {
  assert.ok(!resolveAccount(1001, 1001, users, groups).groups.includes('web'));
});

test('the peer gid counts even when it is not the passwd primary group (newgrp, setgid)', () => {
  assert.deepEqual(resolveAccount(1001, 100, users, groups).groups, ['users', 'alice', 'brine']);
});

test('a gid listed twice takes the first name, as getgrgid does', () => {
  assert.equal(resolveAccount(1002, 100, users, groups).groups.filter((g) => g === 'dup').length, 0);
});

test('an unknown uid is named by its number and gets only its own gid: no supplementary groups are guessed', () => {
  assert.deepEqual(resolveAccount(4242, 2001, users, groups), { uid: 4242, name: '4242', known: false, gids: [2001], groups: ['brine'] });
  assert.deepEqual(resolveAccount(4242, 9999, users, groups).groups, [], 'a gid without a group entry has no name');
});

test('readLocalAccount reads the files it is given; unreadable files leave only the numbers', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'brine-acct-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'passwd'), PASSWD);
  writeFileSync(join(dir, 'group'), GROUP);
  assert.equal(readLocalAccount(1002, 100, { passwd: join(dir, 'passwd'), group: join(dir, 'group') }).name, 'bob');
  assert.deepEqual(readLocalAccount(1002, 100, { passwd: join(dir, 'missing'), group: join(dir, 'missing') }), { uid: 1002, name: '1002', known: false, gids: [100], groups: [] });
});

test('lookupGroupId: a name from /etc/group, a number as is, an unknown name undefined', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'brine-acct-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'group'), GROUP);
  assert.equal(lookupGroupId('brine', join(dir, 'group')), 2001);
  assert.equal(lookupGroupId('3003', join(dir, 'group')), 3003);
  assert.equal(lookupGroupId('nope', join(dir, 'group')), undefined);
});

test('the real databases: this process resolves to its own name', () => {
  const me = readLocalAccount(process.getuid!(), process.getgid!());
  assert.equal(me.uid, process.getuid!());
  assert.ok(me.gids.includes(process.getgid!()));
  if (process.getuid!() === 0) assert.equal(me.name, 'root');
});
