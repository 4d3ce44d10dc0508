// Shared fixtures for the transport tests: loopback socket pairs and waiting for an event with a
// deadline, all cleaned up through the test context.

import * as net from 'node:net';
import { within as withinMs } from '../../helpers/wait.js';
import type { TestContext } from 'node:test';

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
