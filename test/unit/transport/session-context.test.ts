// A master restarted with another command line must still resume its minions' TLS sessions.
// Node's default session ID context is a hash of process.argv, so a master started again with
// `-l debug`, another -c path or from an upgraded install path resumed nothing: every minion went
// through a full handshake (and held the memory of one). The listener now sets its own context.
// Real listeners: one in this process, one in a child process whose argv differs, same ticket keys.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadOrCreateIdentity } from '../../../src/pki/index.js';
import { waitUntil } from '../../helpers/wait.js';
import { LOOPBACK_SOCKET_OPTS, ticketDial, ticketListener } from './helpers.js';

const modules = (rel: string): string => fileURLToPath(new URL(rel, import.meta.url));

/** A listener like the master's, in a child process started with a command line of its own. */
const CHILD = `
import { loadOrCreateIdentity } from ${JSON.stringify(modules('../../../src/pki/index.js'))};
import { MINION_MESSAGES } from ${JSON.stringify(modules('../../../src/protocol/index.js'))};
import { listenTls } from ${JSON.stringify(modules('../../../src/transport/index.js'))};
const identity = await loadOrCreateIdentity({ pkiDir: process.env.PKI, name: 'master', commonName: 'salt' });
const listener = await listenTls({
  host: '127.0.0.1', port: 0, identity, handshakeTimeoutMs: 3000, preauthMaxFrame: 65536,
  socketOptions: ${JSON.stringify(LOOPBACK_SOCKET_OPTS)}, schemas: MINION_MESSAGES,
  tickets: { keys: Buffer.from(process.env.KEYS, 'hex'), lifetimeSeconds: 3600 },
  onChannel: (_channel, _raw, slot) => slot.release(),
});
process.stdout.write(listener.port + '\\n');
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
`;

test('a session from one master process resumes on the same master started with another command line', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'brine-sidctx-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const master = await loadOrCreateIdentity({ pkiDir: join(dir, 'master'), name: 'master', commonName: 'salt' });
  const minion = await loadOrCreateIdentity({ pkiDir: join(dir, 'minion'), name: 'minion', commonName: 'web1' });
  const keys = randomBytes(48);
  const here = await ticketListener(t, master, keys);
  const first = await ticketDial(t, minion, here.port);
  assert.equal(first.resumed, false, 'the first connection is a full handshake');
  await waitUntil(() => first.sessions.length > 0, 3_000, 'a session ticket');

  const script = join(dir, 'child-master.mjs');
  writeFileSync(script, CHILD);
  const child = spawn(process.execPath, [script, '-l', 'debug'], { env: { ...process.env, PKI: join(dir, 'master'), KEYS: keys.toString('hex') }, stdio: ['pipe', 'pipe', 'inherit'] });
  t.after(() => {
    child.stdin.end();
    child.kill();
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  await waitUntil(() => out.includes('\n'), 10_000, 'the child listener to print its port');
  const again = await ticketDial(t, minion, Number(out.trim()), first.sessions.at(-1));
  assert.equal(again.resumed, true, 'the ticket from the first process resumes on the second, whose argv differs');
});
