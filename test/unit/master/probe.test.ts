// The doctor's probe on the master: the same verdicts as a real sign-in, computed read-only. For
// every key state the key store's files are byte-for-byte unchanged afterwards.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { KeyStore, fingerprint, type AuthPolicy } from '../../../src/pki/index.js';
import { probeAuth } from '../../../src/master/index.js';
import { newPublicKeyPem, tree } from '../pki/helpers.js';

const MASTER_FP = 'ff:'.repeat(31) + 'ff';
const POLICY: AuthPolicy = { autoAccept: false, openMode: false };

function store(t: TestContext): KeyStore {
  const dir = mkdtempSync(join(tmpdir(), 'brine-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const keys = new KeyStore(dir);
  keys.ensureLayout();
  return keys;
}

/** Every file under the store with its content, to prove a probe changed nothing. */
function snapshot(keys: KeyStore): string {
  return tree(keys.pkiDir)
    .map((p) => {
      try {
        return `${p}=${readFileSync(join(keys.pkiDir, p), 'utf8')}`;
      } catch {
        return `${p}/`;
      }
    })
    .join('\n');
}

describe('probeAuth', () => {
  it('a key never seen: pending, worded as not stored yet, and nothing written', (t) => {
    const keys = store(t);
    const before = snapshot(keys);
    const pem = newPublicKeyPem();
    const v = probeAuth(keys.pkiDir, { id: 'web1', publicKeyPem: pem }, POLICY, MASTER_FP);
    assert.equal(v.status, 'pending');
    assert.match(v.message, /has not seen this minion's key/);
    assert.ok(v.message.includes(fingerprint(pem)) && v.message.includes(MASTER_FP));
    assert.match(v.message, /brine key -a web1/);
    assert.deepEqual(v.wouldWrite, ['pending']);
    assert.equal(snapshot(keys), before);
  });

  it('accepted, pending, rejected and denied keys: the real verdicts, store unchanged', (t) => {
    const keys = store(t);
    const acc = newPublicKeyPem();
    const pen = newPublicKeyPem();
    const rej = newPublicKeyPem();
    keys.write('accepted', 'acc', acc);
    keys.write('pending', 'pen', pen);
    keys.write('rejected', 'rej', rej);
    const before = snapshot(keys);

    assert.equal(probeAuth(keys.pkiDir, { id: 'acc', publicKeyPem: acc }, POLICY, MASTER_FP).status, 'accepted');
    const p = probeAuth(keys.pkiDir, { id: 'pen', publicKeyPem: pen }, POLICY, MASTER_FP);
    assert.equal(p.status, 'pending');
    assert.match(p.message, /in pending/);
    const r = probeAuth(keys.pkiDir, { id: 'rej', publicKeyPem: rej }, POLICY, MASTER_FP);
    assert.equal(r.status, 'rejected');
    assert.match(r.message, /brine key -d rej/);
    const other = newPublicKeyPem();
    const d = probeAuth(keys.pkiDir, { id: 'acc', publicKeyPem: other }, POLICY, MASTER_FP);
    assert.equal(d.status, 'denied');
    assert.ok(d.message.includes(fingerprint(acc)) && d.message.includes(fingerprint(other)), d.message);
    assert.match(d.message, /brine key --replace acc/);
    assert.deepEqual(d.wouldWrite, ['denied'], 'a real sign-in would have stored it in minions_denied');
    assert.equal(snapshot(keys), before);
  });

  it('auto_accept and autoreject: what would happen, without accepting or rejecting anything', (t) => {
    const keys = store(t);
    const pem = newPublicKeyPem();
    keys.write('pending', 'auto', pem);
    const before = snapshot(keys);
    const a = probeAuth(keys.pkiDir, { id: 'auto', publicKeyPem: pem }, { ...POLICY, autoAccept: true }, MASTER_FP);
    assert.equal(a.status, 'accepted');
    assert.match(a.message, /will accept it at sign-in/);
    const r = probeAuth(keys.pkiDir, { id: 'auto', publicKeyPem: pem }, { ...POLICY, autoreject: () => true }, MASTER_FP);
    assert.equal(r.status, 'rejected');
    assert.deepEqual(r.wouldWrite, ['rejected']);
    assert.equal(snapshot(keys), before);
  });

  it('an invalid ID is refused before the store is touched', (t) => {
    const keys = store(t);
    const v = probeAuth(keys.pkiDir, { id: '../etc', publicKeyPem: newPublicKeyPem() }, POLICY, MASTER_FP);
    assert.equal(v.status, 'invalid_id');
    assert.deepEqual(v.wouldWrite, []);
  });
});
