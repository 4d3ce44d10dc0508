// TLS 1.3 with mutual authentication: the master's listener and the minion's dialer. Both sides
// present self-signed certificates; trust is decided above this layer by key fingerprint.

import * as net from 'node:net';
import * as tls from 'node:tls';
import { BrineError } from '../util/errors.js';
import { fingerprint } from '../pki/fingerprint.js';
import type { Schema } from '../protocol/index.js';
import { FramedSocket } from './framed-socket.js';
import { applySocketOptions, type KeepaliveOptions } from './socket-options.js';

export interface TlsIdentity {
  privateKeyPem: string;
  certPem: string;
}

/** One secure context per identity, reused for every connection (cheap handshakes). */
export function createIdentityContext(identity: TlsIdentity): tls.SecureContext {
  return tls.createSecureContext({ key: identity.privateKeyPem, cert: identity.certPem, minVersion: 'TLSv1.3' });
}

function peerKeyOf(socket: tls.TLSSocket): { fp: string; pem: string } | undefined {
  const cert = socket.getPeerX509Certificate();
  if (!cert) return undefined;
  return { fp: fingerprint(cert.publicKey), pem: cert.publicKey.export({ type: 'spki', format: 'pem' }) as string };
}

export function formatAddress(address: string | undefined, port: number | undefined): string {
  if (!address) return 'unknown';
  const host = address.startsWith('::ffff:') ? address.slice(7) : address;
  return host.includes(':') ? `[${host}]:${port ?? 0}` : `${host}:${port ?? 0}`;
}

// ---- listener ---------------------------------------------------------------------------

export interface TlsListenOptions<In, Out extends { t: string }> {
  host: string;
  port: number;
  identity: TlsIdentity;
  handshakeTimeoutMs: number;
  /** Frame limit until the upper layer raises it after authentication. */
  preauthMaxFrame: number;
  socketOptions: KeepaliveOptions;
  schemas: ReadonlyMap<string, Schema<unknown>>;
  onChannel(channel: FramedSocket<In, Out>, raw: net.Socket): void;
  /** A connection that failed before it became a channel (bad TLS, no client certificate). */
  onRefused?(remote: string, error: BrineError): void;
}

export interface TlsListener {
  readonly port: number;
  close(): Promise<void>;
}

export function listenTls<In, Out extends { t: string }>(opts: TlsListenOptions<In, Out>): Promise<TlsListener> {
  const raws = new Set<net.Socket>();
  const server = tls.createServer({
    key: opts.identity.privateKeyPem,
    cert: opts.identity.certPem,
    minVersion: 'TLSv1.3',
    requestCert: true,
    // self-signed client certificates: authorisation happens by fingerprint, above this layer
    rejectUnauthorized: false,
    handshakeTimeout: opts.handshakeTimeoutMs,
  });
  server.on('connection', (raw: net.Socket) => {
    raws.add(raw);
    raw.once('close', () => raws.delete(raw));
    raw.on('error', () => undefined);
    try {
      applySocketOptions(raw, opts.socketOptions);
    } catch {
      // an option the kernel refuses must not cost the connection; heartbeats still apply
    }
  });
  server.on('secureConnection', (socket: tls.TLSSocket) => {
    const remote = formatAddress(socket.remoteAddress, socket.remotePort);
    const peer = peerKeyOf(socket);
    if (!peer) {
      opts.onRefused?.(remote, new BrineError('NO_CLIENT_CERT', `connection from ${remote} presented no client certificate`));
      socket.destroy();
      return;
    }
    const raw = (socket as unknown as { _parent?: net.Socket })._parent ?? (socket as unknown as net.Socket);
    const channel = new FramedSocket<In, Out>(socket, { remoteAddress: remote, peerFingerprint: peer.fp, peerPublicKeyPem: peer.pem, maxFrame: opts.preauthMaxFrame, schemas: opts.schemas });
    opts.onChannel(channel, raw);
  });
  server.on('tlsClientError', (err: Error & { code?: string }, socket: tls.TLSSocket) => {
    const remote = formatAddress(socket.remoteAddress, socket.remotePort);
    const timeout = /timeout/i.test(err.message);
    opts.onRefused?.(remote, new BrineError(timeout ? 'HANDSHAKE_TIMEOUT' : 'TLS_ERROR', `TLS handshake from ${remote} failed: ${err.message}`, { cause: err }));
    socket.destroy();
  });
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      reject(new BrineError('LISTEN_FAILED', `cannot listen on ${opts.host}:${opts.port}: ${err.code ?? err.message}`, { cause: err }));
    };
    server.once('error', onError);
    // a deep accept queue: after a master restart thousands of minions connect within seconds
    server.listen({ port: opts.port, host: opts.host, backlog: 4096 }, () => {
      server.off('error', onError);
      const address = server.address() as net.AddressInfo;
      resolve({
        port: address.port,
        close: () =>
          new Promise<void>((res) => {
            server.close(() => res());
            for (const r of raws) r.destroy();
          }),
      });
    });
  });
}

// ---- dialer -----------------------------------------------------------------------------

export interface TlsDialOptions {
  host: string;
  port: number;
  secureContext: tls.SecureContext;
  /** Deadline for TCP connect plus TLS handshake. */
  timeoutMs: number;
  socketOptions: KeepaliveOptions;
  maxFrame: number;
  schemas: ReadonlyMap<string, Schema<unknown>>;
  /** Called when TCP is up and the TLS handshake starts. */
  onTcpConnected?(): void;
  /** Abandons the attempt (the caller gave up): sockets are destroyed, the promise rejects. */
  signal?: AbortSignal;
}

export interface DialedChannel<In, Out extends { t: string }> {
  channel: FramedSocket<In, Out>;
  raw: net.Socket;
}

export function dialTls<In, Out extends { t: string }>(opts: TlsDialOptions): Promise<DialedChannel<In, Out>> {
  return new Promise((resolve, reject) => {
    let settled = false;
    let tlsSocket: tls.TLSSocket | undefined;
    const raw = net.connect({ host: opts.host, port: opts.port });
    const target = formatAddress(opts.host, opts.port);
    const onAbort = () => fail(new BrineError('CONNECT_FAILED', `connection attempt to ${target} abandoned`));
    const fail = (err: BrineError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      tlsSocket?.destroy();
      raw.destroy();
      reject(err);
    };
    const timer = setTimeout(() => {
      const phase = tlsSocket ? 'TLS handshake' : 'TCP connect';
      fail(new BrineError(tlsSocket ? 'HANDSHAKE_TIMEOUT' : 'CONNECT_FAILED', `${phase} to ${target} did not finish within ${opts.timeoutMs} ms`));
    }, opts.timeoutMs);
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener('abort', onAbort, { once: true });
    raw.once('error', (err: NodeJS.ErrnoException) => {
      fail(new BrineError(tlsSocket ? 'TLS_ERROR' : 'CONNECT_FAILED', `connection to ${target} failed: ${err.code ?? err.message}`, { cause: err }));
    });
    raw.once('connect', () => {
      try {
        applySocketOptions(raw, opts.socketOptions);
      } catch {
        // see the listener: options are best effort, heartbeats are the guarantee
      }
      opts.onTcpConnected?.();
      const socket = tls.connect({ socket: raw, secureContext: opts.secureContext, rejectUnauthorized: false, minVersion: 'TLSv1.3' });
      tlsSocket = socket;
      socket.once('error', (err: Error) => fail(new BrineError('TLS_ERROR', `TLS handshake with ${target} failed: ${err.message}`, { cause: err })));
      socket.once('secureConnect', () => {
        if (settled) return;
        const peer = peerKeyOf(socket);
        if (!peer) {
          fail(new BrineError('TLS_ERROR', `${target} presented no certificate`));
          return;
        }
        settled = true;
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
        socket.removeAllListeners('error');
        // errors now surface through the channel's close reason, never as an uncaught event
        raw.on('error', () => undefined);
        const channel = new FramedSocket<In, Out>(socket, { remoteAddress: target, peerFingerprint: peer.fp, peerPublicKeyPem: peer.pem, maxFrame: opts.maxFrame, schemas: opts.schemas });
        resolve({ channel, raw });
      });
    });
  });
}
