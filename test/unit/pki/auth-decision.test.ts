// Salt's §4.2 decision table, one row per case, checking the status, the fingerprints reported
// and the whole key store after its effects are applied (which file holds which key); deciding
// alone writes nothing.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { applyKeyEffects, decideAuth, fingerprint, KeyStore, KEY_STATES, type AuthPolicy, type AuthStatus, type KeyState } from '../../../src/pki/index.js';
import { isBrineError } from '../../../src/util/errors.js';
import { loadOrCreateIdentity } from '../../../src/pki/index.js';
import { newPublicKeyPem, tempDir, tree } from './helpers.js';

type KeyName = 'K1' | 'K2';
const KEYS = new Map<KeyName, string>([
  ['K1', newPublicKeyPem()],
  ['K2', newPublicKeyPem()],
]);
const pem = (k: KeyName): string => KEYS.get(k)!;
const fp = (k: KeyName): string => fingerprint(pem(k));

type Layout = Partial<Record<KeyState, KeyName>>;

interface Row {
  name: string;
  id?: string;
  before: Layout;
  presented: KeyName;
  policy?: Partial<AuthPolicy>;
  status: AuthStatus;
  after: Layout;
  existing?: KeyName;
  reason?: RegExp;
}

const only = (ids: string[]) => (id: string) => ids.includes(id);

const ROWS: Row[] = [
  // 1. invalid ID: nothing stored
  { name: 'invalid ID ../x', id: '../x', before: {}, presented: 'K1', status: 'invalid_id', after: {}, reason: /invalid ID/ },
  { name: 'invalid ID localhost, even in open mode', id: 'localhost', before: {}, presented: 'K1', policy: { openMode: true }, status: 'invalid_id', after: {} },
  // 2. max_minions
  {
    name: 'full: limit reached and not connected',
    before: {},
    presented: 'K1',
    policy: { maxMinions: 2, connectedCount: 2, isConnected: () => false },
    status: 'full',
    after: {},
    reason: /max_minions is 2/,
  },
  { name: 'full is checked before open mode', before: {}, presented: 'K1', policy: { openMode: true, maxMinions: 1, connectedCount: 5 }, status: 'full', after: {} },
  {
    name: 'limit reached but this ID is connected: proceeds',
    before: { accepted: 'K1' },
    presented: 'K1',
    policy: { maxMinions: 2, connectedCount: 2, isConnected: only(['web1']) },
    status: 'accepted',
    after: { accepted: 'K1' },
    existing: 'K1',
  },
  { name: 'under the limit: proceeds', before: {}, presented: 'K1', policy: { maxMinions: 3, connectedCount: 2 }, status: 'pending', after: { pending: 'K1' } },
  { name: 'max_minions 0 is unlimited', before: {}, presented: 'K1', policy: { maxMinions: 0, connectedCount: 1000 }, status: 'pending', after: { pending: 'K1' } },
  // 3. open mode
  { name: 'open mode, new key: accepted', before: {}, presented: 'K1', policy: { openMode: true }, status: 'accepted', after: { accepted: 'K1' }, reason: /open_mode/ },
  {
    name: 'open mode overwrites a different accepted key',
    before: { accepted: 'K2' },
    presented: 'K1',
    policy: { openMode: true },
    status: 'accepted',
    after: { accepted: 'K1' },
    existing: 'K2',
    reason: /replacing/,
  },
  { name: 'open mode ignores a rejected key', before: { rejected: 'K1' }, presented: 'K1', policy: { openMode: true }, status: 'accepted', after: { rejected: 'K1', accepted: 'K1' } },
  // 4. rejected, checked before accepted
  { name: 'rejected key', before: { rejected: 'K1' }, presented: 'K1', status: 'rejected', after: { rejected: 'K1' }, existing: 'K1', reason: /rejection key dir/ },
  { name: 'rejected wins over accepted', before: { rejected: 'K1', accepted: 'K1' }, presented: 'K1', status: 'rejected', after: { rejected: 'K1', accepted: 'K1' }, existing: 'K1' },
  {
    name: 'rejected ID with another key: still rejected, nothing written',
    before: { rejected: 'K1' },
    presented: 'K2',
    policy: { autoAccept: true },
    status: 'rejected',
    after: { rejected: 'K1' },
    existing: 'K1',
  },
  // 5. accepted
  { name: 'accepted, same key', before: { accepted: 'K1' }, presented: 'K1', status: 'accepted', after: { accepted: 'K1' }, existing: 'K1' },
  { name: 'accepted, different key: denied and written to minions_denied', before: { accepted: 'K1' }, presented: 'K2', status: 'denied', after: { accepted: 'K1', denied: 'K2' }, existing: 'K1' },
  {
    name: 'accepted, different key, denied already holds an older attempt: overwritten',
    before: { accepted: 'K1', denied: 'K1' },
    presented: 'K2',
    status: 'denied',
    after: { accepted: 'K1', denied: 'K2' },
    existing: 'K1',
  },
  { name: 'accepted is checked before autoreject', before: { accepted: 'K1' }, presented: 'K1', policy: { autoreject: () => true }, status: 'accepted', after: { accepted: 'K1' }, existing: 'K1' },
  {
    name: 'different key is denied even with auto_accept',
    before: { accepted: 'K1' },
    presented: 'K2',
    policy: { autoAccept: true },
    status: 'denied',
    after: { accepted: 'K1', denied: 'K2' },
    existing: 'K1',
  },
  // 6. no pending file
  { name: 'new key: pending', before: {}, presented: 'K1', status: 'pending', after: { pending: 'K1' }, reason: /placed in pending.*brine key -a web1/ },
  { name: 'denied keys are never consulted', before: { denied: 'K2' }, presented: 'K1', status: 'pending', after: { denied: 'K2', pending: 'K1' } },
  { name: 'new key, autoreject: rejected', before: {}, presented: 'K1', policy: { autoreject: only(['web1']) }, status: 'rejected', after: { rejected: 'K1' }, reason: /autoreject_file/ },
  { name: 'new key, autoreject beats autosign', before: {}, presented: 'K1', policy: { autoreject: () => true, autosign: () => true }, status: 'rejected', after: { rejected: 'K1' } },
  { name: 'new key, autosign: accepted directly', before: {}, presented: 'K1', policy: { autosign: only(['web1']) }, status: 'accepted', after: { accepted: 'K1' }, reason: /autosign_file/ },
  { name: 'new key, autosign for other IDs only: pending', before: {}, presented: 'K1', policy: { autosign: only(['web2']), autoreject: only(['web3']) }, status: 'pending', after: { pending: 'K1' } },
  { name: 'new key, auto_accept: accepted', before: {}, presented: 'K1', policy: { autoAccept: true }, status: 'accepted', after: { accepted: 'K1' }, reason: /auto_accept/ },
  // 7. pending file exists
  {
    name: 'pending, autoreject: the pending key moves to rejected',
    before: { pending: 'K1' },
    presented: 'K2',
    policy: { autoreject: () => true },
    status: 'rejected',
    after: { rejected: 'K1' },
    existing: 'K1',
  },
  { name: 'pending, different key: denied', before: { pending: 'K1' }, presented: 'K2', status: 'denied', after: { pending: 'K1', denied: 'K2' }, existing: 'K1', reason: /in pending/ },
  { name: 'pending, same key: still pending', before: { pending: 'K1' }, presented: 'K1', status: 'pending', after: { pending: 'K1' }, existing: 'K1', reason: /needs to be accepted/ },
  {
    name: 'pending, same key, autosign: pending removed, accepted',
    before: { pending: 'K1' },
    presented: 'K1',
    policy: { autosign: () => true },
    status: 'accepted',
    after: { accepted: 'K1' },
    existing: 'K1',
  },
  { name: 'pending, same key, auto_accept: accepted', before: { pending: 'K1' }, presented: 'K1', policy: { autoAccept: true }, status: 'accepted', after: { accepted: 'K1' }, existing: 'K1' },
  {
    name: 'pending, different key, autosign: denied, nothing accepted',
    before: { pending: 'K1' },
    presented: 'K2',
    policy: { autosign: () => true },
    status: 'denied',
    after: { pending: 'K1', denied: 'K2' },
    existing: 'K1',
  },
];

const BASE: AuthPolicy = { autoAccept: false, openMode: false };

function layoutOf(ks: KeyStore, id: string): Layout {
  const out: Layout = {};
  for (const state of KEY_STATES) {
    const stored = ks.read(state, id);
    if (stored === undefined) continue;
    const name = [...KEYS].find(([, p]) => p === stored)?.[0];
    assert.ok(name !== undefined, `unexpected content in ${state}/${id}`);
    out[state] = name;
  }
  return out;
}

for (const row of ROWS) {
  test(`decideAuth: ${row.name}`, (t) => {
    const root = tempDir(t);
    const ks = new KeyStore(join(root, 'pki'));
    ks.ensureLayout();
    const id = row.id ?? 'web1';
    for (const [state, key] of Object.entries(row.before) as Array<[KeyState, KeyName]>) ks.write(state, id, pem(key));
    const filesBefore = tree(root);

    const d = decideAuth(ks, { id, publicKeyPem: pem(row.presented) }, { ...BASE, ...row.policy });
    assert.deepEqual(tree(root), filesBefore, 'the decision itself writes nothing');
    applyKeyEffects(ks, d.effects, { remote: '127.0.0.1:5555', at: 1 });

    assert.equal(d.status, row.status, d.reason);
    assert.equal(d.presentedFingerprint, fp(row.presented));
    assert.equal(d.existingFingerprint, row.existing === undefined ? undefined : fp(row.existing));
    assert.ok(d.reason.length > 10);
    if (row.reason) assert.match(d.reason, row.reason);
    if (row.status === 'invalid_id' || row.status === 'full') assert.deepEqual(tree(root), filesBefore, 'no file written');
    else assert.deepEqual(layoutOf(ks, id), row.after);
  });
}

test('denied reason names the ID and both fingerprints for the operator', (t) => {
  const ks = new KeyStore(join(tempDir(t), 'pki'));
  ks.write('accepted', 'web1', pem('K1'));
  const d = decideAuth(ks, { id: 'web1', publicKeyPem: pem('K2') }, BASE);
  assert.ok(d.reason.startsWith(`ID web1 is already accepted with key ${fp('K1')}; this minion presented ${fp('K2')}`), d.reason);
});

test('the same key in another PEM spelling (CRLF, certificate-derived) is the same key', async (t) => {
  const ks = new KeyStore(join(tempDir(t), 'pki'));
  ks.write('accepted', 'web1', pem('K1'));
  const crlf = pem('K1').replace(/\n/g, '\r\n');
  assert.equal(decideAuth(ks, { id: 'web1', publicKeyPem: crlf }, BASE).status, 'accepted');
  const identity = await loadOrCreateIdentity({ pkiDir: tempDir(t), name: 'minion', commonName: 'web2' });
  ks.write('accepted', 'web2', identity.publicKeyPem);
  assert.equal(decideAuth(ks, { id: 'web2', publicKeyPem: identity.certPem }, BASE).status, 'accepted');
});

test('what is stored is canonical SPKI PEM even if the caller sent a certificate', async (t) => {
  const ks = new KeyStore(join(tempDir(t), 'pki'));
  const identity = await loadOrCreateIdentity({ pkiDir: tempDir(t), name: 'minion', commonName: 'web1' });
  applyKeyEffects(ks, decideAuth(ks, { id: 'web1', publicKeyPem: identity.certPem }, BASE).effects, { remote: '127.0.0.1:5555', at: 1 });
  assert.equal(ks.read('pending', 'web1'), identity.publicKeyPem);
});

test('key types brine does not make are rejected with KEY_TYPE_UNSUPPORTED and nothing is stored, even in open mode', (t) => {
  const root = tempDir(t);
  const ks = new KeyStore(join(root, 'pki'));
  ks.ensureLayout();
  const before = tree(root);
  const keys: Array<[string, string]> = [
    ['RSA-1024', generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'pkcs1', format: 'pem' }) as string],
    ['RSA-2048', generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }) as string],
    ['RSA-PSS', generateKeyPairSync('rsa-pss', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }) as string],
    ['Ed448', generateKeyPairSync('ed448').publicKey.export({ type: 'spki', format: 'pem' }) as string],
    ['P-384', generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey.export({ type: 'spki', format: 'pem' }) as string],
  ];
  for (const [name, key] of keys) {
    for (const policy of [BASE, { ...BASE, openMode: true }, { ...BASE, autoAccept: true }]) {
      const d = decideAuth(ks, { id: 'web1', publicKeyPem: key }, policy);
      assert.equal(d.status, 'rejected', name);
      assert.equal(d.code, 'KEY_TYPE_UNSUPPORTED', name);
      assert.deepEqual(d.effects, [], name);
      assert.match(d.reason, /Ed25519 or EC P-256/, name);
    }
  }
  const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }) as string;
  assert.equal(decideAuth(ks, { id: 'web1', publicKeyPem: p256 }, BASE).status, 'pending', 'P-256 with a named curve is fine');
  assert.deepEqual(tree(root), before);
});

test('a presented value that is not a public key is PKI_KEY_INVALID and stores nothing', (t) => {
  const root = tempDir(t);
  const ks = new KeyStore(join(root, 'pki'));
  assert.throws(
    () => decideAuth(ks, { id: 'web1', publicKeyPem: 'nope' }, BASE),
    (e) => isBrineError(e, 'PKI_KEY_INVALID'),
  );
  assert.deepEqual(tree(root), []);
});

test('a rejected key says by whom: autoreject_file when it still matches, else an operator', (t) => {
  const dir = tempDir(t);
  const store = new KeyStore(join(dir, 'pki'));
  store.ensureLayout();
  store.write('rejected', 'evil1', pem('K1'));
  store.write('rejected', 'web1', pem('K1'));
  const policy: AuthPolicy = { autoAccept: false, openMode: false, autoreject: (id) => id.startsWith('evil') };
  assert.match(decideAuth(store, { id: 'evil1', publicKeyPem: pem('K1') }, policy).reason, /by autoreject_file/);
  assert.match(decideAuth(store, { id: 'web1', publicKeyPem: pem('K1') }, policy).reason, /by an operator \('brine key -r'\)/);
});
