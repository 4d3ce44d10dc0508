// The waiting-key ledger behind max_pending_keys, max_pending_keys_per_address and
// max_ids_per_key: the total cap, a slot freed by an operator outside the master (the ledger
// re-reads the store), and denied keys counting towards a key's IDs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { applyKeyEffects, decideAuth, DENIED_REFRESH_MS, fingerprint, KeyStore, type AuthPolicy } from '../../../src/pki/index.js';
import { WaitingKeyLedger } from '../../../src/master/waiting-keys.js';
import { sourceKey } from '../../../src/transport/index.js';
import { newPublicKeyPem, tempDir } from '../pki/helpers.js';

// the same order as src/master/sign-in.ts: decide, refresh the ledger, apply, record
function signInVia(store: KeyStore, ledger: WaitingKeyLedger) {
  return (id: string, pem: string, remote: string, at = 1) => {
    const policy: AuthPolicy = { autoAccept: false, openMode: false, admitWaitingKey: (i, fp, state) => ledger.admit(i, fp, state, remote) };
    const d = decideAuth(store, { id, publicKeyPem: pem }, policy);
    ledger.refresh();
    applyKeyEffects(store, d.effects, { remote, at });
    ledger.applied(d.effects, d.presentedFingerprint, remote);
    return d;
  };
}

test('max_pending_keys caps the total, and a key accepted by an operator frees its slot', (t) => {
  const store = new KeyStore(join(tempDir(t), 'pki'));
  store.ensureLayout();
  const ledger = new WaitingKeyLedger(store, { maxPending: 3, maxPendingPerAddress: 0, maxIdsPerKey: 0 });
  const signIn = signInVia(store, ledger);
  for (let i = 0; i < 3; i++) assert.equal(signIn(`m${i}`, newPublicKeyPem(), `10.0.0.${i}:1`).status, 'pending');
  const refused = signIn('m3', newPublicKeyPem(), '10.0.0.9:1');
  assert.equal(refused.status, 'full');
  assert.equal(refused.code, 'AUTH_PENDING_LIMIT');
  assert.match(refused.reason, /3 keys are already pending \(max_pending_keys is 3\)/);
  assert.equal(store.read('pending', 'm3'), undefined, 'nothing stored');
  // brine key -a in another process: the ledger sees the directory change
  store.move('m0', 'pending', 'accepted');
  assert.equal(signIn('m3', newPublicKeyPem(), '10.0.0.9:1').status, 'pending');
});

test('keys already on disk at start count towards the caps', (t) => {
  const store = new KeyStore(join(tempDir(t), 'pki'));
  store.ensureLayout();
  const key = newPublicKeyPem();
  store.write('pending', 'a', key);
  store.write('pending', 'b', key);
  const ledger = new WaitingKeyLedger(store, { maxPending: 0, maxPendingPerAddress: 0, maxIdsPerKey: 2 });
  assert.match(ledger.admit('c', fingerprint(key), 'pending', '10.0.0.1:1') ?? '', /under 2 other IDs/);
  assert.equal(ledger.admit('a', fingerprint(key), 'pending', '10.0.0.1:1'), undefined, 'its own ID is not another one');
});

test('denied keys count towards max_ids_per_key, and the refusal keeps the denied verdict without storing', (t) => {
  const store = new KeyStore(join(tempDir(t), 'pki'));
  store.ensureLayout();
  const ledger = new WaitingKeyLedger(store, { maxPending: 0, maxPendingPerAddress: 0, maxIdsPerKey: 2 });
  const signIn = signInVia(store, ledger);
  const squatter = newPublicKeyPem();
  for (const id of ['v1', 'v2', 'v3']) store.write('accepted', id, newPublicKeyPem());
  assert.equal(signIn('v1', squatter, '10.0.0.1:1').status, 'denied');
  assert.equal(signIn('v2', squatter, '10.0.0.1:1').status, 'denied');
  const third = signIn('v3', squatter, '10.0.0.1:1');
  assert.equal(third.status, 'denied');
  assert.deepEqual(third.effects, []);
  assert.match(third.reason, /The key was not stored: this key already waits for an operator under 2 other IDs/);
  assert.equal(store.deniedKeys('v3').length, 0);
  assert.equal(signIn('new1', squatter, '10.0.0.1:1').status, 'full', 'nor a new pending ID');
});

test('per address counts hosts, not ports', (t) => {
  assert.equal(sourceKey('127.0.0.1:5555'), '127.0.0.1');
  assert.equal(sourceKey('[::1]:5555'), '0:0:0:0::/64');
  const store = new KeyStore(join(tempDir(t), 'pki'));
  store.ensureLayout();
  const ledger = new WaitingKeyLedger(store, { maxPending: 0, maxPendingPerAddress: 2, maxIdsPerKey: 0 });
  const signIn = signInVia(store, ledger);
  assert.equal(signIn('p1', newPublicKeyPem(), '10.1.1.1:1000').status, 'pending');
  assert.equal(signIn('p2', newPublicKeyPem(), '10.1.1.1:2000').status, 'pending');
  assert.equal(signIn('p3', newPublicKeyPem(), '10.1.1.1:3000').code, 'AUTH_PENDING_LIMIT');
  assert.equal(signIn('p3', newPublicKeyPem(), '10.1.1.2:3000').status, 'pending', 'another address is not affected');
});

test('a denied minion retrying with the same key does not rewrite its files within the minute, and the counts stay right', (t) => {
  const pki = join(tempDir(t), 'pki');
  const store = new KeyStore(pki);
  store.ensureLayout();
  const ledger = new WaitingKeyLedger(store, { maxPending: 0, maxPendingPerAddress: 2, maxIdsPerKey: 2 });
  const signIn = signInVia(store, ledger);
  store.write('accepted', 'web1', newPublicKeyPem());
  const impostor = newPublicKeyPem();
  const fp = fingerprint(impostor);
  const saltFile = join(pki, 'minions_denied', 'web1');
  const historyFile = join(pki, 'minions_denied', '.keys', 'web1', `${fp.replace(/:/g, '')}.json`);
  const stamp = (path: string) => {
    const st = statSync(path);
    return `${st.ino}:${st.mtimeMs}`;
  };
  assert.equal(signIn('web1', impostor, '10.0.0.5:1', 1000).status, 'denied');
  const before = [stamp(saltFile), stamp(historyFile), stamp(join(pki, 'minions_denied'))];
  for (let i = 1; i <= 5; i++) assert.equal(signIn('web1', impostor, '10.0.0.5:1', 1000 + i * 1000).status, 'denied');
  assert.deepEqual([stamp(saltFile), stamp(historyFile), stamp(join(pki, 'minions_denied'))], before, 'no write for a retry within the minute');
  assert.equal(store.deniedKeys('web1')[0]!.lastSeen, 1000);
  // a minute later the last-seen time is refreshed once
  assert.equal(signIn('web1', impostor, '10.0.0.5:1', 1000 + DENIED_REFRESH_MS).status, 'denied');
  assert.equal(store.deniedKeys('web1')[0]!.lastSeen, 1000 + DENIED_REFRESH_MS);
  assert.equal(store.deniedKeys('web1').length, 1);
  // the key still counts once towards max_ids_per_key, and pending keys per host are counted
  store.write('accepted', 'web2', newPublicKeyPem());
  assert.equal(signIn('web2', impostor, '10.0.0.5:1', 70_000).status, 'denied');
  assert.match(ledger.admit('web3', fp, 'pending', '10.0.0.5:1') ?? '', /under 2 other IDs/);
  assert.equal(signIn('p1', newPublicKeyPem(), '10.0.0.7:1').status, 'pending');
  const p2 = newPublicKeyPem();
  assert.equal(signIn('p2', p2, '10.0.0.7:2').status, 'pending');
  assert.equal(signIn('p2', p2, '10.0.0.7:3').status, 'pending', 'the same pending key again');
  assert.equal(ledger.pendingCount('10.0.0.7'), 2);
  assert.equal(ledger.pendingCount(), 2);
  assert.equal(signIn('p3', newPublicKeyPem(), '10.0.0.7:4').code, 'AUTH_PENDING_LIMIT');
  store.move('p1', 'pending', 'accepted'); // brine key -a in another process
  assert.equal(signIn('p3', newPublicKeyPem(), '10.0.0.7:4').status, 'pending', 'the freed slot is seen');
  assert.equal(ledger.pendingCount(), 2);
});
