// A deliberately dumb peer for the master's network port: raw TCP or TLS 1.3 (with or without a
// client certificate), raw bytes or length-prefixed JSON frames, so tests can send what no
// well-behaved minion would and watch how and when the master hangs up.

import * as net from 'node:net';
import * as tls from 'node:tls';
import { loadOrCreateIdentity, type Identity } from '../../src/pki/index.js';

/** A fresh Ed25519 identity in `dir`, as a minion would make at first start. */
export function makeClientIdentity(dir: string, commonName = 'raw-client'): Promise<Identity> {
  return loadOrCreateIdentity({ pkiDir: dir, name: 'minion', commonName });
}

export function frame(message: unknown): Buffer {
  return frameBytes(Buffer.from(JSON.stringify(message), 'utf8'));
}

export function frameBytes(payload: Buffer): Buffer {
  const header = Buffer.alloc(4);
  header.writeUInt32BE(payload.length, 0);
  return Buffer.concat([header, payload]);
}

/** Just a 4-byte header declaring `length` bytes, with no payload behind it. */
export function header(length: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(length, 0);
  return b;
}

export interface RawConnectOptions {
  port: number;
  host?: string;
  /** TLS with this client certificate; `null` = TLS without one; omitted = plain TCP. */
  identity?: Identity | null;
  timeoutMs?: number;
  /** Source address to connect from (any of 127.0.0.0/8 is loopback on Linux). */
  localAddress?: string;
}

export class RawClient {
  private buffered = Buffer.alloc(0);
  private readonly frames: unknown[] = [];
  private waiters: Array<() => void> = [];
  /** When the socket closed, in ms since connect() resolved; undefined while open. */
  closedAfterMs: number | undefined;
  readonly closed: Promise<void>;
  private openedAt = Date.now();
  /** The local address as the master logs it (`127.0.0.1:54321`), to find our lines in its log. */
  readonly localAddress: string;

  private constructor(readonly socket: net.Socket) {
    // captured now: a closed socket no longer knows its address
    this.localAddress = `${socket.localAddress ?? '?'}:${socket.localPort ?? 0}`;
    socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      this.drainFrames();
      this.wake();
    });
    // the master may reset the connection; that is an outcome to assert, not a crash
    socket.on('error', () => undefined);
    this.closed = new Promise((resolve) => {
      socket.once('close', () => {
        this.closedAfterMs = Date.now() - this.openedAt;
        this.wake();
        resolve();
      });
    });
  }

  get isClosed(): boolean {
    return this.closedAfterMs !== undefined;
  }

  static connect(opts: RawConnectOptions): Promise<RawClient> {
    const host = opts.host ?? '127.0.0.1';
    const timeoutMs = opts.timeoutMs ?? 5000;
    return new Promise((resolve, reject) => {
      let socket: net.Socket;
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`raw connect to ${host}:${opts.port} timed out`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        socket.removeListener('error', onError);
        const c = new RawClient(socket);
        c.openedAt = Date.now();
        resolve(c);
      };
      const onError = (err: Error) => {
        clearTimeout(timer);
        reject(err);
      };
      if (opts.identity === undefined) {
        socket = net.connect({ host, port: opts.port, ...(opts.localAddress ? { localAddress: opts.localAddress } : {}) }, done);
      } else {
        const creds = opts.identity === null ? {} : { key: opts.identity.privateKeyPem, cert: opts.identity.certPem };
        socket = tls.connect({ host, port: opts.port, ...creds, ...(opts.localAddress ? { localAddress: opts.localAddress } : {}), rejectUnauthorized: false, minVersion: 'TLSv1.3' }, done);
      }
      socket.once('error', onError);
    });
  }

  write(bytes: Buffer | string): void {
    this.socket.write(bytes);
  }

  send(message: unknown): void {
    this.write(frame(message));
  }

  /** The next decoded frame, or undefined if the connection closes (or the wait ends) first. */
  async nextFrame(timeoutMs = 5000): Promise<Record<string, unknown> | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.frames.length > 0) return this.frames.shift() as Record<string, unknown>;
      if (this.isClosed || Date.now() >= deadline) return undefined;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Resolves true if the master closes the connection within timeoutMs. */
  async closedWithin(timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    const r = await Promise.race([this.closed.then(() => true), timedOut]);
    clearTimeout(timer);
    return r;
  }

  /** Half-closes our side (a FIN), as a client that gives up mid-frame would. */
  end(): void {
    this.socket.end();
  }

  destroy(): void {
    this.socket.destroy();
  }

  private drainFrames(): void {
    while (this.buffered.length >= 4) {
      const len = this.buffered.readUInt32BE(0);
      if (this.buffered.length < 4 + len) return;
      const payload = this.buffered.subarray(4, 4 + len).toString('utf8');
      this.buffered = this.buffered.subarray(4 + len);
      try {
        this.frames.push(JSON.parse(payload));
      } catch {
        this.frames.push({ unparsable: payload });
      }
    }
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const fn of w) fn();
  }
}
