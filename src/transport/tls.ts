// TLS 1.3 with mutual authentication: the master's listener and the minion's dialer. Both sides
// present self-signed certificates; trust is decided above this layer by key fingerprint.

import * as net from 'node:net';
import * as tls from 'node:tls';
import { BrineError } from '../util/errors.js';
import { fingerprint } from '../pki/fingerprint.js';
import type { Schema } from '../protocol/index.js';
import { FramedSocket } from './framed-socket.js';
import { applySocketOptions, type KeepaliveOptions } from './socket-options.js';
import { countOpenFds, readFdLimit } from './fd-limit.js';
import { sourceKey } from './source-key.js';
import { PreauthGate, describePreauthRefusal, type PreauthLimits, type PreauthSlot } from './preauth-gate.js';

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
  /** Caps on unauthenticated connections; omitted = none (tests of other layers). */
  preauth?: { maxTotal: number; maxPerSource: number; fdReserve: number };
  /**
   * A TLS channel is up. `slot.release()` must be called when the peer authenticates, so that
   * it stops counting against the pre-auth caps; a close releases it anyway.
   */
  onChannel(channel: FramedSocket<In, Out>, raw: net.Socket, slot: PreauthSlot): void;
  /** A connection refused or failed before it became a channel (caps, bad TLS, no client certificate). */
  onRefused?(remote: string, error: BrineError): void;
}

export interface TlsListener {
  readonly port: number;
  close(): Promise<void>;
}

export function listenTls<In, Out extends { t: string }>(opts: TlsListenOptions<In, Out>): Promise<TlsListener> {
  const raws = new Set<net.Socket>();
  const slots = new WeakMap<net.Socket, PreauthSlot>();
  const limits: PreauthLimits = {
    maxTotal: opts.preauth?.maxTotal ?? 0,
    maxPerSource: opts.preauth?.maxPerSource ?? 0,
    fdReserve: opts.preauth?.fdReserve ?? 0,
    fdLimit: opts.preauth ? readFdLimit() : undefined,
    // descriptors taken before the first accept (logs, job cache, control socket, this listener)
    baselineFds: (opts.preauth ? countOpenFds() : undefined) ?? 0,
  };
  const gate = new PreauthGate(limits);
  // TLS runs over sockets this plain server accepted and admitted; a refused one is reset before
  // any TLS work or buffer is spent on it
  const tlsServer = tls.createServer({
    key: opts.identity.privateKeyPem,
    cert: opts.identity.certPem,
    minVersion: 'TLSv1.3',
    requestCert: true,
    // self-signed client certificates: authorisation happens by fingerprint, above this layer
    rejectUnauthorized: false,
    handshakeTimeout: opts.handshakeTimeoutMs,
  });
  const server = net.createServer((raw: net.Socket) => {
    raw.on('error', () => undefined);
    const source = sourceKey(raw.remoteAddress ?? 'unknown');
    const admitted = gate.admit(source, raws.size + 1);
    if (typeof admitted === 'string') {
      const remote = formatAddress(raw.remoteAddress, raw.remotePort);
      // a reset, not a FIN: no TIME_WAIT and no buffers kept for a peer we refuse
      raw.resetAndDestroy();
      opts.onRefused?.(remote, new BrineError('CONNECTION_LIMIT', `refused a connection from ${remote} before TLS: ${describePreauthRefusal(admitted, limits)}`, { details: { limit: admitted } }));
      return;
    }
    raws.add(raw);
    slots.set(raw, admitted);
    raw.once('close', () => {
      raws.delete(raw);
      admitted.release();
    });
    try {
      applySocketOptions(raw, opts.socketOptions);
    } catch {
      // an option the kernel refuses must not cost the connection; heartbeats still apply
    }
    tlsServer.emit('connection', raw);
  });
  tlsServer.on('secureConnection', (socket: tls.TLSSocket) => {
    const remote = formatAddress(socket.remoteAddress, socket.remotePort);
    const peer = peerKeyOf(socket);
    if (!peer) {
      opts.onRefused?.(remote, new BrineError('NO_CLIENT_CERT', `connection from ${remote} presented no client certificate`));
      socket.destroy();
      return;
    }
    const raw = (socket as unknown as { _parent?: net.Socket })._parent ?? (socket as unknown as net.Socket);
    const channel = new FramedSocket<In, Out>(socket, { remoteAddress: remote, peerFingerprint: peer.fp, peerPublicKeyPem: peer.pem, maxFrame: opts.preauthMaxFrame, schemas: opts.schemas });
    opts.onChannel(channel, raw, slots.get(raw) ?? { release: () => undefined });
  });
  tlsServer.on('tlsClientError', (err: Error & { code?: string }, socket: tls.TLSSocket) => {
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
      // accept() failing (EMFILE when the descriptor reserve was not enough) is reported, never
      // thrown: an unhandled 'error' here would take the whole master down
      server.on('error', (err: NodeJS.ErrnoException) => {
        opts.onRefused?.(
          'unknown',
          new BrineError('CONNECTION_LIMIT', `accepting a connection failed: ${err.code ?? err.message} (raise the master's open-files limit or preauth_fd_reserve)`, {
            cause: err,
            details: { limit: 'accept_failed' },
          }),
        );
      });
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
