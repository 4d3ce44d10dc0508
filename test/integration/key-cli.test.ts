// `brine key` end to end against a real master's pki_dir: salt-key's list arguments and exact
// output, accept/reject/delete with globs, comma lists, prompts and their defaults, fingerprints
// (the master's own under Local Keys), printing keys, and the --include-* switches. Keys are
// planted as files the way a minion's sign-in leaves them; one real minion shows a rejected key
// accepted with --include-rejected and then answering a job.

import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster } from '../helpers/cluster.js';
import { fingerprintOf } from '../helpers/pki.js';

type State = 'accepted' | 'pending' | 'rejected' | 'denied';
const DIRS: Record<State, string> = { accepted: 'minions', pending: 'minions_pre', rejected: 'minions_rejected', denied: 'minions_denied' };
const FINGERPRINT = /^[0-9a-f]{2}(:[0-9a-f]{2}){31}$/;

/** SHA-256 of the SPKI DER as colon pairs, computed with node:crypto rather than src/pki. */
describe('brine key (salt-key) against a running master', () => {
  let cluster: Cluster;
  let pkiDir: string;

  const keyFile = (state: State, id: string) => path.join(pkiDir, DIRS[state], id);
  const has = (state: State, id: string) => fs.existsSync(keyFile(state, id));

  /** Stores a fresh Ed25519 public key for `id` in `state`; returns its PEM. */
  function plant(state: State, id: string): string {
    const pem = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }) as string;
    fs.writeFileSync(keyFile(state, id), pem, { mode: 0o644 });
    return pem;
  }

  before(async () => {
    cluster = await Cluster.create();
    await cluster.startMaster();
    pkiDir = path.join(cluster.root, 'master', 'etc', 'brine', 'pki', 'master');
    assert.ok(fs.existsSync(path.join(pkiDir, 'master.pub')), 'the master made its key pair');
  });
  after(async () => {
    await cluster.cleanup();
  });
  beforeEach(() => {
    // recursive: minions_denied/.keys holds every denied key per ID
    for (const dir of Object.values(DIRS)) for (const f of fs.readdirSync(path.join(pkiDir, dir))) fs.rmSync(path.join(pkiDir, dir, f), { recursive: true, force: true });
  });

  describe('listing', () => {
    // denied keys are listed one line per key with its fingerprint (issue 8 point 1): an ID can have several
    let den1: string;
    beforeEach(() => {
      plant('accepted', 'acc1');
      plant('pending', 'pre1');
      plant('rejected', 'rej1');
      den1 = `den1:  ${fingerprintOf(plant('denied', 'den1'))}`;
    });

    it('-l takes every salt-key argument, by prefix, and prints only that section', async () => {
      const expected: Array<[string, string]> = [
        ['acc', 'Accepted Keys:\nacc1\n'],
        ['accepted', 'Accepted Keys:\nacc1\n'],
        ['pre', 'Unaccepted Keys:\npre1\n'],
        ['un', 'Unaccepted Keys:\npre1\n'],
        ['unaccepted', 'Unaccepted Keys:\npre1\n'],
        ['rej', 'Rejected Keys:\nrej1\n'],
        ['rejected', 'Rejected Keys:\nrej1\n'],
        ['den', `Denied Keys:\n${den1}\n`],
        ['denied', `Denied Keys:\n${den1}\n`],
        ['all', `Accepted Keys:\nacc1\nDenied Keys:\n${den1}\nUnaccepted Keys:\npre1\nRejected Keys:\nrej1\n`],
      ];
      for (const [arg, out] of expected) {
        const r = await cluster.brine(['key', '-l', arg]);
        assert.equal(r.code, 0, `-l ${arg}: ${r.stderr}`);
        assert.equal(r.stdout, out, `-l ${arg}`);
      }
    });

    it('-l with an unknown argument names it and exits 64', async () => {
      const r = await cluster.brine(['key', '-l', 'bogus']);
      assert.equal(r.code, 64);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, /'bogus' is not a valid argument to '--list'/);
    });

    it('-L prints all four sections in directory-name order, IDs sorted case-insensitively', async () => {
      for (const id of ['web2', 'Web10', 'db1']) plant('pending', id);
      const acc1 = `acc1:  ${fingerprintOf(plant('denied', 'acc1'))}`;
      const r = await cluster.brine(['key', '-L']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `Accepted Keys:\nacc1\nDenied Keys:\n${acc1}\n${den1}\nUnaccepted Keys:\ndb1\npre1\nWeb10\nweb2\nRejected Keys:\nrej1\n`);
    });
  });

  describe('accept, reject, delete', () => {
    beforeEach(() => {
      for (const id of ['web1', 'web2', 'db1', 'db2', 'cache1']) plant('pending', id);
    });

    it('-a with a glob accepts only the matching pending keys', async () => {
      const r = await cluster.brine(['key', '-a', 'web*', '-y']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, 'The following keys are going to be accepted:\nUnaccepted Keys:\nweb1\nweb2\nKey for minion web1 accepted.\nKey for minion web2 accepted.\n');
      assert.ok(has('accepted', 'web1') && has('accepted', 'web2'));
      assert.ok(!has('pending', 'web1') && !has('pending', 'web2'));
      assert.ok(has('pending', 'db1') && has('pending', 'cache1'));
    });

    it('-a with comma-separated globs accepts the union', async () => {
      const r = await cluster.brine(['key', '-a', 'db1, cache*', '-y']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /Key for minion cache1 accepted\.\nKey for minion db1 accepted\.\n$/);
      const list = await cluster.brine(['key', '-l', 'acc']);
      assert.equal(list.stdout, 'Accepted Keys:\ncache1\ndb1\n');
      assert.ok(has('pending', 'db2'));
    });

    it('-a asks "Proceed? [n/Y]" and an empty answer means yes', async () => {
      const r = await cluster.brine(['key', '-a', 'db2'], { input: '\n' });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /Proceed\? \[n\/Y\] /);
      assert.ok(has('accepted', 'db2'));
    });

    it('-a on no match says so and exits 1; accepted keys are not "unaccepted"', async () => {
      const none = await cluster.brine(['key', '-a', 'nomatch*', '-y']);
      assert.equal(none.code, 1);
      assert.equal(none.stdout, "The key glob 'nomatch*' does not match any unaccepted keys.\n");
      await cluster.brine(['key', '-a', 'web1', '-y']);
      const again = await cluster.brine(['key', '-a', 'web1', '-y']);
      assert.equal(again.code, 1);
      assert.match(again.stdout, /does not match any unaccepted keys/);
    });

    it('-r rejects matching pending keys (prompt defaults to yes), -R the rest', async () => {
      const one = await cluster.brine(['key', '-r', 'db1'], { input: '\n' });
      assert.equal(one.code, 0, one.stderr);
      assert.match(one.stdout, /The following keys are going to be rejected:\nUnaccepted Keys:\ndb1\nProceed\? \[n\/Y\] Key for minion db1 rejected\.\n$/);
      assert.ok(has('rejected', 'db1') && !has('pending', 'db1'));

      const all = await cluster.brine(['key', '-R', '-y']);
      assert.equal(all.code, 0, all.stderr);
      const list = await cluster.brine(['key', '-L']);
      assert.equal(list.stdout, 'Accepted Keys:\nDenied Keys:\nUnaccepted Keys:\nRejected Keys:\ncache1\ndb1\ndb2\nweb1\nweb2\n');
    });

    it('-r leaves accepted keys alone unless --include-accepted', async () => {
      await cluster.brine(['key', '-a', 'web1', '-y']);
      const plain = await cluster.brine(['key', '-r', 'web1', '-y']);
      assert.equal(plain.code, 1);
      assert.match(plain.stdout, /does not match any unaccepted keys/);
      assert.ok(has('accepted', 'web1'));
      const inc = await cluster.brine(['key', '-r', 'web1', '--include-accepted', '-y']);
      assert.equal(inc.code, 0, inc.stderr);
      assert.match(inc.stdout, /Key for minion web1 rejected\./);
      assert.ok(has('rejected', 'web1') && !has('accepted', 'web1'));
    });

    it('-d asks "Proceed? [N/y]" and an empty answer deletes nothing', async () => {
      const r = await cluster.brine(['key', '-d', 'web*'], { input: '\n' });
      assert.equal(r.stdout, 'The following keys are going to be deleted:\nUnaccepted Keys:\nweb1\nweb2\nProceed? [N/y] ');
      // declining is reported as "nothing done" (exit 1)
      assert.equal(r.code, 1);
      assert.ok(has('pending', 'web1') && has('pending', 'web2'));

      const yes = await cluster.brine(['key', '-d', 'web1'], { input: 'y\n' });
      assert.equal(yes.code, 0, yes.stderr);
      assert.match(yes.stdout, /Key for minion web1 deleted\.\n$/);
      assert.ok(!has('pending', 'web1') && has('pending', 'web2'));
    });

    it('-d -y deletes the ID in every state without asking', async () => {
      plant('denied', 'db1');
      await cluster.brine(['key', '-a', 'db1', '-y']);
      const r = await cluster.brine(['key', '-d', 'db1', '-y']);
      assert.equal(r.code, 0, r.stderr);
      assert.doesNotMatch(r.stdout, /Proceed/);
      assert.equal(r.stdout, 'The following keys are going to be deleted:\nAccepted Keys:\ndb1\nDenied Keys:\ndb1\nKey for minion db1 deleted.\nKey for minion db1 deleted.\n');
      for (const state of Object.keys(DIRS) as State[]) assert.ok(!has(state, 'db1'), `db1 still ${state}`);
      assert.ok(has('pending', 'db2'));
    });

    it('-D -y deletes every key; the listing is then empty', async () => {
      plant('rejected', 'old1');
      const r = await cluster.brine(['key', '-D', '-y']);
      assert.equal(r.code, 0, r.stderr);
      const list = await cluster.brine(['key', '-L']);
      assert.equal(list.stdout, 'Accepted Keys:\nDenied Keys:\nUnaccepted Keys:\nRejected Keys:\n');
    });
  });

  describe('fingerprints and printing', () => {
    it('-f prints `<id>:  <fingerprint>` under the key state heading', async () => {
      const pem = plant('pending', 'fp1');
      plant('accepted', 'other');
      const r = await cluster.brine(['key', '-f', 'fp1']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `Unaccepted Keys:\nfp1:  ${fingerprintOf(pem)}\n`);
      const none = await cluster.brine(['key', '-f', 'nomatch']);
      assert.equal(none.code, 1);
      assert.match(none.stderr, /KEY_NOT_FOUND: The key glob 'nomatch' does not match any keys\./);
    });

    it("-F prints the master's own keys under Local Keys first, then every minion key", async () => {
      const acc = plant('accepted', 'm1');
      const pre = plant('pending', 'm2');
      const masterFp = fingerprintOf(fs.readFileSync(path.join(pkiDir, 'master.pub'), 'utf8'));
      assert.match(masterFp, FINGERPRINT);
      const r = await cluster.brine(['key', '-F']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `Local Keys:\nmaster.pem:  ${masterFp}\nmaster.pub:  ${masterFp}\nAccepted Keys:\nm1:  ${fingerprintOf(acc)}\nUnaccepted Keys:\nm2:  ${fingerprintOf(pre)}\n`);
      for (const line of r.stdout
        .trim()
        .split('\n')
        .filter((l) => l.includes(':  ')))
        assert.match(line.split(':  ')[1]!, FINGERPRINT);
    });

    it('-F master prints only the master fingerprint (what MASTER_FINGER_MISMATCH tells operators to run)', async () => {
      plant('accepted', 'm1');
      const masterFp = fingerprintOf(fs.readFileSync(path.join(pkiDir, 'master.pub'), 'utf8'));
      const r = await cluster.brine(['key', '-F', 'master']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `Local Keys:\nmaster.pem:  ${masterFp}\nmaster.pub:  ${masterFp}\n`);
      const stray = await cluster.brine(['key', '-L', 'm1']);
      assert.equal(stray.code, 64, 'a glob argument without -F/-P is a usage error');
    });

    it('-p prints the stored public key', async () => {
      const pem = plant('accepted', 'pk1');
      const r = await cluster.brine(['key', '-p', 'pk1']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `Accepted Keys:\npk1:  ${pem.trim()}\n`);
    });
  });

  describe('--include-denied', () => {
    it('accepts a denied key only when asked, and never over an accepted one', async () => {
      const dn1 = fingerprintOf(plant('denied', 'dn1'));
      const plain = await cluster.brine(['key', '-a', 'dn1', '-y']);
      assert.equal(plain.code, 1);
      assert.match(plain.stdout, /does not match any unaccepted keys/);
      const inc = await cluster.brine(['key', '-a', 'dn1', '--include-denied', '-y']);
      assert.equal(inc.code, 0, inc.stderr);
      assert.ok(inc.stdout.includes(`Denied Keys:\ndn1:  ${dn1}\nKey for minion dn1 accepted.`), inc.stdout);
      assert.ok(has('accepted', 'dn1') && !has('denied', 'dn1'));

      const accepted = plant('accepted', 'dup');
      plant('denied', 'dup');
      const clash = await cluster.brine(['key', '-a', 'dup', '--include-denied', '-y']);
      assert.equal(clash.code, 1);
      assert.match(clash.stderr, /Key for minion dup was not accepted: another key is already accepted for this ID/);
      assert.equal(fs.readFileSync(keyFile('accepted', 'dup'), 'utf8'), accepted, 'the accepted key is unchanged');
      assert.ok(has('denied', 'dup'));
    });
  });

  describe('--include-rejected, with a real minion', () => {
    it('accepts a rejected key, after which the minion signs in and answers', async () => {
      const minion = cluster.startMinion('late1', { rejected_retry: true });
      await cluster.waitForPending(['late1']);
      const rej = await cluster.brine(['key', '-r', 'late1', '-y']);
      assert.match(rej.stdout, /Key for minion late1 rejected\./);

      const plain = await cluster.brine(['key', '-a', 'late1', '-y']);
      assert.equal(plain.code, 1);
      assert.equal(plain.stdout, "The key glob 'late1' does not match any unaccepted keys.\n");
      const wider = await cluster.brine(['key', '-a', 'nomatch', '--include-rejected', '-y']);
      assert.equal(wider.stdout, "The key glob 'nomatch' does not match any unaccepted or rejected keys.\n");

      const inc = await cluster.brine(['key', '-a', 'late1', '--include-rejected', '-y']);
      assert.equal(inc.code, 0, inc.stderr);
      assert.equal(inc.stdout, 'The following keys are going to be accepted:\nRejected Keys:\nlate1\nKey for minion late1 accepted.\n');
      await minion.waitForOutput(/ready to receive requests/, 20_000);
      assert.ok(minion.running, 'rejected_retry kept the minion alive while rejected');
      const ping = await cluster.brine(['run', 'late1', 'test.ping']);
      assert.equal(ping.code, 0, ping.stdout + ping.stderr);
      assert.equal(ping.stdout, 'late1:\n    True\n');
    });
  });
});
