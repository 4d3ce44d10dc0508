// TLS between brine and the NATS servers (issue 13 point 1): `brine nats server-config
// --tls-cert/--tls-key` makes a server require TLS; a master and a minion with nats_tls_ca sign
// in and run jobs over it; a client that does not trust the CA, or speaks plain text, gets nothing.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { connect } from '@nats-io/transport-node';
import { makeTestCertificate, natsSkip, nkeyAuth, startNats, type NatsFixture } from '../helpers/nats.js';
import { NatsBrine } from '../helpers/nats-brine.js';
import { masterUserJwt } from '../../src/nats/index.js';

describe('transport: nats over TLS', { skip: natsSkip('the NATS TLS test') }, () => {
  let nats: NatsFixture;
  let nb: NatsBrine;
  let certDir: string;
  let ca: string;

  before(async () => {
    // a self-signed certificate for 127.0.0.1 that is its own CA
    certDir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-nats-tls-'));
    const made = makeTestCertificate(certDir, 'server');
    ca = made.cert;
    const key = made.key;
    nats = await startNats(1, { serverArgs: ['--tls-cert', ca, '--tls-key', key], tlsCaFile: ca });
    nb = await NatsBrine.create(nats);
    await nb.startMaster(0, { nats_tls_ca: ca });
  });
  after(async () => {
    await nb?.cleanup();
    await nats?.cleanup();
    if (certDir) fs.rmSync(certDir, { recursive: true, force: true });
  });

  it('a master and a minion with nats_tls_ca sign in and run a job over TLS', async () => {
    const m = await nb.startMinion('tls1', { nats_tls_ca: ca });
    await nb.cluster.waitForPending(['tls1']);
    assert.equal((await nb.brine(['key', '-a', 'tls1', '-y'])).code, 0);
    await m.waitForOutput(/connected to NATS server/, 20_000);
    const ping = await nb.brine(['run', 'tls1', 'test.ping', '--out', 'json']);
    assert.deepEqual(JSON.parse(ping.stdout), { tls1: true }, ping.stderr);
  });

  it('a client that does not trust the CA is refused, and so is one without TLS', async () => {
    const jwt = masterUserJwt(nats.master, nats.accounts, 'no-ca');
    // the system's CAs do not know the test CA
    await assert.rejects(connect({ servers: nats.urls, authenticator: nkeyAuth(nats.master, jwt), reconnect: false, tls: {} }), /certificate|self.signed|verify/i);
    // plain text to a server that requires TLS
    await assert.rejects(connect({ servers: nats.urls, authenticator: nkeyAuth(nats.master, jwt), reconnect: false, tls: null }), /tls|secure|required/i);
  });

  it('a minion without the CA cannot sign in, and says why', async () => {
    const m = await nb.startMinion('tls2');
    await m.waitForOutput(/cannot reach a NATS server .* to sign in: .*(certificate|self.signed|verify|tls)/i, 20_000);
    const listed = await nb.brine(['key', '-l', 'un']);
    assert.doesNotMatch(listed.stdout, /tls2/);
  });
});
