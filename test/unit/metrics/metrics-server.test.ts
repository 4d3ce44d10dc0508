// The metrics_port server (issue 11 item 4): GET /metrics only, Prometheus content type, a port
// in use refused with METRICS_LISTEN_FAILED naming the address, and close() idempotent.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { startMetricsServer } from '../../../src/metrics/index.js';
import { BrineError } from '../../../src/util/errors.js';

const endpoint = { render: async () => 'brine_up 1\n', contentType: 'text/plain; version=0.0.4; charset=utf-8' };

test('serves GET /metrics with the registry content type; other paths 404, other methods 405', async (t) => {
  const errors: unknown[] = [];
  const server = await startMetricsServer('127.0.0.1', 0, endpoint, (err) => errors.push(err));
  t.after(() => server.close());
  assert.ok(server.port > 0);
  const base = `http://127.0.0.1:${server.port}`;
  const ok = await fetch(`${base}/metrics`);
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get('content-type'), endpoint.contentType);
  assert.equal(await ok.text(), 'brine_up 1\n');
  assert.equal((await fetch(`${base}/metrics?x=1`)).status, 200);
  const head = await fetch(`${base}/metrics`, { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal((await fetch(`${base}/`)).status, 404);
  assert.equal((await fetch(`${base}/metricsx`)).status, 404);
  const post = await fetch(`${base}/metrics`, { method: 'POST', body: 'x' });
  assert.equal(post.status, 405);
  assert.equal(post.headers.get('allow'), 'GET, HEAD');
  assert.deepEqual(errors, []);
});

test('a failing collection answers 500 and is reported, the server keeps serving', async (t) => {
  const errors: unknown[] = [];
  let fail = true;
  const server = await startMetricsServer('127.0.0.1', 0, { render: async () => (fail ? Promise.reject(new Error('boom')) : 'ok 1\n'), contentType: 'text/plain' }, (err) => errors.push(err));
  t.after(() => server.close());
  assert.equal((await fetch(`http://127.0.0.1:${server.port}/metrics`)).status, 500);
  assert.equal(errors.length, 1);
  fail = false;
  assert.equal(await (await fetch(`http://127.0.0.1:${server.port}/metrics`)).text(), 'ok 1\n');
});

test('a port in use is refused with METRICS_LISTEN_FAILED naming host and port', async (t) => {
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => holder.close(() => resolve())));
  const port = (holder.address() as net.AddressInfo).port;
  await assert.rejects(
    startMetricsServer('127.0.0.1', port, endpoint, () => undefined),
    (err: unknown) => {
      assert.ok(err instanceof BrineError);
      assert.equal(err.code, 'METRICS_LISTEN_FAILED');
      assert.match(err.message, new RegExp(`127\\.0\\.0\\.1:${port} \\(metrics_host:metrics_port\\): the port is in use`));
      return true;
    },
  );
});

test('close() is idempotent and ends keep-alive connections', async () => {
  const server = await startMetricsServer('127.0.0.1', 0, endpoint, () => undefined);
  await fetch(`http://127.0.0.1:${server.port}/metrics`);
  await Promise.all([server.close(), server.close()]);
  await assert.rejects(fetch(`http://127.0.0.1:${server.port}/metrics`));
});
