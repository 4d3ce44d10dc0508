// REST API tokens and eauth backends across master restarts (issue 11, point 2): a token stays
// valid across a restart, expires after token_expire, is refused after the master key changes;
// Salt's text-file eauth with a hashtype; the rest_cherrypy alias over plain HTTP (disable_ssl);
// PAM with a real local account (as root: created with useradd/chpasswd and deleted after);
// startup refusals of a bad external_auth and a busy API port.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { ApiClient } from '../helpers/api-client.js';
import { Cluster, freePort, waitUntil, type Proc } from '../helpers/cluster.js';

const SHA256_OF_PW = '1ec1c26b50d5d3c58d9583181af8076655fe00756bf7285940ba3670f99fcba0'; // sha256("s3cret")

describe('API tokens across restarts and key rotation; text, pam and plain-HTTP setups', () => {
  let cluster: Cluster;
  let master: Proc;
  let config: Record<string, unknown>;
  let port: number;
  const pkiDir = () => path.join(cluster.root, 'master', 'etc', 'brine', 'pki', 'master');
  const client = () => new ApiClient(port, fs.readFileSync(path.join(pkiDir(), 'master.crt'), 'utf8'));

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

  it('pam eauth with a real local account (root only: the account is created and deleted here)', async (t) => {
    if (process.getuid?.() !== 0) {
      t.skip('needs root to create a local account; the unit test covers EAUTH_UNAVAILABLE');
      return;
    }
    const user = `brinepam${randomBytes(3).toString('hex')}`;
    const password = `pw-${randomBytes(8).toString('hex')}`;
    execFileSync('useradd', ['-M', '-s', '/usr/sbin/nologin', user]);
    try {
      execFileSync('chpasswd', [], { input: `${user}:${password}\n` });
      await restart({ external_auth: { ...(config.external_auth as object), pam: { [user]: ['test.*'] } } });
      const api = client();
      const ok = await api.request('/login', { method: 'POST', body: { username: user, password, eauth: 'pam' } });
      assert.equal(ok.status, 200, ok.text);
      assert.deepEqual(ok.json.return[0].perms, ['test.*']);
      assert.equal(ok.json.return[0].eauth, 'pam');
      const bad = await api.request('/login', { method: 'POST', body: { username: user, password: 'wrong', eauth: 'pam' }, localAddress: '127.0.0.9' });
      assert.equal(bad.status, 401);
      assert.equal(bad.json.error.code, 'LOGIN_FAILED');
      assert.doesNotMatch(master.output, new RegExp(password));
    } finally {
      execFileSync('userdel', [user]);
    }
  });
});
