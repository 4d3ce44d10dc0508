import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fingerprint, isFingerprint, loadOrCreateIdentity } from '../../../src/pki/index.js';
import { isBrineError } from '../../../src/util/errors.js';
import { tempDir } from './helpers.js';

const mode = (path: string): number => statSync(path).mode & 0o777;

test('first start creates pki_dir (0700), an Ed25519 key (0600), pub and cert (0644)', async (t) => {
  const pkiDir = join(tempDir(t), 'etc', 'pki', 'minion');
  const id = await loadOrCreateIdentity({ pkiDir, name: 'minion', commonName: 'web1' });

  assert.equal(mode(pkiDir), 0o700);
  assert.deepEqual(id.paths, { key: join(pkiDir, 'minion.pem'), pub: join(pkiDir, 'minion.pub'), cert: join(pkiDir, 'minion.crt') });
  assert.deepEqual(readdirSync(pkiDir).sort(), ['minion.crt', 'minion.pem', 'minion.pub'], 'no temporary files left behind');
  assert.equal(mode(id.paths.key), 0o600);
  assert.equal(mode(id.paths.pub), 0o644);
  assert.equal(mode(id.paths.cert), 0o644);

  assert.match(readFileSync(id.paths.key, 'utf8'), /^-----BEGIN PRIVATE KEY-----/, 'PKCS#8');
  assert.match(readFileSync(id.paths.pub, 'utf8'), /^-----BEGIN PUBLIC KEY-----/, 'SPKI');
  assert.equal(createPrivateKey(id.privateKeyPem).asymmetricKeyType, 'ed25519');
  assert.equal(readFileSync(id.paths.key, 'utf8'), id.privateKeyPem);
  assert.equal(readFileSync(id.paths.cert, 'utf8'), id.certPem);

  assert.ok(isFingerprint(id.fingerprint));
  assert.equal(fingerprint(id.publicKeyPem), id.fingerprint);
  assert.equal(fingerprint(id.certPem), id.fingerprint);

  const cert = new X509Certificate(id.certPem);
  assert.equal(cert.subject, 'CN=web1');
  assert.equal(cert.issuer, 'CN=web1', 'self-signed');
  assert.ok(cert.verify(cert.publicKey), 'signature verifies with its own key');
  assert.ok(cert.checkPrivateKey(createPrivateKey(id.privateKeyPem)));
  const years = (Date.parse(cert.validTo) - Date.now()) / (365.25 * 86400_000);
  assert.ok(years > 19.9 && years < 20.1, `validity ${years} years`);
  assert.ok(Date.parse(cert.validFrom) <= Date.now(), 'valid from now (or a little before)');
});

test('two identities get different keys and random serials', async (t) => {
  const dir = tempDir(t);
  const a = await loadOrCreateIdentity({ pkiDir: join(dir, 'a'), name: 'minion', commonName: 'same' });
  const b = await loadOrCreateIdentity({ pkiDir: join(dir, 'b'), name: 'minion', commonName: 'same' });
  assert.notEqual(a.fingerprint, b.fingerprint);
  assert.notEqual(new X509Certificate(a.certPem).serialNumber, new X509Certificate(b.certPem).serialNumber);
});

test('later starts load the same identity without rewriting anything', async (t) => {
  const pkiDir = tempDir(t);
  const first = await loadOrCreateIdentity({ pkiDir, name: 'master', commonName: 'salt' });
  const mtimes = Object.values(first.paths).map((p) => statSync(p).mtimeMs);
  const again = await loadOrCreateIdentity({ pkiDir, name: 'master', commonName: 'salt' });
  assert.deepEqual(again, first);
  assert.deepEqual(
    Object.values(again.paths).map((p) => statSync(p).mtimeMs),
    mtimes,
  );
});

test('a certificate for another key is replaced; the key (identity) is kept', async (t) => {
  const dir = tempDir(t);
  const mine = await loadOrCreateIdentity({ pkiDir: join(dir, 'mine'), name: 'minion', commonName: 'web1' });
  const other = await loadOrCreateIdentity({ pkiDir: join(dir, 'other'), name: 'minion', commonName: 'web1' });
  writeFileSync(mine.paths.cert, other.certPem);

  const reloaded = await loadOrCreateIdentity({ pkiDir: join(dir, 'mine'), name: 'minion', commonName: 'web1' });
  assert.equal(reloaded.privateKeyPem, mine.privateKeyPem);
  assert.equal(reloaded.fingerprint, mine.fingerprint);
  assert.notEqual(reloaded.certPem, other.certPem);
  assert.equal(fingerprint(readFileSync(mine.paths.cert, 'utf8')), mine.fingerprint);
});

test('a garbage certificate, a changed CN or a missing pub file are re-derived from the key', async (t) => {
  const pkiDir = tempDir(t);
  const first = await loadOrCreateIdentity({ pkiDir, name: 'minion', commonName: 'web1' });
  writeFileSync(first.paths.cert, 'garbage');
  unlinkSync(first.paths.pub);
  const second = await loadOrCreateIdentity({ pkiDir, name: 'minion', commonName: 'web1' });
  assert.equal(second.fingerprint, first.fingerprint);
  assert.equal(readFileSync(first.paths.pub, 'utf8'), first.publicKeyPem);
  assert.equal(fingerprint(readFileSync(first.paths.cert, 'utf8')), first.fingerprint);

  const renamed = await loadOrCreateIdentity({ pkiDir, name: 'minion', commonName: 'web2' });
  assert.equal(renamed.fingerprint, first.fingerprint);
  assert.equal(new X509Certificate(renamed.certPem).subject, 'CN=web2');
});

test('an existing directory keeps its mode; a group-readable key is narrowed to 0600', async (t) => {
  const pkiDir = tempDir(t);
  chmodSync(pkiDir, 0o755);
  const first = await loadOrCreateIdentity({ pkiDir, name: 'minion', commonName: 'web1' });
  assert.equal(mode(pkiDir), 0o755);
  chmodSync(first.paths.key, 0o644);
  await loadOrCreateIdentity({ pkiDir, name: 'minion', commonName: 'web1' });
  assert.equal(mode(first.paths.key), 0o600);
  chmodSync(first.paths.key, 0o400);
  await loadOrCreateIdentity({ pkiDir, name: 'minion', commonName: 'web1' });
  assert.equal(mode(first.paths.key), 0o400, "Salt's stricter 0400 is left alone");
});

test('a corrupt private key is PKI_KEY_INVALID and is not overwritten', async (t) => {
  const pkiDir = tempDir(t);
  const keyPath = join(pkiDir, 'minion.pem');
  writeFileSync(keyPath, '-----BEGIN PRIVATE KEY-----\nnot base64 at all\n-----END PRIVATE KEY-----\n', { mode: 0o600 });
  await assert.rejects(loadOrCreateIdentity({ pkiDir, name: 'minion', commonName: 'web1' }), (e) => {
    assert.ok(isBrineError(e, 'PKI_KEY_INVALID'));
    assert.ok(e.message.includes(keyPath), 'names the file');
    return true;
  });
  assert.match(readFileSync(keyPath, 'utf8'), /not base64 at all/, 'left for the operator to inspect');
  assert.deepEqual(readdirSync(pkiDir), ['minion.pem']);
});

test('an unsupported key type (RSA) is PKI_KEY_INVALID', async (t) => {
  const pkiDir = tempDir(t);
  const { generateKeyPairSync } = await import('node:crypto');
  const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  writeFileSync(join(pkiDir, 'master.pem'), rsa);
  await assert.rejects(loadOrCreateIdentity({ pkiDir, name: 'master', commonName: 'm' }), (e) => isBrineError(e, 'PKI_KEY_INVALID') && /rsa/i.test(e.message));
});

test('an EC P-256 key is accepted and gets a matching certificate', async (t) => {
  const pkiDir = tempDir(t);
  const { generateKeyPairSync } = await import('node:crypto');
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  writeFileSync(join(pkiDir, 'minion.pem'), ec.export({ type: 'pkcs8', format: 'pem' }) as string, { mode: 0o600 });
  const id = await loadOrCreateIdentity({ pkiDir, name: 'minion', commonName: 'p256' });
  assert.equal(id.fingerprint, fingerprint(ec));
  assert.equal(fingerprint(id.certPem), id.fingerprint);
});

test('a pki_dir that cannot be created is PKI_UNWRITABLE naming the path and the OS error', async (t) => {
  const dir = tempDir(t);
  const blocker = join(dir, 'a-file');
  writeFileSync(blocker, ''); // running as root: chmod would not stop us, a file in the path does
  const pkiDir = join(blocker, 'pki');
  await assert.rejects(loadOrCreateIdentity({ pkiDir, name: 'minion', commonName: 'web1' }), (e) => {
    assert.ok(isBrineError(e, 'PKI_UNWRITABLE'));
    assert.ok(e.message.includes(pkiDir), e.message);
    assert.match(e.message, /ENOTDIR/);
    assert.match(e.message, /writable/);
    return true;
  });
  assert.deepEqual(readdirSync(dir), ['a-file']);
});

test('a pki_dir that is a file is PKI_UNWRITABLE', async (t) => {
  const pkiDir = join(tempDir(t), 'pki');
  writeFileSync(pkiDir, '');
  await assert.rejects(loadOrCreateIdentity({ pkiDir, name: 'master', commonName: 'm' }), (e) => isBrineError(e, 'PKI_UNWRITABLE') && e.message.includes(pkiDir));
});

test('a key file that is a directory is reported, not replaced', async (t) => {
  const pkiDir = tempDir(t);
  mkdirSync(join(pkiDir, 'minion.pem'));
  await assert.rejects(loadOrCreateIdentity({ pkiDir, name: 'minion', commonName: 'web1' }), (e) => isBrineError(e, 'PKI_KEY_INVALID'));
});
