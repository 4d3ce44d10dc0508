// Which service listens on a port that does not speak brine (issue 26, `brine doctor`): a NATS
// server greets first ("INFO {"), an HTTP server answers a HEAD request ("HTTP/1.0 ..."). Used
// only after a TLS handshake failed there, so a brine master never sees the HEAD line.

import * as net from 'node:net';
import { recogniseForeignPeer, type ForeignPeer } from '../protocol/index.js';

/** How long a greeting-first service (NATS, SSH, SMTP) gets to speak before we ask in HTTP. */
const GREETING_MS = 300;

export interface SniffedService {
  kind: ForeignPeer;
  /** The first bytes it sent (for the message). */
  head: Buffer;
}

/** The service on host:port when its first bytes are a known protocol's; undefined otherwise. */
export function sniffService(host: string, port: number, timeoutMs: number): Promise<SniffedService | undefined> {
  return new Promise((resolve) => {
    let got = Buffer.alloc(0);
    const socket = net.connect({ host, port });
    const finish = (found: SniffedService | undefined): void => {
      clearTimeout(greeting);
      clearTimeout(deadline);
      socket.destroy();
      resolve(found);
    };
    const judge = (): void => {
      const kind = recogniseForeignPeer(got);
      finish(kind === undefined ? undefined : { kind, head: got });
    };
    const greeting = setTimeout(() => {
      if (got.length === 0) socket.write('HEAD / HTTP/1.0\r\n\r\n');
    }, GREETING_MS);
    const deadline = setTimeout(judge, timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      got = Buffer.concat([got, chunk]).subarray(0, 256);
      if (got.includes(10) || got.length >= 64) judge();
    });
    socket.once('end', judge);
    socket.once('error', () => finish(undefined));
  });
}
