// A raw peer on a nats-server's cluster (route) port, for the route-injection tests (issue 21
// point 1): it speaks the server-to-server protocol by hand (INFO, CONNECT as a route, PING,
// RMSG), over plain TCP or TLS from the first byte as a real route does, and
// records every byte the server sends so a test can tell whether the route was taken.

import * as net from 'node:net';
import * as tls from 'node:tls';
import { waitUntil } from './cluster.js';

export interface RoutePeerTls {
  ca: string;
  /** A client certificate and key to present (a real route's), or none. */
  cert?: string;
  key?: string;
}

export class RoutePeer {
  private received = '';
  private closedValue = false;
  private socket: net.Socket;

  private constructor(socket: net.Socket) {
    this.socket = socket;
    this.watch(socket);
  }

  /**
   * Connects to 127.0.0.1:port. With `tls` the handshake starts at once, as a real route's does
   * (nats-server sends a route its INFO only after TLS); either way it then waits up to 2 s for
   * the server's INFO or the close, whichever comes first.
   */
  static async connect(port: number, options: { tls?: RoutePeerTls } = {}): Promise<RoutePeer> {
    const socket = net.connect({ host: '127.0.0.1', port });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('error', reject);
    });
    const peer = new RoutePeer(socket);
    if (options.tls !== undefined) await peer.upgrade(options.tls);
    await waitUntil(() => peer.closed || /^INFO .*\r\n/.test(peer.received), 2000, 'INFO').catch(() => undefined);
    return peer;
  }

  private watch(socket: net.Socket): void {
    socket.on('data', (d: Buffer) => {
      this.received += d.toString('latin1');
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      if (socket === this.socket) this.closedValue = true;
    });
  }

  /** Resolves once the TLS handshake ends, either way. */
  private async upgrade(opts: RoutePeerTls): Promise<void> {
    const raw = this.socket;
    raw.removeAllListeners('data');
    const secure = tls.connect({ socket: raw, ca: opts.ca, ...(opts.cert === undefined ? {} : { cert: opts.cert, key: opts.key }), servername: 'localhost' });
    this.socket = secure;
    this.watch(secure);
    await new Promise<void>((resolve) => {
      secure.once('secureConnect', () => resolve());
      secure.once('error', () => resolve());
      secure.once('close', () => resolve());
    });
  }

  get output(): string {
    return this.received;
  }

  get closed(): boolean {
    return this.closedValue || this.socket.destroyed;
  }

  /** Introduces itself as a server of `cluster` (what a route's CONNECT says), then PINGs. */
  introduce(cluster: string, credentials: { user?: string; pass?: string } = {}): void {
    const connect = { echo: false, verbose: false, pedantic: false, tls_required: false, headers: true, name: 'NROGUEROUTEPEER', cluster, dynamic: false, lnoc: true, ...credentials };
    this.write(`CONNECT ${JSON.stringify(connect)}\r\nPING\r\n`);
  }

  /** A message as a route forwards it: for the subscribers of `subject` in `account` on that server. */
  inject(account: string, subject: string, payload: string): void {
    this.write(`RMSG ${account} ${subject} ${Buffer.byteLength(payload)}\r\n${payload}\r\nPING\r\n`);
  }

  private write(text: string): void {
    if (!this.closed) this.socket.write(text);
  }

  async waitFor(pattern: RegExp, timeoutMs: number): Promise<void> {
    await waitUntil(() => pattern.test(this.received), timeoutMs, `${pattern} from the route port`);
  }

  /** Waits until the server closes the connection or answers a PING (took the peer as a route). */
  async settled(timeoutMs: number): Promise<void> {
    await waitUntil(() => this.closed || /PONG/.test(this.received), timeoutMs, 'the server to close the raw route or answer its PING');
  }

  async waitClosedWithin(timeoutMs: number): Promise<void> {
    await waitUntil(() => this.closed, timeoutMs, 'the server to close the raw route');
  }

  close(): void {
    this.socket.destroy();
  }
}
