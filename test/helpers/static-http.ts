// A static HTTP or HTTPS server a test starts on 127.0.0.1 (an ephemeral port): serves the files
// it is given by path, answers 404 for anything else, and counts GET requests per path so a test
// can tell a download from a cache hit. close() is idempotent.

import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

export interface StaticServer {
  /** http://127.0.0.1:<port> (or https://). */
  readonly base: string;
  readonly port: number;
  /** GET requests seen, by path. */
  gets(path: string): number;
  /** Adds or replaces a served file. */
  put(path: string, body: string | Buffer): void;
  close(): Promise<void>;
}

export async function startStaticServer(files: Record<string, string | Buffer>, tls?: { cert: Buffer; key: Buffer }): Promise<StaticServer> {
  const served = new Map(Object.entries(files).map(([p, b]) => [p, Buffer.from(b)]));
  const counts = new Map<string, number>();
  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const p = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method === 'GET') counts.set(p, (counts.get(p) ?? 0) + 1);
    const body = served.get(p);
    if (!body) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': body.length });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
  const server = tls ? https.createServer({ cert: tls.cert, key: tls.key }, handler) : http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  let closed: Promise<void> | undefined;
  return {
    base: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    gets: (p) => counts.get(p) ?? 0,
    put: (p, b) => served.set(p, Buffer.from(b)),
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

/** A port on 127.0.0.1 nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}
