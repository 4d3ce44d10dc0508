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

const MASTER_FP = `${'ff:'.repeat(31)}ff`;
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
    const v = probeAuth(keys, { id: 'web1', publicKeyPem: pem }, POLICY, MASTER_FP);
    assert.equal(v.status, 'pending');
    assert.match(v.message, /has not seen this minion's key/);
    assert.ok(v.message.includes(fingerprint(pem)) && v.message.includes(MASTER_FP));
    assert.match(v.message, /brine key -a web1/);
    assert.deepEqual(v.wouldWrite, [], 'not told: it would tell a new ID from one with another key');
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

    assert.equal(probeAuth(keys, { id: 'acc', publicKeyPem: acc }, POLICY, MASTER_FP).status, 'accepted');
    const p = probeAuth(keys, { id: 'pen', publicKeyPem: pen }, POLICY, MASTER_FP);
    assert.equal(p.status, 'pending');
    assert.match(p.message, /in pending/);
    const r = probeAuth(keys, { id: 'rej', publicKeyPem: rej }, POLICY, MASTER_FP);
    assert.equal(r.status, 'rejected');
    assert.match(r.message, /brine key -d rej/);
    assert.equal(snapshot(keys), before);
  });

  it("a key the master does not hold for the ID learns nothing about the ID's keys (issue 8 point 5)", (t) => {
    const keys = store(t);
    const acc = newPublicKeyPem();
    const pen = newPublicKeyPem();
    keys.write('accepted', 'acc', acc);
    keys.write('pending', 'pen', pen);
    keys.write('rejected', 'rej', newPublicKeyPem());
    const before = snapshot(keys);
    const other = newPublicKeyPem();
    // the same answer, word for word (but the ID), whether the ID is accepted, pending, rejected or unknown
    const answers = ['acc', 'pen', 'rej', 'nobody'].map((id) => probeAuth(keys, { id, publicKeyPem: other }, POLICY, MASTER_FP));
    const neutral = (v: { status: string; message: string; wouldWrite: string[] }, id: string) => ({
      status: v.status,
      message: v.message.replace(new RegExp(`\\b${id}\\b`, 'g'), 'ID'),
      wouldWrite: v.wouldWrite,
    });
    const [first, ...rest] = answers.map((v, i) => neutral(v, ['acc', 'pen', 'rej', 'nobody'][i]!));
    for (const r of rest) assert.deepEqual(r, first);
    assert.equal(first!.status, 'pending');
    assert.deepEqual(first!.wouldWrite, []);
    for (const v of answers) {
      assert.ok(!v.message.includes(fingerprint(acc)) && !v.message.includes(fingerprint(pen)), v.message);
      const fps = v.message.match(/[0-9a-f]{2}(?::[0-9a-f]{2}){31}/g) ?? [];
      assert.deepEqual(new Set(fps), new Set([fingerprint(other), MASTER_FP]), 'only its own and the master fingerprint');
    }
    assert.equal(snapshot(keys), before);
  });

  it('its own key among the denied keys: told it is denied, without the accepted fingerprint', (t) => {
    const keys = store(t);
    const acc = newPublicKeyPem();
    const mine = newPublicKeyPem();
    keys.write('accepted', 'acc', acc);
    keys.recordDenied('acc', mine, { remote: '127.0.0.1:1', at: 1 });
    const before = snapshot(keys);
    const d = probeAuth(keys, { id: 'acc', publicKeyPem: mine }, POLICY, MASTER_FP);
    assert.equal(d.status, 'denied');
    assert.ok(d.message.includes(fingerprint(mine)) && !d.message.includes(fingerprint(acc)), d.message);
    assert.match(d.message, /brine key --replace acc --finger/);
    assert.deepEqual(d.wouldWrite, ['denied'], 'a real sign-in would have kept it among the denied keys');
    assert.equal(snapshot(keys), before);
  });

  it('auto_accept and autoreject: what would happen, without accepting or rejecting anything', (t) => {
    const keys = store(t);
    const pem = newPublicKeyPem();
    keys.write('pending', 'auto', pem);
    const before = snapshot(keys);
    const a = probeAuth(keys, { id: 'auto', publicKeyPem: pem }, { ...POLICY, autoAccept: true }, MASTER_FP);
    assert.equal(a.status, 'accepted');
    assert.match(a.message, /will accept it at sign-in/);
    const r = probeAuth(keys, { id: 'auto', publicKeyPem: pem }, { ...POLICY, autoreject: () => true }, MASTER_FP);
    assert.equal(r.status, 'rejected');
    assert.deepEqual(r.wouldWrite, ['rejected']);
    assert.equal(snapshot(keys), before);
  });

  it('an invalid ID is refused before the store is touched', (t) => {
    const keys = store(t);
    const v = probeAuth(keys, { id: '../etc', publicKeyPem: newPublicKeyPem() }, POLICY, MASTER_FP);
    assert.equal(v.status, 'invalid_id');
    assert.deepEqual(v.wouldWrite, []);
  });
});
