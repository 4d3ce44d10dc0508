// A git smart-HTTP server for tests and bench/gitfs.mjs: `git http-backend` (Debian `git`) run as
// CGI behind a node:http or node:https server on loopback, serving the bare repositories under
// a directory, optionally behind HTTP Basic authentication. It records the user names that
// authenticated, so a test can tell that credentials reached it.

import { spawn } from 'node:child_process';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';

export interface GitHttpOptions {
  /** Directory holding the bare repositories (GIT_PROJECT_ROOT). */
  projectRoot: string;
  /** Require this user and password (HTTP Basic). */
  basic?: { user: string; password: string };
  /** Serve HTTPS with this key and certificate (PEM). */
  tls?: { key: string; cert: string };
}

export class GitHttpServer {
  /** User names of requests that authenticated. */
  readonly authenticated: string[] = [];
  /** Requests refused for missing or wrong credentials. */
  refused = 0;

  private constructor(
    private readonly server: http.Server,
    readonly scheme: 'http' | 'https',
  ) {}

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(repo: string): string {
    return `${this.scheme}://127.0.0.1:${this.port}/${repo}`;
  }

  static start(opts: GitHttpOptions): Promise<GitHttpServer> {
    let self: GitHttpServer | undefined;
    const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
      if (opts.basic) {
        const [scheme, value] = (req.headers.authorization ?? '').split(' ');
        const [user, ...rest] = scheme === 'Basic' && value ? Buffer.from(value, 'base64').toString().split(':') : [];
        if (user !== opts.basic.user || rest.join(':') !== opts.basic.password) {
          if (req.headers.authorization && self) self.refused++;
          res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' });
          res.end();
          return;
        }
        self?.authenticated.push(user);
      }
      cgi(opts.projectRoot, req, res);
    };
    const server = opts.tls ? https.createServer({ key: opts.tls.key, cert: opts.tls.cert }, handler) : http.createServer(handler);
    return new Promise((resolve) =>
      server.listen(0, '127.0.0.1', () => {
        self = new GitHttpServer(server, opts.tls ? 'https' : 'http');
        resolve(self);
      }),
    );
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** One request through `git http-backend`: CGI environment in, status and headers parsed out. */
function cgi(projectRoot: string, req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://x');
  const child = spawn('git', ['http-backend'], {
    env: {
      ...process.env,
      GIT_PROJECT_ROOT: projectRoot,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: url.pathname,
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: req.method ?? 'GET',
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      REMOTE_ADDR: '127.0.0.1',
      ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) } : {}),
    },
  });
  req.pipe(child.stdin);
  let head = Buffer.alloc(0);
  let sent = false;
  child.stdout.on('data', (d: Buffer) => {
    if (sent) {
      res.write(d);
      return;
    }
    head = Buffer.concat([head, d]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    let status = 200;
    for (const line of head.subarray(0, end).toString().split('\r\n')) {
      const i = line.indexOf(':');
      const k = line.slice(0, i);
      const v = line.slice(i + 1).trim();
      if (k.toLowerCase() === 'status') status = Number.parseInt(v, 10);
      else res.setHeader(k, v);
    }
    res.writeHead(status);
    res.write(head.subarray(end + 4));
    sent = true;
  });
  child.on('close', () => res.end());
}
