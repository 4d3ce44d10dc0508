// A small HTTPS client for the REST API tests: pins the API's certificate (the default one is
// pki_dir/api.crt) instead of turning verification off, can bind a chosen loopback source address
// (127.0.0.x, so throttling per address can be tested), and reads server-sent events.

import assert from 'node:assert/strict';
import * as https from 'node:https';
import * as tls from 'node:tls';

/** Parsed JSON from the API, read freely by the tests. */
// biome-ignore lint/suspicious/noExplicitAny: test code reads arbitrary response shapes
type Json = any;

export interface ApiResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: Json;
}

export interface ApiRequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** An object is sent as JSON unless a content-type header says otherwise. */
  body?: unknown;
  localAddress?: string;
  timeoutMs?: number;
}

export class ApiClient {
  constructor(
    readonly port: number,
    readonly ca: string,
  ) {}

  get base(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  private tlsOptions() {
    // the certificate names the master (CN=brine-master), not 127.0.0.1: it is pinned by `ca`
    return { ca: this.ca, checkServerIdentity: () => undefined };
  }

  request(path: string, opts: ApiRequestOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    let payload: string | undefined;
    if (opts.body !== undefined) {
      if (typeof opts.body === 'string') payload = opts.body;
      else {
        payload = JSON.stringify(opts.body);
        headers['content-type'] ??= 'application/json';
      }
    }
    return new Promise((resolve, reject) => {
      const req = https.request(
        {
          host: '127.0.0.1',
          port: this.port,
          path,
          method: opts.method ?? (payload === undefined ? 'GET' : 'POST'),
          headers,
          ...this.tlsOptions(),
          ...(opts.localAddress ? { localAddress: opts.localAddress } : {}),
          agent: false,
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (text += d));
          res.on('end', () => {
            let json: unknown;
            try {
              json = JSON.parse(text);
            } catch {
              json = undefined;
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
          });
        },
      );
      req.setTimeout(opts.timeoutMs ?? 60_000, () => req.destroy(new Error(`${path}: no answer in time`)));
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** POST with a JSON body and the token. */
  post(path: string, token: string | undefined, body: unknown, headers: Record<string, string> = {}): Promise<ApiResponse> {
    return this.request(path, { method: 'POST', body, headers: { ...(token ? { 'x-auth-token': token } : {}), ...headers } });
  }

  get(path: string, token?: string, headers: Record<string, string> = {}): Promise<ApiResponse> {
    return this.request(path, { headers: { ...(token ? { 'x-auth-token': token } : {}), ...headers } });
  }

  async login(username: string, password: string, eauth = 'file', localAddress?: string): Promise<string> {
    const res = await this.request('/login', { method: 'POST', body: { username, password, eauth }, ...(localAddress ? { localAddress } : {}) });
    if (res.status !== 200) throw new Error(`login of ${username} failed: ${res.status} ${res.text}`);
    return res.json.return[0].token as string;
  }

  /** A raw TLS connection to the API (slow-client tests). */
  connect(): Promise<tls.TLSSocket> {
    return new Promise((resolve, reject) => {
      const s = tls.connect({ host: '127.0.0.1', port: this.port, ...this.tlsOptions() }, () => resolve(s));
      s.once('error', reject);
    });
  }

  /** Opens GET /events; `events` fills as `tag:`/`data:` blocks arrive. */
  events(path: string, headers: Record<string, string> = {}): Promise<{ status: number; events: Array<{ tag: string; data: Json }>; raw: () => string; close: () => void; ended: () => boolean }> {
    return new Promise((resolve, reject) => {
      const events: Array<{ tag: string; data: Json }> = [];
      let buf = '';
      let raw = '';
      const req = https.request({ host: '127.0.0.1', port: this.port, path, method: 'GET', headers, ...this.tlsOptions(), agent: false }, (res) => {
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          raw += d;
          buf += d;
          let i = buf.indexOf('\n\n');
          while (i >= 0) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            const tag = /^tag: (.*)$/m.exec(block)?.[1];
            const data = /^data: (.*)$/m.exec(block)?.[1];
            if (tag !== undefined && data !== undefined) events.push({ tag, data: JSON.parse(data) });
            i = buf.indexOf('\n\n');
          }
        });
        let ended = false;
        res.on('error', () => {});
        // the server ended the stream (not this client's close)
        res.on('end', () => (ended = true));
        res.on('aborted', () => (ended = true));
        resolve({ status: res.statusCode ?? 0, events, raw: () => raw, close: () => req.destroy(), ended: () => ended });
      });
      req.on('error', (err) => {
        if (!events.length) reject(err);
      });
      req.end();
    });
  }
}

/** Asserts an API error answer: the HTTP status, brine's code, and Salt's `status`/`return` fields beside it. */
export function expectError(res: ApiResponse, status: number, code: string): void {
  assert.equal(res.status, status, `expected ${status} ${code}, got ${res.status}: ${res.text}`);
  assert.equal(res.json?.error?.code, code, res.text);
  assert.equal(res.json?.status, status, res.text);
  assert.ok(typeof res.json?.return === 'string', 'salt-api keeps a return text on errors');
}
