// The waiting-key ledger behind max_pending_keys, max_pending_keys_per_address and
// max_ids_per_key: the total cap, a slot freed by an operator outside the master (the ledger
// re-reads the store), and denied keys counting towards a key's IDs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { applyKeyEffects, decideAuth, fingerprint, KeyStore, type AuthPolicy } from '../../../src/pki/index.js';
import { WaitingKeyLedger } from '../../../src/master/waiting-keys.js';
import { sourceOf } from '../../../src/transport/index.js';
import { newPublicKeyPem, tempDir } from '../pki/helpers.js';

function signInVia(store: KeyStore, ledger: WaitingKeyLedger) {
  return (id: string, pem: string, remote: string) => {
    const policy: AuthPolicy = { autoAccept: false, openMode: false, admitWaitingKey: (i, fp, state) => ledger.admit(i, fp, state, remote) };
    const d = decideAuth(store, { id, publicKeyPem: pem }, policy);
    applyKeyEffects(store, d.effects, { remote, at: 1 });
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
  assert.equal(sourceOf('127.0.0.1:5555'), '127.0.0.1');
  assert.equal(sourceOf('[::1]:5555'), '::1');
  const store = new KeyStore(join(tempDir(t), 'pki'));
  store.ensureLayout();
  const ledger = new WaitingKeyLedger(store, { maxPending: 0, maxPendingPerAddress: 2, maxIdsPerKey: 0 });
  const signIn = signInVia(store, ledger);
  assert.equal(signIn('p1', newPublicKeyPem(), '10.1.1.1:1000').status, 'pending');
  assert.equal(signIn('p2', newPublicKeyPem(), '10.1.1.1:2000').status, 'pending');
  assert.equal(signIn('p3', newPublicKeyPem(), '10.1.1.1:3000').code, 'AUTH_PENDING_LIMIT');
  assert.equal(signIn('p3', newPublicKeyPem(), '10.1.1.2:3000').status, 'pending', 'another address is not affected');
});
