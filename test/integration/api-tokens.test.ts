// REST API tokens and eauth backends across master restarts (issue 11, point 2): a token stays
// valid across a restart, expires after token_expire, is refused after the master key changes;
// Salt's text-file eauth with a hashtype; the rest_cherrypy alias over plain HTTP (disable_ssl);
// startup refusals of a bad external_auth and a busy API port. PAM with a real local account is
// in api-pam.test.ts.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey, X509Certificate } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as tls from 'node:tls';
import * as path from 'node:path';
import { ApiClient } from '../helpers/api-client.js';
import { Cluster, freePort, waitUntil, type Proc } from '../helpers/cluster.js';

const SHA256_OF_PW = '1ec1c26b50d5d3c58d9583181af8076655fe00756bf7285940ba3670f99fcba0'; // sha256("s3cret")

describe('API tokens across restarts and key rotation; text and plain-HTTP setups', () => {
  let cluster: Cluster;
  let master: Proc;
  let config: Record<string, unknown>;
  let port: number;
  const pkiDir = () => path.join(cluster.root, 'master', 'etc', 'brine', 'pki', 'master');
  const client = () => new ApiClient(port, fs.readFileSync(path.join(pkiDir(), 'api.crt'), 'utf8'));

  const restart = async (extra: Record<string, unknown> = {}) => {
    await master.kill();
    master = await cluster.startMaster({ ...config, ...extra });
    await master.waitForOutput(/serving the REST API/);
  };

  before(async () => {
    cluster = await Cluster.create();
    port = await freePort();
    const users = path.join(cluster.root, 'users.txt');
    fs.writeFileSync(users, `# name:sha256\nalice:${SHA256_OF_PW}\n`, { mode: 0o600 });
    config = {
      api: { port },
      token_expire: 3600,
      external_auth: { file: { '^filename': users, '^hashtype': 'sha256', alice: ['test.*', '@runner'] } },
    };
    master = await cluster.startMaster(config);
    await master.waitForOutput(/serving the REST API/);
  });
  after(() => cluster.cleanup());

  it('text eauth with ^hashtype sha256 logs in; the token is valid across a master restart and stored only hashed', async () => {
    const api = client();
    const token = await api.login('alice', 's3cret');
    assert.equal((await api.post('/', token, [{ client: 'runner', fun: 'manage.status' }])).status, 200);
    await restart();
    const after = await client().post('/', token, [{ client: 'runner', fun: 'manage.status' }]);
    assert.equal(after.status, 200, after.text);
    const file = path.join(cluster.root, 'master', 'var', 'cache', 'brine', 'master', 'api-tokens.sqlite');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.ok(!fs.readFileSync(file).includes(Buffer.from(token)), 'the raw token is not on disk');
  });

  it('the default HTTPS certificate is EC P-256 (browsers take no Ed25519) in pki_dir/api.*, names 127.0.0.1 and localhost, and is kept across restarts', async () => {
    const keyFile = path.join(pkiDir(), 'api.pem');
    assert.equal(fs.statSync(keyFile).mode & 0o777, 0o600);
    const before = fs.readFileSync(path.join(pkiDir(), 'api.crt'), 'utf8');
    const served = await new Promise<tls.PeerCertificate>((resolve, reject) => {
      // host name checked for real: the certificate must name 127.0.0.1
      const s = tls.connect({ host: '127.0.0.1', port, ca: before, servername: undefined }, () => {
        resolve(s.getPeerCertificate());
        s.end();
      });
      s.once('error', reject);
    });
    const cert = new X509Certificate(before);
    assert.equal(served.fingerprint256, cert.fingerprint256, 'the API serves api.crt');
    assert.equal(cert.publicKey.asymmetricKeyType, 'ec');
    assert.equal(cert.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
    assert.match(String(cert.subjectAltName), /DNS:localhost/);
    assert.match(String(cert.subjectAltName), /IP Address:127\.0\.0\.1/);
    assert.notEqual(createPublicKey(fs.readFileSync(path.join(pkiDir(), 'master.pem'))).asymmetricKeyType, 'ec', 'the master key itself stays Ed25519');
    await restart();
    assert.equal(fs.readFileSync(path.join(pkiDir(), 'api.crt'), 'utf8'), before, 'the same certificate after a restart');
  });

  it('a token older than token_expire is 401 TOKEN_EXPIRED', async () => {
    await restart({ token_expire: 2 });
    const api = client();
    const token = await api.login('alice', 's3cret');
    assert.equal((await api.get('/stats', token)).status, 200);
    const res = await waitUntil(
      async () => {
        const r = await api.get('/stats', token);
        return r.status === 401 ? r : undefined;
      },
      15_000,
      'the token to expire',
    );
    assert.equal(res.json.error.code, 'TOKEN_EXPIRED');
    // an expired token is forgotten: next time it is simply unknown
    assert.equal((await api.get('/stats', token)).json.error.code, 'TOKEN_INVALID');
  });

  it('a token from before a master key rotation is 401 TOKEN_KEY_CHANGED', async () => {
    await restart();
    const token = await client().login('alice', 's3cret');
    await master.kill();
    const before = fs.readFileSync(path.join(pkiDir(), 'master.pub'), 'utf8');
    for (const f of ['master.pem', 'master.pub', 'master.crt']) fs.rmSync(path.join(pkiDir(), f));
    master = await cluster.startMaster(config);
    await master.waitForOutput(/serving the REST API/);
    assert.notEqual(fs.readFileSync(path.join(pkiDir(), 'master.pub'), 'utf8'), before, 'a new master key');
    const api = client();
    const res = await api.get('/stats', token);
    assert.equal(res.status, 401, res.text);
    assert.equal(res.json.error.code, 'TOKEN_KEY_CHANGED');
    // a new login works under the new key
    assert.equal((await api.get('/stats', await api.login('alice', 's3cret'))).status, 200);
  });

  it('rest_cherrypy with disable_ssl serves plain HTTP with the same shapes', async () => {
    const httpPort = await freePort();
    await master.kill();
    const { api: _api, ...rest } = config;
    master = await cluster.startMaster({ ...rest, rest_cherrypy: { port: httpPort, disable_ssl: true } });
    await master.waitForOutput(new RegExp(`serving the REST API on http://127\\.0\\.0\\.1:${httpPort}`));
    const login = await fetch(`http://127.0.0.1:${httpPort}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'username=alice&password=s3cret&eauth=file',
    });
    assert.equal(login.status, 200);
    const token = login.headers.get('x-auth-token')!;
    assert.doesNotMatch(String(login.headers.get('set-cookie')), /Secure/, 'no Secure cookie over plain HTTP');
    const res = await fetch(`http://127.0.0.1:${httpPort}/`, {
      method: 'POST',
      headers: { 'x-auth-token': token, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify([{ client: 'runner', fun: 'manage.up' }]),
    });
    assert.deepEqual(await res.json(), { return: [[]] });
    await master.kill();
    master = await cluster.startMaster(config);
    await master.waitForOutput(/serving the REST API/);
  });

  it('a bad external_auth stops the master with EAUTH_CONFIG; a busy API port with API_LISTEN_FAILED', async () => {
    await master.kill();
    cluster.writeMasterConfig({ ...config, external_auth: { ldap: { bob: ['.*'] } } });
    const bad = cluster.spawnBrine('master-bad', ['master', '-c', cluster.masterConfigDir]);
    assert.equal(await bad.exited, 78, bad.output);
    assert.match(bad.output, /EAUTH_CONFIG: external_auth: backend "ldap" is not one brine has/);
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(port, '127.0.0.1', () => r()));
    try {
      cluster.writeMasterConfig(config);
      const busy = cluster.spawnBrine('master-busy', ['master', '-c', cluster.masterConfigDir]);
      assert.notEqual(await busy.exited, 0);
      assert.match(busy.output, /API_LISTEN_FAILED: cannot serve the API on 127\.0\.0\.1:\d+ \(api host\/port\): the port is in use/);
    } finally {
      await new Promise((r) => blocker.close(r));
    }
    master = await cluster.startMaster(config);
    await master.waitForOutput(/serving the REST API/);
  });
});
