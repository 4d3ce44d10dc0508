import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fingerprint, KeyStore, sameKey, type KeyState } from '../../../src/pki/index.js';
import { isBrineError } from '../../../src/util/errors.js';
import { newPublicKeyPem, tempDir, tree } from './helpers.js';

function store(t: import('node:test').TestContext): { root: string; pki: string; ks: KeyStore } {
  const root = tempDir(t);
  const pki = join(root, 'pki', 'master');
  const ks = new KeyStore(pki);
  ks.ensureLayout();
  return { root, pki, ks };
}

test("ensureLayout creates Salt's directories", (t) => {
  const { pki } = store(t);
  assert.deepEqual(readdirSync(pki).sort(), ['minions', 'minions_denied', 'minions_pre', 'minions_rejected']);
  assert.equal(statSync(join(pki, 'minions')).mode & 0o777, 0o700);
});

test('a key moves pending → accepted → rejected and is deleted, on disk in Salt layout', (t) => {
  const { pki, ks } = store(t);
  const pem = newPublicKeyPem();
  ks.write('pending', 'web1', pem);
  assert.equal(readFileSync(join(pki, 'minions_pre', 'web1'), 'utf8'), pem, 'file named exactly the ID, holding the PEM');
  assert.equal(ks.read('pending', 'web1'), pem);
  assert.equal(ks.read('accepted', 'web1'), undefined);
  assert.deepEqual(ks.states('web1'), ['pending']);

  ks.move('web1', 'pending', 'accepted');
  assert.deepEqual(ks.states('web1'), ['accepted']);
  assert.ok(existsSync(join(pki, 'minions', 'web1')));
  assert.ok(!existsSync(join(pki, 'minions_pre', 'web1')));

  ks.move('web1', 'accepted', 'rejected');
  assert.deepEqual(ks.states('web1'), ['rejected']);
  assert.equal(readFileSync(join(pki, 'minions_rejected', 'web1'), 'utf8'), pem);

  ks.write('denied', 'web1', newPublicKeyPem());
  assert.deepEqual(ks.states('web1'), ['rejected', 'denied']);
  assert.deepEqual(ks.remove('web1', 'denied'), ['denied']);
  assert.deepEqual(ks.states('web1'), ['rejected']);
  assert.deepEqual(ks.remove('web1'), ['rejected']);
  assert.deepEqual(ks.states('web1'), []);
  assert.deepEqual(ks.remove('web1'), [], 'removing nothing is not an error');
});

test('moving a key that is not there is KEY_NOT_FOUND', (t) => {
  const { ks } = store(t);
  assert.throws(
    () => ks.move('web1', 'pending', 'accepted'),
    (e) => isBrineError(e, 'KEY_NOT_FOUND') && e.message.includes('web1'),
  );
});

test('move replaces a key already in the target state', (t) => {
  const { ks } = store(t);
  const a = newPublicKeyPem();
  const b = newPublicKeyPem();
  ks.write('accepted', 'web1', a);
  ks.write('pending', 'web1', b);
  ks.move('web1', 'pending', 'accepted');
  assert.equal(ks.read('accepted', 'web1'), b);
  assert.deepEqual(ks.states('web1'), ['accepted']);
});

test('listings are sorted case-insensitively and skip dot-files, invalid names, symlinks and directories', (t) => {
  const { pki, ks } = store(t);
  for (const id of ['b', 'A', 'c', 'a1', 'B2']) ks.write('accepted', id, newPublicKeyPem());
  const dir = join(pki, 'minions');
  writeFileSync(join(dir, '.hidden'), 'x');
  writeFileSync(join(dir, 'localhost'), 'x');
  writeFileSync(join(dir, 'has space'), 'x');
  mkdirSync(join(dir, 'subdir'));
  symlinkSync('/etc/passwd', join(dir, 'linked'));
  assert.deepEqual(ks.list('accepted'), ['A', 'a1', 'b', 'B2', 'c']);
  assert.deepEqual(ks.list('pending'), []);
  ks.write('pending', 'p1', newPublicKeyPem());
  assert.deepEqual(ks.listAll(), { accepted: ['A', 'a1', 'b', 'B2', 'c'], pending: ['p1'], rejected: [], denied: [] });
});

test('a store whose directories do not exist yet lists nothing and creates them on write', (t) => {
  const ks = new KeyStore(join(tempDir(t), 'not-yet'));
  assert.deepEqual(ks.listAll(), { accepted: [], pending: [], rejected: [], denied: [] });
  assert.equal(ks.read('accepted', 'web1'), undefined);
  ks.write('pending', 'web1', newPublicKeyPem());
  assert.deepEqual(ks.list('pending'), ['web1']);
});

test('writes are atomic: mode 0644 despite the umask, no temporary files, content replaced whole', (t) => {
  const { pki, ks } = store(t);
  const old = process.umask(0o077);
  t.after(() => process.umask(old));
  const first = newPublicKeyPem();
  const second = newPublicKeyPem();
  ks.write('accepted', 'web1', first);
  ks.write('accepted', 'web1', second);
  ks.write('pending', 'web2', first);
  ks.move('web2', 'pending', 'rejected');
  const path = join(pki, 'minions', 'web1');
  assert.equal(statSync(path).mode & 0o777, 0o644);
  assert.equal(readFileSync(path, 'utf8'), second);
  assert.deepEqual(tree(pki), ['minions', 'minions/web1', 'minions_denied', 'minions_pre', 'minions_rejected', 'minions_rejected/web2']);
});

test('write refuses private keys, certificates-as-keys and garbage, and stores nothing', (t) => {
  const { pki, ks } = store(t);
  const priv = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  for (const bad of [priv, 'hello', '']) {
    assert.throws(
      () => ks.write('pending', 'web1', bad),
      (e) => isBrineError(e, 'PKI_KEY_INVALID'),
    );
  }
  assert.deepEqual(ks.listAll(), { accepted: [], pending: [], rejected: [], denied: [] });
  assert.deepEqual(
    tree(pki).filter((p) => p.includes('/')),
    [],
  );
});

test('a symlink planted in the store is not followed', (t) => {
  const { pki, ks } = store(t);
  symlinkSync('/etc/hostname', join(pki, 'minions', 'evil'));
  assert.throws(
    () => ks.read('accepted', 'evil'),
    (e) => isBrineError(e, 'PKI_KEY_INVALID'),
  );
});

test('fingerprintOf gives the stored key fingerprint, or undefined', (t) => {
  const { ks } = store(t);
  const pem = newPublicKeyPem();
  ks.write('accepted', 'web1', pem);
  assert.equal(ks.fingerprintOf('accepted', 'web1'), fingerprint(pem));
  assert.equal(ks.fingerprintOf('pending', 'web1'), undefined);
});

test('sameKey ignores surrounding whitespace, line endings and PEM spelling, not key material', () => {
  const pem = newPublicKeyPem();
  assert.equal(sameKey(pem, `\n  ${pem.replace(/\n/g, '\r\n')}  \n`), true);
  assert.equal(sameKey(pem, newPublicKeyPem()), false);
  const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey;
  assert.equal(sameKey(rsa.export({ type: 'pkcs1', format: 'pem' }) as string, rsa.export({ type: 'spki', format: 'pem' }) as string), true);
  assert.equal(sameKey('garbage', 'rubbish'), false);
  assert.equal(sameKey('garbage', ' garbage\r\n'), true, "Salt's text normalisation alone");
});

// threats.md case 5 and Salt CVE-2017-12791/CVE-2024-22231: the ID is checked before any path exists.
const BAD_IDS = ['../x', 'a/b', '', 'foo\0bar', 'x'.repeat(256), 'localhost', '..\\x', 'a/../../etc', '.', '..', '%2e%2e%2f', 'wеb1' /* Cyrillic е */];

test('invalid IDs throw INVALID_ID from every method and create nothing anywhere', (t) => {
  const { root, ks } = store(t);
  const before = tree(root);
  const pem = newPublicKeyPem();
  const states: KeyState[] = ['accepted', 'pending', 'rejected', 'denied'];
  for (const id of BAD_IDS) {
    const calls: Array<[string, () => unknown]> = [
      ['states', () => ks.states(id)],
      ['remove', () => ks.remove(id)],
      ...states.flatMap(
        (s): Array<[string, () => unknown]> => [
          [`read ${s}`, () => ks.read(s, id)],
          [`write ${s}`, () => ks.write(s, id, pem)],
          [`fingerprintOf ${s}`, () => ks.fingerprintOf(s, id)],
          [`remove ${s}`, () => ks.remove(id, s)],
          [`move ${s}`, () => ks.move(id, s, s === 'accepted' ? 'pending' : 'accepted')],
        ],
      ),
    ];
    for (const [name, call] of calls) {
      assert.throws(call, (e) => isBrineError(e, 'INVALID_ID'), `${name}(${JSON.stringify(id.slice(0, 20))})`);
    }
  }
  assert.deepEqual(tree(root), before);
});

test('a valid 255-character ID is stored', (t) => {
  const { ks } = store(t);
  const id = 'a'.repeat(255);
  ks.write('pending', id, newPublicKeyPem());
  assert.deepEqual(ks.list('pending'), [id]);
});

// issue 12: a master with 10,000 keys lists them on every publish; the listing is reused while
// the directory is unchanged, and a key accepted or deleted must still be seen at once
test('list reuses a listing while the directory is unchanged and sees every change at once', (t) => {
  const { pki, ks } = store(t);
  const dir = join(pki, 'minions');
  ks.write('accepted', 'web1', newPublicKeyPem());
  const old = new Date(Date.now() - 60_000);
  utimesSync(dir, old, old);
  assert.deepEqual(ks.list('accepted'), ['web1']);
  // another process accepts a key: the directory's mtime moves, so the new key shows at once
  writeFileSync(join(dir, 'web2'), newPublicKeyPem());
  assert.deepEqual(ks.list('accepted'), ['web1', 'web2']);
  ks.remove('web1', 'accepted');
  assert.deepEqual(ks.list('accepted'), ['web2']);
  // proof that a settled listing is reused: a change whose mtime is put back is not read again
  utimesSync(dir, old, old);
  assert.deepEqual(ks.list('accepted'), ['web2']);
  writeFileSync(join(dir, 'web3'), newPublicKeyPem());
  utimesSync(dir, old, old);
  assert.deepEqual(ks.list('accepted'), ['web2'], 'served from the listing of the unchanged directory');
  const mutated = ks.list('accepted');
  mutated.push('intruder');
  assert.deepEqual(ks.list('accepted'), ['web2'], 'callers get a copy');
});

test('list does not reuse a listing of a directory changed within the last second (same mtime tick)', (t) => {
  const { pki, ks } = store(t);
  const dir = join(pki, 'minions');
  ks.write('accepted', 'web1', newPublicKeyPem());
  const recent = new Date(Date.now() - 200);
  utimesSync(dir, recent, recent);
  assert.deepEqual(ks.list('accepted'), ['web1']);
  // a second key written in the same clock tick leaves the mtime where it was
  writeFileSync(join(dir, 'web2'), newPublicKeyPem());
  utimesSync(dir, recent, recent);
  assert.deepEqual(ks.list('accepted'), ['web1', 'web2']);
});
