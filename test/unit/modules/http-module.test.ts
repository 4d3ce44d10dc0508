// http.query against a real HTTP server started here: Salt's return shapes for a success, an
// HTTP error status, a refused connection, and the status/headers/text/decode options.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDefaultRegistry } from '../../../src/modules/index.js';
import { makeCtx } from './context.js';

const registry = createDefaultRegistry();
const seen: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => {
    body += c;
  });
  req.on('end', () => {
    seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
    if (req.url!.startsWith('/missing')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('no such page');
    } else if (req.url!.startsWith('/json')) {
      res.writeHead(200, { 'content-type': 'application/json', 'x-served-by': 'test' }).end('{"version": "13.01", "files": [1, 2]}');
    } else {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('13.01\n');
    }
  });
});
let base = '';
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

const query = async (url: string, kwarg: Record<string, unknown> = {}) => registry.call('http.query', [url], kwarg, makeCtx());

describe('http.query', () => {
  it("returns {'body': text} and nothing else by default; backend and verify_ssl=True are accepted (exiftool tree)", async () => {
    const r = await query(`${base}/ver.txt`, { backend: 'requests', verify_ssl: true });
    assert.equal(r.success, true, JSON.stringify(r));
    assert.deepEqual(r.return, { body: '13.01\n' });
    assert.match(String(seen.at(-1)!.headers['user-agent']), /http\.query\(\)$/);
  });

  it('status, headers, text and decode add their keys; params, method, data, header_dict and basic auth reach the server', async () => {
    const r = await query(`${base}/json`, {
      status: true,
      headers: true,
      text: true,
      decode: true,
      params: { a: 'b c' },
      method: 'POST',
      data: 'x=1',
      header_dict: { 'X-Token': 't' },
      username: 'u',
      password: 'p',
    });
    const ret = r.return as Record<string, unknown>;
    assert.equal(ret.status, 200);
    assert.deepEqual(ret.dict, { version: '13.01', files: [1, 2] });
    assert.equal(ret.text, ret.body);
    assert.equal((ret.headers as Record<string, string>)['x-served-by'], 'test');
    const req = seen.at(-1)!;
    assert.equal(req.method, 'POST');
    assert.equal(req.url, '/json?a=b+c');
    assert.equal(req.body, 'x=1');
    assert.equal(req.headers['x-token'], 't');
    assert.equal(req.headers.authorization, `Basic ${Buffer.from('u:p').toString('base64')}`);
  });

  it("an HTTP error status is {'status': 404, 'error': ...} without a body; raise_error=False gives the body", async () => {
    assert.deepEqual((await query(`${base}/missing`)).return, { status: 404, error: 'HTTP 404: Not Found' });
    assert.deepEqual((await query(`${base}/missing`, { raise_error: false, status: true })).return, { body: 'no such page', status: 404 });
  });

  it("a refused connection is {'error': ...} ('status': 0 with status=True), not a failed call", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const r = await query(`http://127.0.0.1:${port}/`, { status: true });
    assert.equal(r.success, true);
    const ret = r.return as Record<string, unknown>;
    assert.equal(ret.status, 0);
    assert.match(String(ret.error), /ECONNREFUSED/);
    assert.equal('body' in ret, false);
  });

  it('verify_ssl=False and a non-HTTP URL are refused with BAD_ARGUMENTS saying what to do', async () => {
    const r = await query(`${base}/ver.txt`, { verify_ssl: false });
    assert.equal(r.error?.code, 'BAD_ARGUMENTS');
    assert.match(r.error!.message, /NODE_EXTRA_CA_CERTS/);
    assert.equal((await query('file:///etc/passwd')).error?.code, 'BAD_ARGUMENTS');
  });
});
