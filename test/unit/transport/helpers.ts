// Shared fixtures for the transport tests: loopback socket pairs and waiting for an event with a
// deadline, all cleaned up through the test context.

import * as net from 'node:net';
import { within as withinMs } from '../../helpers/wait.js';
import type { TestContext } from 'node:test';
import type { Identity } from '../../../src/pki/index.js';
import { MASTER_MESSAGES, MINION_MESSAGES, type MasterMessage, type MinionMessage } from '../../../src/protocol/index.js';
import { createIdentityContext, dialTls, listenTls, type ResumableSession, type TlsListener } from '../../../src/transport/index.js';

export { freePort } from '../../helpers/ports.js';
export { tempDir } from '../../helpers/paths.js';

/** A connected TCP pair on loopback: `client` dialled `server` (the accepted socket). */
export async function tcpPair(t: TestContext): Promise<{ client: net.Socket; server: net.Socket }> {
  const listener = net.createServer();
  const accepted = new Promise<net.Socket>((resolve) => listener.once('connection', resolve));
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const { port } = listener.address() as net.AddressInfo;
  const client = net.connect({ host: '127.0.0.1', port });
  await new Promise<void>((resolve, reject) => {
    client.once('connect', resolve);
    client.once('error', reject);
  });
  const server = await accepted;
  listener.close();
  // errors surface through the code under test; keep the raw sockets from throwing
  client.on('error', () => undefined);
  server.on('error', () => undefined);
  t.after(() => {
    client.destroy();
    server.destroy();
  });
  return { client, server };
}

/** Resolves with the value a callback-style registration delivers, or rejects after ms. */
export function within<T>(ms: number, what: string, register: (done: (value: T) => void) => void): Promise<T> {
  return withinMs(new Promise<T>((resolve) => register(resolve)), ms, what);
}

/** Collects everything a raw socket receives until it closes. */
export function collect(socket: net.Socket): Promise<Buffer> {
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  return new Promise((resolve) => socket.once('close', () => resolve(Buffer.concat(chunks))));
}

/** Socket options for loopback tests: no keepalive probes. */
export const LOOPBACK_SOCKET_OPTS = { enabled: false, idleSeconds: 60, intervalSeconds: 10, count: 5, userTimeoutMs: 0 };

/** A master-side listener with session tickets from `keys`, closed with the test. */
export async function ticketListener(t: TestContext, identity: Identity, keys: Buffer): Promise<TlsListener> {
  const listener = await listenTls<MinionMessage, MasterMessage>({
    host: '127.0.0.1',
    port: 0,
    identity,
    handshakeTimeoutMs: 3_000,
    preauthMaxFrame: 64 * 1024,
    socketOptions: LOOPBACK_SOCKET_OPTS,
    schemas: MINION_MESSAGES,
    tickets: { keys, lifetimeSeconds: 3600 },
    onChannel: (_channel, _raw, slot) => slot.release(),
  });
  t.after(() => listener.close());
  return listener;
}

/** A minion-side dial to `port` (resuming `session` when given), collecting the tickets it gets; closed with the test. */
export async function ticketDial(t: TestContext, identity: Identity, port: number, session?: ResumableSession) {
  const sessions: ResumableSession[] = [];
  const dialed = await dialTls<MasterMessage, MinionMessage>({
    host: '127.0.0.1',
    port,
    secureContext: createIdentityContext(identity),
    timeoutMs: 3_000,
    socketOptions: LOOPBACK_SOCKET_OPTS,
    maxFrame: 64 * 1024,
    schemas: MASTER_MESSAGES,
    ...(session ? { session } : {}),
    onSession: (s) => sessions.push(s),
  });
  t.after(() => dialed.channel.close('shutdown'));
  return { resumed: dialed.resumed, sessions };
}
