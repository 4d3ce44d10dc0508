// The optional /metrics endpoint on `metrics_host:metrics_port`, for when the REST API (which
// mounts the same renderMetrics) is off. One route, read-only, no body accepted; short header
// and request deadlines so a slow client cannot hold sockets open. An HTTP server is the one
// exception to "only src/transport touches sockets" here (docs/architecture.md).

import * as http from 'node:http';
import { BrineError } from '../util/errors.js';

export interface MetricsEndpoint {
  render(): Promise<string>;
  readonly contentType: string;
}

export interface MetricsServer {
  readonly port: number;
  readonly host: string;
  close(): Promise<void>;
}

/** Per request: headers within this, the whole request within REQUEST_TIMEOUT_MS. */
const HEADERS_TIMEOUT_MS = 5_000;
const REQUEST_TIMEOUT_MS = 10_000;

export function startMetricsServer(host: string, port: number, endpoint: MetricsEndpoint, onError: (err: unknown) => void): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    const url = (req.url ?? '/').split('?')[0];
    if (url !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found: the metrics are at /metrics\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('method not allowed: use GET /metrics\n');
      return;
    }
    endpoint.render().then(
      (text) => {
        res.writeHead(200, { 'content-type': endpoint.contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (err: unknown) => {
        onError(err);
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('collecting the metrics failed; see the master log\n');
      },
    );
  });
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.keepAliveTimeout = 5_000;
  server.maxHeadersCount = 50;
  return new Promise((resolve, reject) => {
    const onListenError = (err: NodeJS.ErrnoException) => {
      const why = err.code === 'EADDRINUSE' ? 'the port is in use (EADDRINUSE)' : err.code === 'EACCES' ? 'permission denied (EACCES)' : err.message;
      reject(new BrineError('METRICS_LISTEN_FAILED', `cannot serve metrics on ${host}:${port} (metrics_host:metrics_port): ${why}`, { cause: err, details: { host, port } }));
    };
    server.once('error', onListenError);
    server.listen({ host, port }, () => {
      server.removeListener('error', onListenError);
      server.on('error', onError);
      const address = server.address();
      const bound = typeof address === 'object' && address !== null ? address.port : port;
      let closing: Promise<void> | undefined;
      resolve({
        port: bound,
        host,
        close: () => {
          closing ??= new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          });
          return closing;
        },
      });
    });
  });
}
