// Shared fixtures for the transport tests: temp dirs, loopback socket pairs and waiting for an
// event with a deadline, all cleaned up through the test context.

import { mkdtempSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';

export function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'brine-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

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
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
    register((value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
}

/** Resolves once `condition()` holds (checked every 10 ms), or rejects after ms. */
export function until(ms: number, what: string, condition: () => boolean): Promise<void> {
  const deadline = Date.now() + ms;
  return within(ms, what, (done) => {
    const check = (): void => {
      if (condition()) done(undefined);
      else if (Date.now() < deadline) setTimeout(check, 10);
    };
    check();
  });
}

/** Collects everything a raw socket receives until it closes. */
export function collect(socket: net.Socket): Promise<Buffer> {
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  return new Promise((resolve) => socket.once('close', () => resolve(Buffer.concat(chunks))));
}

/** A port on loopback with nothing listening (bound, then released). */
export async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as net.AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}
