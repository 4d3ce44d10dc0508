import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createDefaultRegistry } from '../../../src/modules/index.js';
import { makeCtx } from './context.js';

const registry = createDefaultRegistry();
const run = (fun: string, arg: unknown[], kwarg: Record<string, unknown> = {}) => registry.call(fun, arg, kwarg, makeCtx());
const passwd = fs
  .readFileSync('/etc/passwd', 'utf8')
  .trim()
  .split('\n')
  .map((l) => l.split(':'));
const group = fs
  .readFileSync('/etc/group', 'utf8')
  .trim()
  .split('\n')
  .map((l) => l.split(':'));

describe('user', () => {
  it("info has Salt's keys for a user by name or uid; {} for a missing user", async () => {
    const root = (await run('user.info', ['root'])).return as Record<string, unknown>;
    assert.deepEqual(Object.keys(root).sort(), ['fullname', 'gid', 'groups', 'home', 'homephone', 'name', 'other', 'passwd', 'roomnumber', 'shell', 'uid', 'workphone']);
    const line = passwd.find((f) => f[0] === 'root')!;
    assert.equal(root.uid, 0);
    assert.equal(root.home, line[5]);
    assert.equal(root.shell, line[6]);
    assert.ok((root.groups as string[]).includes('root'));
    assert.deepEqual((await run('user.info', ['0'])).return, root);
    assert.deepEqual((await run('user.info', ['no-such-user-brine'])).return, {});
  });

  it('list_users lists every user in /etc/passwd, sorted', async () => {
    const users = (await run('user.list_users', [])).return as string[];
    assert.deepEqual(users, [...users].sort());
    for (const f of passwd) assert.ok(users.includes(f[0]!), f[0]);
  });

  it('list_groups includes the primary group and supplementary memberships', async () => {
    const withMember = group.find((g) => (g[3] ?? '') !== '');
    const nobody = (await run('user.list_groups', ['nobody'])).return as string[];
    assert.ok(nobody.includes('nogroup'));
    if (withMember) {
      const member = withMember[3]!.split(',')[0]!;
      assert.ok(((await run('user.list_groups', [member])).return as string[]).includes(withMember[0]!));
    }
    const all = (await run('user.getent', [])).return as { name: string }[];
    assert.equal(all.length, passwd.length);
  });
});

describe('group', () => {
  it('info by name or gid; {} for a missing group; getent lists all', async () => {
    const g = (await run('group.info', ['root'])).return as Record<string, unknown>;
    assert.deepEqual(g, {
      name: 'root',
      passwd: 'x',
      gid: 0,
      members: group
        .find((f) => f[0] === 'root')![3]!
        .split(',')
        .filter((m) => m),
    });
    assert.deepEqual((await run('group.info', ['0'])).return, g);
    assert.deepEqual((await run('group.info', ['no-such-group-brine'])).return, {});
    const all = (await run('group.getent', [])).return as { name: string }[];
    assert.deepEqual(all.map((x) => x.name).sort(), group.map((f) => f[0]!).sort());
  });
});
