// ssh_auth.present / absent on a real authorized_keys file (an absolute `config` in a temp dir,
// user root), with real keys made by ssh-keygen (Debian openssh-client). Comments and changes
// are Salt's salt/states/ssh_auth.py; the line format is salt/modules/ssh.py _format_auth_line.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { sshAuthAbsent, sshAuthPresent } from '../../../src/state/modules/ssh-auth.js';
import { runState, tempDir } from './file-fixture.js';

let dir: string;
let keys: string;
let alice: string;
let bob: string;

function keygen(name: string): string {
  const f = path.join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `${name}@example`, '-f', f]);
  return fs.readFileSync(`${f}.pub`, 'utf8').split(' ')[1]!;
}

before(() => {
  dir = tempDir('brine-sshauth-');
  keys = path.join(dir, 'home', '.ssh', 'authorized_keys');
  alice = keygen('alice');
  bob = keygen('bob');
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('ssh_auth.present', () => {
  it('test=True says it would add; the run creates the directory (0700) and file (0600); then already present', async () => {
    const args = { name: alice, user: 'root', enc: 'ssh-ed25519', comment: 'alice@example', config: keys };
    assert.deepEqual(await runState(sshAuthPresent, args, { test: true }), { name: alice, result: null, changes: {}, comment: `Key ${alice} for user root is set to be added` });
    assert.equal(fs.existsSync(keys), false);
    assert.deepEqual(await runState(sshAuthPresent, args), { name: alice, result: true, changes: { [alice]: 'New' }, comment: `The authorized host key ${alice} for user root was added` });
    assert.equal(fs.readFileSync(keys, 'utf8'), `ssh-ed25519 ${alice} alice@example\n`);
    assert.equal(fs.statSync(keys).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.dirname(keys)).mode & 0o777, 0o700);
    assert.deepEqual(await runState(sshAuthPresent, args), { name: alice, result: true, changes: {}, comment: `The authorized host key ${alice} is already present for user root` });
    assert.equal((await runState(sshAuthPresent, args, { test: true })).result, true);
  });

  it('a full "options enc key comment" name; a changed comment updates the line in place', async () => {
    const full = `no-pty ssh-ed25519 ${bob} bob@example`;
    const r = await runState(sshAuthPresent, { name: full, user: 'root', config: keys });
    assert.deepEqual(r, { name: full, result: true, changes: { [bob]: 'New' }, comment: `The authorized host key ${bob} for user root was added` });
    // Salt writes an empty comment as a trailing space after the key.
    const t = await runState(sshAuthPresent, { name: alice, user: 'root', enc: 'ed25519', config: keys }, { test: true });
    assert.deepEqual(t, { name: alice, result: null, changes: {}, comment: `Key ${alice} for user root is set to be updated` });
    const u = await runState(sshAuthPresent, { name: alice, user: 'root', enc: 'ed25519', config: keys });
    assert.deepEqual(u, { name: alice, result: true, changes: { [alice]: 'Updated' }, comment: `The authorized host key ${alice} for user root was updated` });
    assert.equal(fs.readFileSync(keys, 'utf8'), `ssh-ed25519 ${alice} \nno-pty ssh-ed25519 ${bob} bob@example\n`);
  });

  it('refuses a key that is not base64 and an unknown user', async () => {
    const bad = await runState(sshAuthPresent, { name: 'not*base64', user: 'root', config: keys });
    assert.deepEqual(bad, { name: 'not*base64', result: false, changes: {}, comment: 'Invalid public ssh key, most likely has spaces or invalid syntax' });
    assert.equal((await runState(sshAuthPresent, { name: alice, user: 'no-such-user-brine', config: keys })).comment, "User 'no-such-user-brine' does not exist");
  });

  it("test=True for a user that does not exist yet answers as Salt's check_key does (no keys read): to be added, already absent", async () => {
    const nobody = { name: alice, user: 'no-such-user-brine', config: '.ssh/authorized_keys' };
    assert.deepEqual(await runState(sshAuthPresent, nobody, { test: true }), { name: alice, result: null, changes: {}, comment: `Key ${alice} for user no-such-user-brine is set to be added` });
    assert.deepEqual(await runState(sshAuthAbsent, nobody, { test: true }), { name: alice, result: true, changes: {}, comment: 'Key is already absent' });
    assert.equal((await runState(sshAuthAbsent, nobody)).result, false, 'a real run still fails');
  });
});

describe('ssh_auth.absent', () => {
  it('test=True says it would remove; the run removes only that key; then already absent', async () => {
    const t = await runState(sshAuthAbsent, { name: bob, user: 'root', config: keys }, { test: true });
    assert.deepEqual(t, { name: bob, result: null, changes: {}, comment: `Key ${bob} for user root is set for removal` });
    assert.deepEqual(await runState(sshAuthAbsent, { name: bob, user: 'root', config: keys }), { name: bob, result: true, changes: { [bob]: 'Removed' }, comment: 'Key removed' });
    // rm_auth_key rewrites every line stripped, so the trailing space of the other line goes too.
    assert.equal(fs.readFileSync(keys, 'utf8'), `ssh-ed25519 ${alice}\n`);
    assert.deepEqual(await runState(sshAuthAbsent, { name: bob, user: 'root', config: keys }), { name: bob, result: true, changes: {}, comment: 'Key not present' });
    assert.deepEqual(await runState(sshAuthAbsent, { name: bob, user: 'root', config: keys }, { test: true }), { name: bob, result: true, changes: {}, comment: 'Key is already absent' });
  });

  it('source: every key of a file, test=True lists what it would add', async () => {
    const src = path.join(dir, 'team.pub');
    fs.writeFileSync(src, `ssh-ed25519 ${alice} alice@example\nssh-ed25519 ${bob} bob@example\n`);
    const keys2 = path.join(dir, 'home', '.ssh', 'authorized_keys2');
    const t = await runState(sshAuthPresent, { name: 'team', user: 'root', source: src, config: keys2 }, { test: true });
    assert.deepEqual(t, { name: 'team', result: null, changes: {}, comment: `Set to add: ${alice}\nSet to add: ${bob}\n` });
    const r = await runState(sshAuthPresent, { name: 'team', user: 'root', source: src, config: keys2 });
    assert.equal(r.result, true, r.comment);
    assert.equal(fs.readFileSync(keys2, 'utf8'), `ssh-ed25519 ${alice} alice@example\nssh-ed25519 ${bob} bob@example\n`);
    assert.equal((await runState(sshAuthPresent, { name: 'team', user: 'root', source: src, config: keys2 }, { test: true })).comment, `All host keys in file ${src} are already present`);
  });

  it("a missing source: test=True answers as Salt's check_key_file (no keys, all present; openssh-formula auth, issue 22), a real run fails", async () => {
    const src = path.join(dir, 'missing.pub');
    const args = { name: 'team', user: 'root', source: src, config: path.join(dir, 'home', '.ssh', 'authorized_keys3') };
    assert.deepEqual(await runState(sshAuthPresent, args, { test: true }), { name: 'team', result: true, changes: {}, comment: `All host keys in file ${src} are already present` });
    assert.deepEqual(await runState(sshAuthPresent, args), { name: 'team', result: false, changes: {}, comment: `Failed to add the ssh key. Source file ${src} is missing` });
  });
});
