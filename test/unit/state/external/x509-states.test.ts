// x509.private_key_managed and x509.certificate_managed on real files in a temp dir, keys from
// node:crypto and certificates issued by the real `openssl` program, checked with node:crypto
// and `openssl x509`. Shapes (changes created/replaced/keysize/passphrase/expiration/
// subject_name, comments) from salt/states/x509_v2.py private_key_managed and
// certificate_managed.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runState } from '../state-ctx.js';

describe('x509 states on real files', () => {
  let dir = '';
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-x509-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const p = (n: string) => path.join(dir, n);

  it('private_key_managed: test=True predicts, a run creates a 0400 RSA 2048 key, a second run keeps it', async () => {
    const t = await runState('x509.private_key_managed', { name: p('www.key') }, { test: true });
    assert.deepEqual(t, { name: p('www.key'), result: null, changes: { created: p('www.key') }, comment: 'The private key would have been created' });
    assert.equal(fs.existsSync(p('www.key')), false);
    const r = await runState('x509.private_key_managed', { name: p('www.key') });
    assert.deepEqual(r, { name: p('www.key'), result: true, changes: { created: p('www.key') }, comment: 'The private key has been created' });
    const key = createPrivateKey(fs.readFileSync(p('www.key')));
    assert.equal(key.asymmetricKeyType, 'rsa');
    assert.equal(key.asymmetricKeyDetails?.modulusLength, 2048);
    assert.equal(fs.statSync(p('www.key')).mode & 0o777, 0o400, "Salt's secure default mode");
    const before = fs.readFileSync(p('www.key'), 'utf8');
    assert.deepEqual(await runState('x509.private_key_managed', { name: p('www.key') }), { name: p('www.key'), result: true, changes: {}, comment: 'The private key is in the correct state' });
    assert.equal(fs.readFileSync(p('www.key'), 'utf8'), before, 'kept');
  });

  it('private_key_managed: another keysize or algorithm recreates it; a passphrase alone re-encrypts the same key', async () => {
    const t = await runState('x509.private_key_managed', { name: p('www.key'), keysize: 3072 }, { test: true });
    assert.deepEqual(t, { name: p('www.key'), result: null, changes: { keysize: 3072 }, comment: 'The private key would have been recreated' });
    const r = await runState('x509.private_key_managed', { name: p('www.key'), keysize: 3072 });
    assert.deepEqual(r.changes, { keysize: 3072 });
    assert.equal(r.comment, 'The private key has been recreated');
    assert.equal(createPrivateKey(fs.readFileSync(p('www.key'))).asymmetricKeyDetails?.modulusLength, 3072);
    const pub = createPrivateKey(fs.readFileSync(p('www.key'))).export({ type: 'pkcs1', format: 'pem' });
    const enc = await runState('x509.private_key_managed', { name: p('www.key'), keysize: 3072, passphrase: 'pw' });
    assert.deepEqual(enc.changes, { passphrase: true });
    const text = fs.readFileSync(p('www.key'), 'utf8');
    assert.match(text, /BEGIN ENCRYPTED PRIVATE KEY/);
    assert.equal(createPrivateKey({ key: text, passphrase: 'pw' }).export({ type: 'pkcs1', format: 'pem' }), pub, 'the same key, encrypted');
    const wrong = await runState('x509.private_key_managed', { name: p('www.key'), keysize: 3072, passphrase: 'nope' });
    assert.deepEqual(wrong, { name: p('www.key'), result: false, changes: {}, comment: 'The provided passphrase cannot decrypt the private key. Pass overwrite: true to force regeneration' });
    const ed = await runState('x509.private_key_managed', { name: p('www.key'), algo: 'ed25519', passphrase: 'pw' });
    assert.deepEqual(ed.changes, { algo: 'ed25519' });
    assert.equal(createPrivateKey({ key: fs.readFileSync(p('www.key'), 'utf8'), passphrase: 'pw' }).asymmetricKeyType, 'ed25519');
    assert.equal((await runState('x509.private_key_managed', { name: p('x.key'), algo: 'ed25519', keysize: 256 })).comment, 'keysize is an invalid parameter for ed25519');
  });

  it('private_key_managed refuses to overwrite a file that is not a key unless overwrite: True', async () => {
    fs.writeFileSync(p('junk.key'), 'not a key\n');
    const r = await runState('x509.private_key_managed', { name: p('junk.key') });
    assert.equal(r.result, false);
    assert.equal(r.comment, 'The existing file does not seem to be a private key formatted as DER, PEM or embedded in PKCS12. Pass overwrite: true to force regeneration');
    const o = await runState('x509.private_key_managed', { name: p('junk.key'), overwrite: true, algo: 'ec' });
    assert.equal(o.result, true);
    assert.equal(createPrivateKey(fs.readFileSync(p('junk.key'))).asymmetricKeyDetails?.namedCurve, 'prime256v1');
  });

  it('certificate_managed: a self-signed CA, then a server certificate it signs, both verified by openssl', async () => {
    await runState('x509.private_key_managed', { name: p('ca.key') });
    await runState('x509.private_key_managed', { name: p('srv.key') });
    const caArgs = {
      name: p('ca.crt'),
      signing_private_key: p('ca.key'),
      CN: 'Brine Test CA',
      O: 'Brine',
      basicConstraints: 'critical, CA:true',
      keyUsage: 'critical, cRLSign, keyCertSign',
      days_valid: 3650,
    };
    const t = await runState('x509.certificate_managed', caArgs, { test: true });
    assert.deepEqual(t, { name: p('ca.crt'), result: null, changes: { created: p('ca.crt') }, comment: 'The certificate would have been created' });
    const ca = await runState('x509.certificate_managed', caArgs);
    assert.deepEqual(ca, { name: p('ca.crt'), result: true, changes: { created: p('ca.crt') }, comment: 'The certificate has been created' });
    const caCert = new X509Certificate(fs.readFileSync(p('ca.crt')));
    assert.equal(caCert.subject, 'O=Brine\nCN=Brine Test CA');
    assert.equal(caCert.ca, true);
    assert.deepEqual(await runState('x509.certificate_managed', caArgs), { name: p('ca.crt'), result: true, changes: {}, comment: 'The certificate is in the correct state' });

    const srvArgs = {
      name: p('srv.crt'),
      signing_private_key: p('ca.key'),
      signing_cert: p('ca.crt'),
      private_key: p('srv.key'),
      CN: 'www.example.test',
      subjectAltName: 'DNS:www.example.test, DNS:example.test',
      days_valid: 30,
      days_remaining: 7,
    };
    const srv = await runState('x509.certificate_managed', srvArgs);
    assert.equal(srv.result, true, srv.comment);
    const verify = execFileSync('openssl', ['verify', '-CAfile', p('ca.crt'), p('srv.crt')], { encoding: 'utf8' });
    assert.match(verify, /OK/);
    const srvCert = new X509Certificate(fs.readFileSync(p('srv.crt')));
    assert.equal(srvCert.issuer, 'O=Brine\nCN=Brine Test CA');
    assert.equal(srvCert.subjectAltName, 'DNS:www.example.test, DNS:example.test');
    assert.ok(srvCert.checkPrivateKey(createPrivateKey(fs.readFileSync(p('srv.key')))));
    assert.equal((await runState('x509.certificate_managed', srvArgs)).comment, 'The certificate is in the correct state');
  });

  it('certificate_managed reissues for a new subject, a new key, or too few days left, with those changes', async () => {
    const base = { name: p('srv.crt'), signing_private_key: p('ca.key'), signing_cert: p('ca.crt'), private_key: p('srv.key'), CN: 'www.example.test', days_valid: 30 };
    const s = await runState('x509.certificate_managed', { ...base, CN: 'api.example.test', days_remaining: 7 }, { test: true });
    assert.deepEqual(s, { name: p('srv.crt'), result: null, changes: { subject_name: 'CN=api.example.test' }, comment: 'The certificate would have been recreated' });
    const e = await runState('x509.certificate_managed', { ...base, days_remaining: 60 }, { test: true });
    assert.deepEqual(e.changes, { expiration: true }, 'days_remaining beyond the validity left');
    await runState('x509.private_key_managed', { name: p('srv.key'), new: true });
    const k = await runState('x509.certificate_managed', { ...base, days_remaining: 7 });
    assert.deepEqual(k, { name: p('srv.crt'), result: true, changes: { private_key: true }, comment: 'The certificate has been recreated' });
    assert.ok(new X509Certificate(fs.readFileSync(p('srv.crt'))).checkPrivateKey(createPrivateKey(fs.readFileSync(p('srv.key')))));
  });

  it('certificate_managed refuses what brine cannot do, saying so', async () => {
    const r = await runState('x509.certificate_managed', { name: p('remote.crt'), ca_server: 'ca-minion', signing_policy: 'www', CN: 'x' });
    assert.equal(r.result, false);
    assert.match(r.comment, /ca_server and signing_policy \(signing on another minion\) are not supported by brine; sign locally with signing_private_key and signing_cert/);
    const u = await runState('x509.certificate_managed', { name: p('u.crt'), signing_private_key: p('ca.key'), bogus: 1 });
    assert.equal(u.comment, "Unrecognized keyword arguments: ['bogus']");
  });
});
