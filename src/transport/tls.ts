// TLS 1.3 with mutual authentication: the master's listener and the minion's dialer. Both sides
// present self-signed certificates; trust is decided above this layer by key fingerprint.

import * as net from 'node:net';
import * as tls from 'node:tls';
import { BrineError } from '../util/errors.js';
import { certificateKeyFromDer, fingerprint } from '../pki/fingerprint.js';
import type { Schema } from '../protocol/index.js';
import { FramedSocket } from './framed-socket.js';
import { applyListenerSocketOptions, applySocketOptions, type KeepaliveOptions } from './socket-options.js';
import { countOpenFds, readFdLimit } from './fd-limit.js';
import { sourceKey } from './source-key.js';
import { PreauthGate, describePreauthRefusal, type PreauthLimits, type PreauthSlot } from './preauth-gate.js';
import { HandshakeGate, type GateTicket } from './handshake-gate.js';
import { DOOR_OK, doorBusy, doorRequest, parseDoorAnswer, sniffDoor } from './door.js';
import { systemClock } from '../util/clock.js';
import { padFirstFlight, REQUEST_FIRST_FLIGHT_FILLER } from './first-flight.js';

/** The TLS session ID context of every brine listener, the same whatever the command line. */
export const TLS_SESSION_ID_CONTEXT = 'brine';

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
  // the DER walk is half the cost of KeyObjects, paid on every handshake (a restart's storm)
  const quick = certificateKeyFromDer(cert.raw);
  if (quick) return { fp: quick.fingerprint, pem: quick.pem };
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
   * Handshake pacing (handshake-gate.ts): at most `concurrency` TLS handshakes at once, brine
   * dialers told at the door (door.ts) when to come back. Omitted = every handshake at once; the
   * door is answered either way (always OK), since every brine dialer asks there.
   */
  pacing?: { concurrency: number; maxRatePerSecond: number; maxHoldMs: number };
  /** A brine dialer was told to come back in `retryAfterMs` before any TLS work was done. */
  onTurnedAway?(remote: string, retryAfterMs: number): void;
  /**
   * Session-ticket keys (48 bytes) and ticket lifetime: kept across restarts, they let returning
   * minions resume their TLS sessions (ticket-keys.ts). Omitted = per-process keys, Node's 300 s.
   */
  tickets?: { keys: Buffer; lifetimeSeconds: number };
  /**
   * A TLS channel is up. `slot.release()` must be called when the peer authenticates, so that
   * it stops counting against the pre-auth caps and gives its handshake slot (pacing) to the
   * next in line; a close releases it anyway.
   */
  onChannel(channel: FramedSocket<In, Out>, raw: net.Socket, slot: PreauthSlot): void;
  /** A connection refused or failed before it became a channel (caps, bad TLS, no client certificate). */
  onRefused?(remote: string, error: BrineError): void;
}

export interface TlsListener {
  readonly port: number;
  /** Handshake pacing counters (zeros when pacing is off). */
  pacing(): { inFlight: number; waiting: number; turnedAway: number; plannedRate: number; limit: number };
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
  const preauthGate = new PreauthGate(limits);
  /** The listening socket carries the TCP options, so accepted sockets are born with them. */
  let inheritedOptions = false;
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
    ...(opts.tickets ? { ticketKeys: opts.tickets.keys, sessionTimeout: opts.tickets.lifetimeSeconds } : {}),
    // Node's default session ID context is a hash of process.argv: a master restarted with another
    // command line (`-l debug`, another -c path, an upgraded install path) would resume no session
    // and take every minion through a full handshake; the ticket keys already make tickets per master
    sessionIdContext: TLS_SESSION_ID_CONTEXT,
  });
  // keeps a 16 KiB buffer per minion from being allocated for the session tickets (first-flight.ts)
  padFirstFlight(tlsServer);
  // handshake pacing: a slot per sign-in, from the grant until the peer has signed in (the
  // channel's slot released), failed or closed
  /** Sockets holding a handshake slot, with when they got it. */
  const handshaking = new WeakMap<net.Socket, number>();
  const tickets = new WeakMap<net.Socket, GateTicket>();
  const doorSockets = new WeakSet<net.Socket>();
  const remoteOf = (raw: net.Socket) => formatAddress(raw.remoteAddress, raw.remotePort);
  const startHandshake = (raw: net.Socket): void => {
    if (raw.destroyed) {
      pacer.failed();
      return;
    }
    handshaking.set(raw, performance.now());
    if (doorSockets.has(raw)) raw.write(DOOR_OK);
    tlsServer.emit('connection', raw);
  };
  /** `up`: the handshake completed (its duration teaches the gate); otherwise it failed or closed. */
  const handshakeEnded = (raw: net.Socket, up: boolean): void => {
    const startedAt = handshaking.get(raw);
    if (startedAt === undefined) return;
    handshaking.delete(raw);
    if (up) pacer.done(performance.now() - startedAt);
    else pacer.failed();
  };
  const pacing = opts.pacing ?? { concurrency: 0, maxRatePerSecond: 1000, maxHoldMs: 1000 };
  // the master's own event-loop load, per window of the gate: tells a busy master from slow peers
  let lastLoad = performance.eventLoopUtilization();
  const loadSample = (): number => {
    const now = performance.eventLoopUtilization();
    const share = performance.eventLoopUtilization(now, lastLoad).utilization;
    lastLoad = now;
    return share;
  };
  const pacer = new HandshakeGate<net.Socket>(
    systemClock,
    { concurrency: pacing.concurrency, maxRatePerSecond: pacing.maxRatePerSecond, maxHoldMs: pacing.maxHoldMs, legacyWaitMs: opts.handshakeTimeoutMs, loadSample },
    {
      grant: startHandshake,
      turnAway: (raw, ms) => turnAway(raw, ms),
      expire: (raw) => {
        opts.onRefused?.(remoteOf(raw), new BrineError('HANDSHAKE_TIMEOUT', `a TLS handshake from ${remoteOf(raw)} waited ${opts.handshakeTimeoutMs} ms for a free handshake slot and was dropped`));
        raw.destroy();
      },
    },
  );
  const sweeper = setInterval(() => pacer.sweep(), 100);
  sweeper.unref();
  const turnAway = (raw: net.Socket, retryAfterMs: number): void => {
    // closed from this side once the line is written: no read of the peer's FIN (each read
    // allocates a 64 KiB buffer) and no timer; the door request was read whole, so the close is
    // a FIN after the line, not a reset
    raw.end(doorBusy(retryAfterMs));
    raw.destroySoon();
    opts.onTurnedAway?.(remoteOf(raw), retryAfterMs);
  };
  const ask = (raw: net.Socket, door: boolean, patienceMs?: number): void => {
    if (door) doorSockets.add(raw);
    const answer = pacer.request(raw, door, patienceMs);
    if (answer.kind === 'go') startHandshake(raw);
    else if (answer.kind === 'busy') turnAway(raw, answer.retryAfterMs);
    else tickets.set(raw, answer.ticket);
  };
  /** Reads the first bytes: a door request, or anything else (handed to TLS untouched). */
  const sniff = (raw: net.Socket): void => {
    let buf: Buffer | undefined;
    const finish = (): void => {
      raw.removeListener('data', onData);
      raw.removeListener('timeout', onTimeout);
      raw.setTimeout(0);
      raw.pause();
    };
    const onTimeout = (): void => {
      finish();
      opts.onRefused?.(remoteOf(raw), new BrineError('HANDSHAKE_TIMEOUT', `connection from ${remoteOf(raw)} sent nothing within ${opts.handshakeTimeoutMs} ms`));
      raw.destroy();
    };
    const onData = (chunk: Buffer): void => {
      buf = buf ? Buffer.concat([buf, chunk]) : chunk;
      const seen = sniffDoor(buf);
      if (seen.kind === 'more') return;
      finish();
      if (seen.kind === 'tls') {
        raw.unshift(buf);
        ask(raw, false);
      } else {
        if (seen.rest.length > 0) raw.unshift(seen.rest);
        ask(raw, true, seen.patienceMs);
      }
    };
    raw.on('data', onData);
    raw.setTimeout(opts.handshakeTimeoutMs);
    raw.on('timeout', onTimeout);
  };
  const server = net.createServer((raw: net.Socket) => {
    raw.on('error', () => undefined);
    const source = sourceKey(raw.remoteAddress ?? 'unknown');
    const admitted = preauthGate.admit(source, raws.size + 1);
    if (typeof admitted === 'string') {
      const remote = remoteOf(raw);
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
      tickets.get(raw)?.cancel();
      handshakeEnded(raw, false);
    });
    // on Linux the listening socket's options are inherited: nothing to set per connection
    if (!inheritedOptions) {
      try {
        applySocketOptions(raw, opts.socketOptions);
      } catch {
        // an option the kernel refuses must not cost the connection; heartbeats still apply
      }
    }
    sniff(raw);
  });
  const rawOf = (socket: tls.TLSSocket): net.Socket => (socket as unknown as { _parent?: net.Socket })._parent ?? (socket as unknown as net.Socket);
  tlsServer.on('secureConnection', (socket: tls.TLSSocket) => {
    const remote = formatAddress(socket.remoteAddress, socket.remotePort);
    const raw = rawOf(socket);
    const peer = peerKeyOf(socket);
    if (!peer) {
      handshakeEnded(raw, false);
      opts.onRefused?.(remote, new BrineError('NO_CLIENT_CERT', `connection from ${remote} presented no client certificate`));
      socket.destroy();
      return;
    }
    const channel = new FramedSocket<In, Out>(socket, { remoteAddress: remote, peerFingerprint: peer.fp, peerPublicKeyPem: peer.pem, maxFrame: opts.preauthMaxFrame, schemas: opts.schemas });
    // the handshake slot is held until the peer has signed in (or gone): what limits a storm is
    // the whole of TLS, hello and sign-in (a new key's fsync), not the TLS part alone
    const preauth = slots.get(raw);
    opts.onChannel(channel, raw, {
      release: () => {
        preauth?.release();
        handshakeEnded(raw, true);
      },
    });
  });
  tlsServer.on('tlsClientError', (err: Error & { code?: string }, socket: tls.TLSSocket) => {
    const remote = formatAddress(socket.remoteAddress, socket.remotePort);
    handshakeEnded(rawOf(socket), false);
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
      inheritedOptions = applyListenerSocketOptions(server, opts.socketOptions);
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
        pacing: () => ({
          inFlight: pacer.handshakesInFlight,
          waiting: pacer.waiting,
          turnedAway: pacer.turnedAway,
          plannedRate: pacer.plannedRate,
          limit: pacer.currentLimit,
        }),
        close: () =>
          new Promise<void>((res) => {
            clearInterval(sweeper);
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
  /**
   * Ask at the door before TLS (door.ts): the master may answer BUSY with a time to come back,
   * which rejects with MASTER_BUSY (`details.retryAfterMs`). Masters pace every brine dialer so.
   */
  door?: boolean;
  /**
   * A TLS session from an earlier connection to the same master, to resume (no full handshake),
   * with the master's key as that connection saw it: a resumed session carries no certificate,
   * and the master proves it is the same one by holding the ticket's secret.
   */
  session?: ResumableSession;
  /** Each session ticket the master sends, for the next connection's `session`. */
  onSession?(session: ResumableSession): void;
}

export interface ResumableSession {
  ticket: Buffer;
  peer: { fp: string; pem: string };
}

export interface DialedChannel<In, Out extends { t: string }> {
  channel: FramedSocket<In, Out>;
  raw: net.Socket;
  /** The TLS session was resumed from `session` (no certificates exchanged again). */
  resumed: boolean;
}

export function dialTls<In, Out extends { t: string }>(opts: TlsDialOptions): Promise<DialedChannel<In, Out>> {
  return new Promise((resolve, reject) => {
    let settled = false;
    let tlsSocket: tls.TLSSocket | undefined;
    const raw = net.connect({ host: opts.host, port: opts.port });
    const target = formatAddress(opts.host, opts.port);
    const onAbort = () => fail(BrineError.expected('CONNECT_FAILED', `connection attempt to ${target} abandoned`));
    const fail = (err: BrineError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      tlsSocket?.destroy();
      raw.destroy();
      reject(err);
    };
    let atDoor = false;
    const timer = setTimeout(() => {
      if (atDoor && !tlsSocket) {
        fail(new BrineError('HANDSHAKE_TIMEOUT', `master ${target} accepted the connection but did not let the TLS handshake start within ${opts.timeoutMs} ms (it is answering other minions)`));
        return;
      }
      const phase = tlsSocket ? 'TLS handshake' : 'TCP connect';
      fail(new BrineError(tlsSocket ? 'HANDSHAKE_TIMEOUT' : 'CONNECT_FAILED', `${phase} to ${target} did not finish within ${opts.timeoutMs} ms`));
    }, opts.timeoutMs);
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener('abort', onAbort, { once: true });
    raw.once('error', (err: NodeJS.ErrnoException) => {
      fail(new BrineError(tlsSocket ? 'TLS_ERROR' : 'CONNECT_FAILED', `connection to ${target} failed: ${err.code ?? err.message}`, { cause: err }));
    });
    const startedAt = Date.now();
    // keepalive and user timeout matter for a connection that lives: set once the door has let
    // it in (or at connect without the door), not on attempts a busy master turns away, which
    // after a master restart are most of them
    const applyOptions = (): void => {
      try {
        applySocketOptions(raw, opts.socketOptions);
      } catch {
        // see the listener: options are best effort, heartbeats are the guarantee
      }
    };
    raw.once('connect', () => {
      opts.onTcpConnected?.();
      if (!opts.door) {
        applyOptions();
        startTls();
        return;
      }
      // the door: one line each way before any TLS work, so a busy master can say when to return
      let answer: Buffer | undefined;
      const onData = (chunk: Buffer): void => {
        answer = answer ? Buffer.concat([answer, chunk]) : chunk;
        let parsed: ReturnType<typeof parseDoorAnswer>;
        try {
          parsed = parseDoorAnswer(answer, target);
        } catch (err) {
          fail(err as BrineError);
          return;
        }
        if (parsed === undefined) return;
        raw.removeListener('data', onData);
        raw.removeListener('end', onEnd);
        if (!parsed.ok) {
          fail(
            BrineError.expected('MASTER_BUSY', `master ${target} is busy with other handshakes and asked this minion to come back in ${parsed.retryAfterMs} ms`, {
              details: { retryAfterMs: parsed.retryAfterMs },
            }),
          );
          return;
        }
        applyOptions();
        raw.pause();
        if (parsed.rest.length > 0) raw.unshift(parsed.rest);
        startTls();
      };
      const onEnd = (): void =>
        fail(
          new BrineError(
            'CONNECT_FAILED',
            `${target} closed the connection before answering (an older brine master, or not a brine master at all: an HTTPS server such as brine api's closes like this; 'brine doctor minion' names the service on the port)`,
          ),
        );
      atDoor = true;
      raw.on('data', onData);
      raw.once('end', onEnd);
      raw.write(doorRequest(opts.timeoutMs - (Date.now() - startedAt)));
    });
    const startTls = (): void => {
      const socket = tls.connect({
        socket: raw,
        secureContext: opts.secureContext,
        rejectUnauthorized: false,
        minVersion: 'TLSv1.3',
        ...REQUEST_FIRST_FLIGHT_FILLER,
        ...(opts.session ? { session: opts.session.ticket } : {}),
      });
      tlsSocket = socket;
      let peer: { fp: string; pem: string } | undefined;
      if (opts.onSession) {
        const onSession = opts.onSession;
        // tickets come after the handshake, when the master's key is known
        socket.on('session', (ticket: Buffer) => {
          if (peer) onSession({ ticket, peer });
        });
      }
      socket.once('error', (err: Error) => fail(new BrineError('TLS_ERROR', `TLS handshake with ${target} failed: ${err.message}`, { cause: err })));
      socket.once('secureConnect', () => {
        if (settled) return;
        peer = peerKeyOf(socket) ?? (socket.isSessionReused() ? opts.session?.peer : undefined);
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
        resolve({ channel, raw, resumed: socket.isSessionReused() });
      });
    };
  });
}
