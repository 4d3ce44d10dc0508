// The self-signed certificates made without a certificate library (src/pki/der.ts, issue 12):
// what TLS peers and browsers read from them must be what @peculiar/x509 used to write.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { certificateProblem, createSelfSignedCert } from '../../../src/pki/index.js';
import { ipOctets } from '../../../src/pki/der.js';

const NOW = new Date('2031-05-06T07:08:09.123Z');

test('an Ed25519 certificate: v3, self-signed CN, backdated an hour, 20 years, CA false, verifies with its key', async () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const pem = await createSelfSignedCert(privateKey, 'web1', NOW);
  assert.match(pem, /^-----BEGIN CERTIFICATE-----\n(?:[A-Za-z0-9+/]{64}\n)*[A-Za-z0-9+/=]{1,64}\n-----END CERTIFICATE-----\n$/);
  const cert = new X509Certificate(pem);
  assert.equal(cert.subject, 'CN=web1');
  assert.equal(cert.issuer, 'CN=web1');
  assert.equal(cert.validFrom, 'May  6 06:08:09 2031 GMT');
  assert.equal(cert.validTo, 'May  6 07:08:09 2051 GMT', 'GeneralizedTime from 2050 on');
  assert.equal(cert.ca, false);
  assert.equal(cert.subjectAltName, undefined);
  assert.ok(cert.verify(publicKey), 'signed by its own key');
  assert.ok(cert.publicKey.equals(publicKey));
  assert.match(cert.serialNumber, /^[0-7][0-9A-F]{31}$/, '16 bytes, positive, no leading zero byte');
  assert.equal(certificateProblem(pem, privateKey, 'web1', NOW), undefined);
  assert.ok(cert.toLegacyObject().ext_key_usage === undefined);
});

test('an EC P-256 certificate with subjectAltName and serverAuth, as the API serves to browsers', async () => {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const pem = await createSelfSignedCert(privateKey, 'brine api', NOW, { dns: ['localhost', 'salt.example.com'], ip: ['127.0.0.1', '::1', 'fe80::1:2'] });
  const cert = new X509Certificate(pem);
  assert.equal(cert.subject, 'CN=brine api');
  assert.equal(cert.subjectAltName, 'DNS:localhost, DNS:salt.example.com, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, IP Address:FE80:0:0:0:0:0:1:2');
  assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.1']);
  assert.ok(cert.verify(createPublicKey(privateKey)));
  assert.equal(cert.validTo, 'May  6 07:08:09 2051 GMT');
});

test('a CN outside PrintableString is kept exactly (UTF8String)', async () => {
  const { privateKey } = generateKeyPairSync('ed25519');
  const pem = await createSelfSignedCert(privateKey, 'web_1@dc-ü', NOW);
  assert.equal(new X509Certificate(pem).subject, 'CN=web_1@dc-ü');
  assert.equal(certificateProblem(pem, privateKey, 'web_1@dc-ü', NOW), undefined);
});

test('a certificate made before 2050 ends with UTCTime that peers read back', async () => {
  const { privateKey } = generateKeyPairSync('ed25519');
  const cert = new X509Certificate(await createSelfSignedCert(privateKey, 'web1', new Date('2026-12-04T17:00:00Z')));
  assert.equal(cert.validTo, 'Dec  4 17:00:00 2046 GMT');
});

test('ipOctets: IPv4, compressed IPv6 and IPv6 with a dotted quad', () => {
  assert.equal(ipOctets('10.1.2.3').toString('hex'), '0a010203');
  assert.equal(ipOctets('::1').toString('hex'), '00000000000000000000000000000001');
  assert.equal(ipOctets('2001:db8::ffff:1.2.3.4').toString('hex'), '20010db8000000000000ffff01020304');
  assert.equal(ipOctets('1:2:3:4:5:6:7:8').toString('hex'), '00010002000300040005000600070008');
  assert.equal(ipOctets('fe80::1%eth0').toString('hex'), 'fe800000000000000000000000000001');
  for (const bad of ['not-an-ip', '1.2.3', '256.1.1.1', '1::2::3', '1:2:3:4:5:6:7:8:9', '12345::', ':::', '1:2:3:4:5:6:7::8']) assert.throws(() => ipOctets(bad), /not an IP address/, bad);
});
