// ssh_known_hosts.present / absent on a real known_hosts file with the real ssh-keygen (Debian
// openssh-client): keys given with `key` (no network), hashed by ssh-keygen -H, found with -F and
// removed with -R. Comments and changes are Salt's salt/states/ssh_known_hosts.py; without a key
// the state needs ssh-keyscan to reach the host, which only the unreachable case tests here.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fingerprint, sshKnownHostsAbsent, sshKnownHostsPresent } from '../../../src/state/modules/ssh-known-hosts.js';
import { runState, tempDir } from './file-fixture.js';

let dir: string;
let config: string;
let k1: string;
let k2: string;

function hostKey(name: string): string {
  const f = path.join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', f]);
  return fs.readFileSync(`${f}.pub`, 'utf8').split(' ')[1]!;
}

before(() => {
  dir = tempDir('brine-kh-');
  config = path.join(dir, 'ssh', 'ssh_known_hosts');
  k1 = hostKey('k1');
  k2 = hostKey('k2');
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('ssh_known_hosts', () => {
  it('present with key: test=True, then saved (hashed), then already there', async () => {
    const args = { name: 'git.example.com', enc: 'ssh-ed25519', key: k1, config };
    assert.deepEqual(await runState(sshKnownHostsPresent, args, { test: true }), {
      name: 'git.example.com',
      result: null,
      changes: {},
      comment: `Key for git.example.com is set to be added to ${config}`,
    });
    const r = await runState(sshKnownHostsPresent, args);
    assert.deepEqual(r, {
      name: 'git.example.com',
      result: true,
      changes: { old: null, new: [{ hostname: 'git.example.com', enc: 'ssh-ed25519', key: k1 }] },
      comment: `git.example.com's key saved to ${config} (key: ${k1})`,
    });
    const text = fs.readFileSync(config, 'utf8');
    assert.match(text, /^\|1\|\S+ ssh-ed25519 /, 'hash_known_hosts hashed the host name');
    assert.doesNotMatch(text, /git\.example\.com/);
    assert.equal(fs.statSync(config).mode & 0o777, 0o600);
    assert.deepEqual(await runState(sshKnownHostsPresent, args), { name: 'git.example.com', result: true, changes: {}, comment: `git.example.com already exists in ${config}` });
    assert.deepEqual(await runState(sshKnownHostsPresent, args, { test: true }), { name: 'git.example.com', result: true, changes: {}, comment: `Host git.example.com is already in ${config}` });
  });

  it('a new key for the host replaces the old line of that type; old entries carry their fingerprint', async () => {
    const args = { name: 'git.example.com', enc: 'ssh-ed25519', key: k2, config, hash_known_hosts: false };
    assert.equal((await runState(sshKnownHostsPresent, args, { test: true })).comment, `Key for git.example.com is set to be updated in ${config}`);
    const r = await runState(sshKnownHostsPresent, args);
    assert.equal(r.result, true, r.comment);
    const old = r.changes.old as { hostname: string; enc: string; key: string; fingerprint: string }[];
    assert.equal(old.length, 1);
    assert.deepEqual([old[0]!.enc, old[0]!.key, old[0]!.fingerprint], ['ssh-ed25519', k1, fingerprint(k1)]);
    assert.match(old[0]!.hostname, /^\|1\|/);
    assert.equal(fs.readFileSync(config, 'utf8'), `git.example.com ssh-ed25519 ${k2}\n`);
  });

  it('absent: test=True, then removed with ssh-keygen -R, then already absent', async () => {
    assert.deepEqual(await runState(sshKnownHostsAbsent, { name: 'git.example.com', config }, { test: true }), {
      name: 'git.example.com',
      result: null,
      changes: {},
      comment: `Key for git.example.com is set to be removed from ${config}`,
    });
    const r = await runState(sshKnownHostsAbsent, { name: 'git.example.com', config });
    assert.equal(r.result, true);
    assert.deepEqual(r.changes, { old: [{ hostname: 'git.example.com', enc: 'ssh-ed25519', key: k2, fingerprint: fingerprint(k2) }], new: null });
    assert.match(r.comment, /# Host git\.example\.com found: line 1/);
    assert.equal(fs.readFileSync(config, 'utf8'), '');
    assert.deepEqual(await runState(sshKnownHostsAbsent, { name: 'git.example.com', config }), { name: 'git.example.com', result: true, changes: {}, comment: 'Host is already absent' });
  });

  it('argument errors in Salt words; without a key an unreachable host fails', async () => {
    assert.equal((await runState(sshKnownHostsPresent, { name: 'h', key: k1, enc: 'ssh-ed25519', config: 'rel/known' })).comment, 'If not specifying a "user", specify an absolute "config".');
    assert.equal((await runState(sshKnownHostsPresent, { name: 'h', key: k1, config })).comment, 'Required argument "enc" if using "key" argument.');
    assert.equal((await runState(sshKnownHostsPresent, { name: 'h', key: k1, fingerprint: 'aa', enc: 'ssh-ed25519', config })).comment, 'Specify either "key" or "fingerprint", not both.');
    const scan = await runState(sshKnownHostsPresent, { name: 'unreachable.invalid', config, timeout: 1 });
    assert.deepEqual(scan, { name: 'unreachable.invalid', result: false, changes: {}, comment: 'Unable to receive remote host keys' });
  });
});
