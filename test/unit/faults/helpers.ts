// Test doubles for the fault tools' own tests: a TCP echo server that records what reaches it,
// and a client that records every byte and socket event it sees.

import * as net from 'node:net';
import { waitUntil } from '../../helpers/wait.js';

/** Echoes every byte back; half-closes when the client does. `paused` stops reading (backpressure). */
export class EchoServer {
  readonly sockets = new Set<net.Socket>();
  connections = 0;
  bytesReceived = 0;
  /** Events seen on server-side sockets, e.g. 'end', 'close', 'error:ECONNRESET'. */
  readonly events: string[] = [];
  private paused = false;

  private constructor(private readonly server: net.Server) {}

  static async start(): Promise<EchoServer> {
    let self: EchoServer | undefined;
    const server = net.createServer({ allowHalfOpen: true }, (sock) => self?.accept(sock));
    self = new EchoServer(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return self;
  }

  get port(): number {
    return (this.server.address() as net.AddressInfo).port;
  }

  /** Stops reading from every connection (and from new ones) until resume(). */
  pause(): void {
    this.paused = true;
    for (const s of this.sockets) s.pause();
  }

  resume(): void {
    this.paused = false;
    for (const s of this.sockets) s.resume();
  }

  /** A sink: count but do not echo (for bulk transfers). */
  echo = true;

  private accept(sock: net.Socket): void {
    this.connections++;
    this.sockets.add(sock);
    if (this.paused) sock.pause();
    sock.on('data', (d: Buffer) => {
      this.bytesReceived += d.length;
      if (this.echo) sock.write(d);
    });
    sock.on('end', () => {
      this.events.push('end');
      sock.end();
    });
    sock.on('error', (e: NodeJS.ErrnoException) => this.events.push(`error:${e.code}`));
    sock.on('close', () => {
      this.events.push('close');
      this.sockets.delete(sock);
    });
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** A client socket that keeps everything it receives and every event, for later assertions. */
export class RecordingClient {
  received = '';
  readonly events: string[] = [];

  private constructor(readonly sock: net.Socket) {
    sock.on('data', (d: Buffer) => (this.received += d.toString('latin1')));
    sock.on('end', () => this.events.push('end'));
    sock.on('error', (e: NodeJS.ErrnoException) => this.events.push(`error:${e.code}`));
    sock.on('close', () => this.events.push('close'));
  }

  static connect(port: number): Promise<RecordingClient> {
    return new Promise((resolve, reject) => {
      const sock = net.connect({ host: '127.0.0.1', port });
      sock.once('error', reject);
      sock.once('connect', () => {
        sock.off('error', reject);
        resolve(new RecordingClient(sock));
      });
    });
  }

  /** Sends `text` and waits until it has come back (the echo server answers byte for byte). */
  async roundTrip(text: string, timeoutMs = 2000): Promise<void> {
    const before = this.received.length;
    this.sock.write(text, 'latin1');
    await waitUntil(() => this.received.length >= before + text.length, timeoutMs, `echo of ${JSON.stringify(text)}`);
    if (this.received.slice(before, before + text.length) !== text) throw new Error(`echo mismatch: ${JSON.stringify(this.received.slice(before, before + 80))}...`);
  }

  destroy(): void {
    this.sock.destroy();
  }
}
