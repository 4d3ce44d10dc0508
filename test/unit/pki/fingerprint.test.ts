import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey, createSecretKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { certificateKeyFromDer, fingerprint, isFingerprint, normalizeFingerprint, createSelfSignedCert, spkiPemFingerprint } from '../../../src/pki/index.js';
import { isBrineError } from '../../../src/util/errors.js';

// RFC 8032 §7.1 test 1 public key, wrapped in SPKI; fingerprint computed independently (Python hashlib).
const RFC8032_PUB = '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=\n-----END PUBLIC KEY-----\n';
const RFC8032_FP = '06:e3:fd:8f:da:29:bb:60:ab:59:55:7d:e6:1e:db:0a:ec:db:23:11:34:be:30:e7:5b:45:5f:8e:1b:79:2f:a9';

test('fingerprint is SHA-256 of the SPKI DER as 32 lowercase colon pairs', () => {
  assert.equal(fingerprint(RFC8032_PUB), RFC8032_FP);
  const fp = fingerprint(generateKeyPairSync('ed25519').publicKey);
  assert.match(fp, /^[0-9a-f]{2}(:[0-9a-f]{2}){31}$/);
  assert.equal(fp.split(':').length, 32);
});

test('the same key gives the same fingerprint in every form; another key a different one', async () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const privPem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  const pubPem = publicKey.export({ type: 'spki', format: 'pem' }) as string;
  const certPem = await createSelfSignedCert(privateKey, 'fp-test');
  const expected = fingerprint(pubPem);
  assert.equal(fingerprint(publicKey), expected);
  assert.equal(fingerprint(privateKey), expected, 'private KeyObject reduces to its public half');
  assert.equal(fingerprint(privPem), expected, 'private PEM reduces to its public half');
  assert.equal(fingerprint(createPrivateKey(privPem)), expected);
  assert.equal(fingerprint(certPem), expected, 'certificate and public key agree');
  assert.equal(fingerprint(pubPem.replace(/\n/g, '\r\n')), expected, 'line endings do not matter');
  assert.notEqual(fingerprint(generateKeyPairSync('ed25519').publicKey), expected);
});

test('RSA keys in PKCS#1 and SPKI spelling have one fingerprint', () => {
  const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const pkcs1 = publicKey.export({ type: 'pkcs1', format: 'pem' }) as string;
  assert.match(pkcs1, /BEGIN RSA PUBLIC KEY/);
  assert.equal(fingerprint(createPublicKey(pkcs1)), fingerprint(publicKey));
  assert.equal(fingerprint(pkcs1), fingerprint(publicKey));
});

test('unreadable input is PKI_KEY_INVALID', () => {
  assert.throws(
    () => fingerprint('not a key'),
    (e) => isBrineError(e, 'PKI_KEY_INVALID'),
  );
  assert.throws(
    () => fingerprint('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n'),
    (e) => isBrineError(e, 'PKI_KEY_INVALID'),
  );
  assert.throws(
    () => fingerprint(createSecretKey(Buffer.alloc(32))),
    (e) => isBrineError(e, 'PKI_KEY_INVALID'),
  );
});

test('isFingerprint accepts only the canonical form', () => {
  assert.equal(isFingerprint(RFC8032_FP), true);
  assert.equal(isFingerprint(RFC8032_FP.toUpperCase()), false);
  assert.equal(isFingerprint(RFC8032_FP.replace(/:/g, '')), false);
  assert.equal(isFingerprint(RFC8032_FP.slice(3)), false, '31 pairs');
  assert.equal(isFingerprint(`${RFC8032_FP}:00`), false, '33 pairs');
  assert.equal(isFingerprint(`${RFC8032_FP}\n`), false);
  assert.equal(isFingerprint(undefined), false);
  assert.equal(isFingerprint(42), false);
});

test('normalizeFingerprint accepts colons or none, any case; refuses everything else', () => {
  assert.equal(normalizeFingerprint(RFC8032_FP.replace(/:/g, '').toUpperCase()), RFC8032_FP);
  assert.equal(normalizeFingerprint(`  ${RFC8032_FP.toUpperCase()}\n`), RFC8032_FP);
  assert.equal(normalizeFingerprint(RFC8032_FP), RFC8032_FP);
  assert.equal(normalizeFingerprint(RFC8032_FP.replace(/:/g, '').slice(1)), undefined, '63 digits');
  assert.equal(normalizeFingerprint(RFC8032_FP.replace('06', 'zz')), undefined, 'not hex');
  const hex = RFC8032_FP.replace(/:/g, '');
  assert.equal(normalizeFingerprint(`${hex.slice(0, 1)}:${hex.slice(1)}`), undefined, 'misplaced colon');
  assert.equal(normalizeFingerprint(''), undefined);
});

// The sign-in hot path (issue 12): the same fingerprints without KeyObjects.
test('spkiPemFingerprint and certificateKeyFromDer agree with fingerprint() for Ed25519 and P-256, and refuse what they cannot read', async () => {
  assert.equal(spkiPemFingerprint(RFC8032_PUB), RFC8032_FP);
  for (const kind of ['ed25519', 'p256'] as const) {
    const { privateKey, publicKey } = kind === 'ed25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pubPem = publicKey.export({ type: 'spki', format: 'pem' }) as string;
    assert.equal(spkiPemFingerprint(pubPem), fingerprint(pubPem), kind);
    assert.equal(spkiPemFingerprint(pubPem.replace(/\n/g, '\r\n')), fingerprint(pubPem), `${kind}, CRLF`);
    const certPem = await createSelfSignedCert(privateKey, `fp-${kind}`);
    const quick = certificateKeyFromDer(new X509Certificate(certPem).raw);
    assert.deepEqual(quick, { fingerprint: fingerprint(pubPem), pem: pubPem }, kind);
  }
  // not a plain public key PEM: the caller must take the long way
  assert.equal(spkiPemFingerprint(generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string), undefined);
  assert.equal(spkiPemFingerprint('-----BEGIN PUBLIC KEY-----\nnot base64!\n-----END PUBLIC KEY-----\n'), undefined);
  assert.equal(spkiPemFingerprint(`${RFC8032_PUB}${RFC8032_PUB}`), undefined, 'two blocks');
  // a truncated or foreign DER is undefined, never a wrong key
  const der = new X509Certificate(await createSelfSignedCert(generateKeyPairSync('ed25519').privateKey, 'cut')).raw;
  assert.equal(certificateKeyFromDer(der.subarray(0, 40)), undefined);
  assert.equal(certificateKeyFromDer(Buffer.from([0x02, 0x01, 0x00])), undefined);
});
