// PAM eauth with a real local account (issue 11, point 2), as root: the account is created with
// useradd/chpasswd and deleted after. Skipped with the reason where it cannot run (not root, or
// no authenticate-pam binding because libpam0g-dev was missing at `npm ci`: issue 21, point 12),
// and a failure instead under BRINE_REQUIRE_PRIVILEGED (CI); test/unit/auth/pam-skip.test.ts
// checks both.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ApiClient } from '../helpers/api-client.js';
import { Cluster, freePort, type Proc } from '../helpers/cluster.js';
import { pamSkip } from '../helpers/pam.js';

const skip = pamSkip('PAM eauth');

describe('PAM eauth with a real local account', { skip }, () => {
  let cluster: Cluster;
  let master: Proc;
  let port: number;
  const user = `brinepam${randomBytes(3).toString('hex')}`;
  const password = `pw-${randomBytes(8).toString('hex')}`;

  before(async () => {
    cluster = await Cluster.create();
    port = await freePort();
    execFileSync('useradd', ['-M', '-s', '/usr/sbin/nologin', user]);
    execFileSync('chpasswd', [], { input: `${user}:${password}\n` });
    master = await cluster.startMaster({ api: { port }, external_auth: { pam: { [user]: ['test.*'] } } });
    await master.waitForOutput(/serving the REST API/);
  });
  after(async () => {
    await cluster?.cleanup();
    try {
      execFileSync('userdel', [user]);
    } catch {
      // not created (before() failed early)
    }
  });

  it('logs in with the account password; a wrong one is 401 LOGIN_FAILED; the password is never logged', async () => {
    const api = new ApiClient(port, fs.readFileSync(path.join(cluster.root, 'master', 'etc', 'brine', 'pki', 'master', 'api.crt'), 'utf8'));
    const ok = await api.request('/login', { method: 'POST', body: { username: user, password, eauth: 'pam' } });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.json.return[0].perms, ['test.*']);
    assert.equal(ok.json.return[0].eauth, 'pam');
    const bad = await api.request('/login', { method: 'POST', body: { username: user, password: 'wrong', eauth: 'pam' }, localAddress: '127.0.0.9' });
    assert.equal(bad.status, 401);
    assert.equal(bad.json.error.code, 'LOGIN_FAILED');
    assert.doesNotMatch(master.output, new RegExp(password));
  });
});
