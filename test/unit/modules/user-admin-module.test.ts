import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createDefaultRegistry } from '../../../src/modules/index.js';
import { makeCtx } from './context.js';

const registry = createDefaultRegistry();
const run = (fun: string, arg: unknown[], kwarg: Record<string, unknown> = {}) => registry.call(fun, arg, kwarg, makeCtx());

describe('user/group/shadow changes: arguments are checked before any program runs', () => {
  it('names, ids, paths and GECOS fields that a program would misread are BAD_ARGUMENTS', async () => {
    for (const [fun, arg, kw, re] of [
      ['user.add', ['-o'], {}, /user name '-o' is not valid/],
      ['user.add', ['ok'], { uid: '12; reboot' }, /uid must be a non-negative integer/],
      ['user.add', ['ok'], { home: 'relative/home' }, /home must be an absolute path/],
      ['user.add', ['ok'], { shell: '/bin/sh:/x' }, /shell must be an absolute path without ':'/],
      ['user.add', ['ok'], { fullname: 'a:b' }, /fullname must not contain ':'/],
      ['user.add', ['ok'], { groups: ['wheel', '--all'] }, /group name '--all' is not valid/],
      ['group.add', ['bad name'], {}, /group name 'bad name' is not valid/],
      ['group.add', ['ok'], { gid: -1 }, /gid must be a non-negative integer/],
      ['group.members', ['root', ['a', '-b']], {}, /user name '-b' is not valid/],
      ['shadow.info', ['--'], {}, /user name '--' is not valid/],
    ] as const) {
      const res = await run(fun, [...arg], { ...kw });
      assert.equal(res.error?.code, 'BAD_ARGUMENTS', `${fun} ${JSON.stringify(arg)} ${JSON.stringify(kw)}: ${res.error?.message}`);
      assert.match(String(res.error?.message), re);
    }
  });

  it('a clear-text password is refused; changing a missing user says it does not exist', async () => {
    const pw = await run('shadow.set_password', ['root', 'hunter2']);
    assert.equal(pw.error?.code, 'BAD_ARGUMENTS');
    assert.match(String(pw.error?.message), /must be a crypt\(3\) hash .*openssl passwd -6/);
    const missing = await run('user.chshell', ['no-such-user-brine', '/bin/sh']);
    assert.equal(missing.error?.code, 'EXEC_FAILED');
    assert.match(String(missing.error?.message), /user 'no-such-user-brine' does not exist; create it with user\.add/);
    const g = await run('group.adduser', ['no-such-group-brine', 'root']);
    assert.match(String(g.error?.message), /group 'no-such-group-brine' does not exist/);
  });
});
