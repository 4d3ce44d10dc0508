// Peer-supplied text printed by the CLI outside the listings is escaped like any other
// (threats.md #32): a master's refusal text, printed when the minion exits, and the address a
// denied key came from, printed by `brine key --replace`. The "master" here is a bare TLS server
// built from the project's transport code that answers every hello with a crafted rejection;
// the minion trusts it through master_finger, so the refusal is believed and the minion exits 77.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { KeyStore, loadOrCreateIdentity } from '../../src/pki/index.js';
import { MINION_MESSAGES, PROTOCOL_VERSION, type MasterMessage, type MinionMessage } from '../../src/protocol/index.js';
import { listenTls, type TlsListener } from '../../src/transport/index.js';
import { Cluster, runCli, waitUntil } from '../helpers/cluster.js';

const FORGED = '\u001b[2J\nFORGED LINE \u009b31m';

describe('a trusted master rejection shown on exit', () => {
  let cluster: Cluster;
  let listener: TlsListener;
  let fp: string;
  let pki: string;

  before(async () => {
    cluster = await Cluster.create();
    pki = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-fake-master-'));
    const identity = await loadOrCreateIdentity({ pkiDir: pki, name: 'master', commonName: 'salt' });
    fp = identity.fingerprint;
    listener = await listenTls<MinionMessage, MasterMessage>({
      host: '127.0.0.1',
      port: 0,
      identity,
      handshakeTimeoutMs: 5_000,
      preauthMaxFrame: 64 * 1024,
      socketOptions: { enabled: false, idleSeconds: 0, intervalSeconds: 0, count: -1, userTimeoutMs: 0 },
      schemas: MINION_MESSAGES,
      onChannel: (channel) => {
        channel.onMessage((m) => {
          if (m.t !== 'hello') return;
          channel.send({ t: 'auth', status: 'rejected', minVersion: PROTOCOL_VERSION, code: 'AUTH_REJECTED', message: FORGED, masterFingerprint: fp });
        });
      },
    });
  });
  after(async () => {
    await listener.close();
    await cluster.cleanup();
    fs.rmSync(pki, { recursive: true, force: true });
  });

  it('exit 77 with the master-supplied message escaped: no raw ESC or C1, no forged line', async () => {
    const m = cluster.startMinion('victim', { master: '127.0.0.1', master_port: listener.port, master_finger: fp });
    await waitUntil(() => !m.running, 20_000, `the minion to exit\n${m.output}`);
    assert.equal(await m.exited, 77, m.output);
    assert.ok(m.output.includes("The master has rejected this minion's public key!"), m.output);
    assert.ok(m.output.includes('\\e[2J\\nFORGED LINE \\x9b31m'), m.output);
    assert.ok(!/[\u001b\u009b]/.test(m.output), 'no raw ESC or C1 CSI in the output');
    assert.ok(!m.output.split('\n').some((l) => l.startsWith('FORGED')), m.output);
  });
});

describe('brine key --replace shows where the denied key came from', () => {
  let cluster: Cluster;
  before(async () => {
    cluster = await Cluster.create();
  });
  after(() => cluster.cleanup());

  it('the recorded address is escaped: no raw ESC or BEL, no forged line', async () => {
    cluster.writeMasterConfig();
    const store = new KeyStore(path.join(cluster.root, 'master', 'etc', 'brine', 'pki', 'master'));
    store.ensureLayout();
    const pem = crypto.generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
    store.recordDenied('web9', pem, { remote: '\u001b]0;owned\u0007\nFORGED LINE', at: Date.now() });
    const r = await runCli(['key', '--replace', 'web9', '-y', '-c', cluster.masterConfigDir]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.ok(r.stdout.includes('from \\e]0;owned\\x07\\nFORGED LINE'), r.stdout);
    assert.ok(!/[\u001b\u0007]/.test(r.stdout + r.stderr), 'no raw ESC or BEL');
    assert.ok(!r.stdout.split('\n').some((l) => l.startsWith('FORGED')), r.stdout);
  });
});
