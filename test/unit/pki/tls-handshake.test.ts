// Proves the generated Ed25519 key and certificate work for what the transport needs: a TLS 1.3
// mutual handshake where each side identifies the other by the fingerprint of its public key.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { join } from 'node:path';
import { fingerprint, loadOrCreateIdentity, type Identity } from '../../../src/pki/index.js';
import { tempDir } from './helpers.js';

interface Seen {
  protocol: string | null;
  peerFingerprint: string | undefined;
}

async function handshake(t: import('node:test').TestContext, master: Identity, client: Partial<Pick<Identity, 'privateKeyPem' | 'certPem'>>): Promise<{ server: Seen; client: Seen }> {
  const server = tls.createServer({
    key: master.privateKeyPem,
    cert: master.certPem,
    minVersion: 'TLSv1.3',
    requestCert: true,
    rejectUnauthorized: false, // self-signed peers: authorisation is by key fingerprint afterwards
  });
  t.after(() => server.close());
  const serverSeen = new Promise<Seen>((resolve) => {
    server.once('secureConnection', (socket) => {
      const peer = socket.getPeerX509Certificate();
      resolve({ protocol: socket.getProtocol(), peerFingerprint: peer === undefined ? undefined : fingerprint(peer.publicKey) });
      socket.end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  const socket = tls.connect({
    host: '127.0.0.1',
    port,
    key: client.privateKeyPem,
    cert: client.certPem,
    minVersion: 'TLSv1.3',
    rejectUnauthorized: false, // the minion pins the master's fingerprint instead of a CA
  });
  t.after(() => socket.destroy());
  await once(socket, 'secureConnect');
  const peer = socket.getPeerX509Certificate();
  const clientSeen: Seen = { protocol: socket.getProtocol(), peerFingerprint: peer === undefined ? undefined : fingerprint(peer.publicKey) };
  return { server: await serverSeen, client: clientSeen };
}

test('Ed25519 identities complete a TLS 1.3 mutual handshake and see each other by fingerprint', async (t) => {
  const dir = tempDir(t);
  const master = await loadOrCreateIdentity({ pkiDir: join(dir, 'master'), name: 'master', commonName: 'salt_master' });
  const minion = await loadOrCreateIdentity({ pkiDir: join(dir, 'minion'), name: 'minion', commonName: 'web1' });

  const seen = await handshake(t, master, minion);
  assert.equal(seen.server.protocol, 'TLSv1.3');
  assert.equal(seen.client.protocol, 'TLSv1.3');
  assert.equal(seen.server.peerFingerprint, minion.fingerprint, 'master identifies the minion by its key');
  assert.equal(seen.client.peerFingerprint, master.fingerprint, 'minion identifies the master by its key');
  assert.notEqual(minion.fingerprint, master.fingerprint);
});

test('a client without a certificate is visible as such to the master', async (t) => {
  const master = await loadOrCreateIdentity({ pkiDir: join(tempDir(t), 'master'), name: 'master', commonName: 'salt_master' });
  const seen = await handshake(t, master, {});
  assert.equal(seen.server.peerFingerprint, undefined);
  assert.equal(seen.client.peerFingerprint, master.fingerprint);
});
