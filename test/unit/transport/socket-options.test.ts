// Salt's tcp_keepalive* options and TCP_USER_TIMEOUT, applied to real loopback sockets and read
// back from the kernel by test code (design.md: "a test reads them back from the socket").

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as net from 'node:net';
import { applyListenerSocketOptions, applySocketOptions, keepaliveFromConfig, type KeepaliveOptions } from '../../../src/transport/index.js';
import { readSocketOptions } from '../../faults/socket-inspect.js';
import { repoRoot } from '../../helpers/repo.js';
import { tcpPair } from './helpers.js';

const ON: KeepaliveOptions = { enabled: true, idleSeconds: 60, intervalSeconds: 10, count: 5, userTimeoutMs: 20_000 };

test('enabled options are in force in the kernel, each in its own slot', async (t) => {
  const { client, server } = await tcpPair(t);
  applySocketOptions(client, ON);
  assert.deepEqual(readSocketOptions(client), { keepalive: true, idleSeconds: 60, intervalSeconds: 10, count: 5, userTimeoutMs: 20_000 });
  // the accepted side too (the master applies them to every incoming socket)
  applySocketOptions(server, { enabled: true, idleSeconds: 120, intervalSeconds: 7, count: 3, userTimeoutMs: 9_000 });
  assert.deepEqual(readSocketOptions(server), { keepalive: true, idleSeconds: 120, intervalSeconds: 7, count: 3, userTimeoutMs: 9_000 });
});

test('tcp_keepalive false turns keepalive off, even on a socket that had it on', async (t) => {
  const { client } = await tcpPair(t);
  applySocketOptions(client, ON);
  assert.equal(readSocketOptions(client).keepalive, true);
  applySocketOptions(client, { ...ON, enabled: false, userTimeoutMs: 0 });
  assert.equal(readSocketOptions(client).keepalive, false);
});

test('-1 for cnt/intvl keeps the OS defaults (Salt semantics) while idle still applies', async (t) => {
  const { client, server } = await tcpPair(t);
  const defaults = readSocketOptions(server); // untouched socket: the kernel's defaults
  applySocketOptions(client, { enabled: true, idleSeconds: 45, intervalSeconds: -1, count: -1, userTimeoutMs: 0 });
  // (Node's setKeepAlive alone would leave 1 s and 10 probes here)
  assert.deepEqual(readSocketOptions(client), { keepalive: true, idleSeconds: 45, intervalSeconds: defaults.intervalSeconds, count: defaults.count, userTimeoutMs: defaults.userTimeoutMs });
  // one of the two set, the other left alone
  applySocketOptions(server, { enabled: true, idleSeconds: 30, intervalSeconds: 4, count: -1, userTimeoutMs: 0 });
  const got = readSocketOptions(server);
  assert.equal(got.intervalSeconds, 4);
  assert.equal(got.count, defaults.count);
});

/** A listener with the options set on it once, and the socket it accepts. */
async function acceptedFrom(t: import('node:test').TestContext, opts: KeepaliveOptions): Promise<{ accepted: net.Socket; onListener: boolean }> {
  const listener = net.createServer();
  const accepted = new Promise<net.Socket>((resolve) => listener.once('connection', resolve));
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const onListener = applyListenerSocketOptions(listener, opts);
  const client = net.connect({ host: '127.0.0.1', port: (listener.address() as net.AddressInfo).port });
  client.on('error', () => undefined);
  const socket = await accepted;
  t.after(() => {
    client.destroy();
    socket.destroy();
    listener.close();
  });
  return { accepted: socket, onListener };
}

test('options set once on a listening socket are in force on every socket it accepts (no per-connection calls)', async (t) => {
  const { accepted, onListener } = await acceptedFrom(t, ON);
  assert.equal(onListener, true);
  assert.deepEqual(readSocketOptions(accepted), { keepalive: true, idleSeconds: 60, intervalSeconds: 10, count: 5, userTimeoutMs: 20_000 });
  const second = await acceptedFrom(t, { enabled: true, idleSeconds: 120, intervalSeconds: 7, count: 3, userTimeoutMs: 9_000 });
  assert.deepEqual(readSocketOptions(second.accepted), { keepalive: true, idleSeconds: 120, intervalSeconds: 7, count: 3, userTimeoutMs: 9_000 });
});

test('on a listening socket, -1 keeps the OS defaults and tcp_keepalive false leaves keepalive off', async (t) => {
  const { client } = await tcpPair(t);
  const defaults = readSocketOptions(client);
  const osDefaults = await acceptedFrom(t, { enabled: true, idleSeconds: 45, intervalSeconds: -1, count: -1, userTimeoutMs: 0 });
  assert.deepEqual(readSocketOptions(osDefaults.accepted), {
    keepalive: true,
    idleSeconds: 45,
    intervalSeconds: defaults.intervalSeconds,
    count: defaults.count,
    userTimeoutMs: defaults.userTimeoutMs,
  });
  const off = await acceptedFrom(t, { ...ON, enabled: false, userTimeoutMs: 0 });
  assert.equal(readSocketOptions(off.accepted).keepalive, false);
});

test('keepaliveFromConfig maps Salt names and derives the user timeout from heartbeat_timeout', () => {
  const base = { tcp_keepalive: true, tcp_keepalive_idle: 200, tcp_keepalive_cnt: 4, tcp_keepalive_intvl: 15, tcp_user_timeout: 0, heartbeat_timeout: 30 };
  assert.deepEqual(keepaliveFromConfig(base), { enabled: true, idleSeconds: 200, count: 4, intervalSeconds: 15, userTimeoutMs: 30_000 });
  assert.equal(keepaliveFromConfig({ ...base, tcp_user_timeout: 12_345 }).userTimeoutMs, 12_345);
});

test("ffi-rs in src/ is loaded in one place (libc.ts: socket options and the SO_PEERCRED read), a production dependency pinned like net-keepalive's", () => {
  const root = repoRoot();
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
  const keepalivePkg = JSON.parse(fs.readFileSync(path.join(root, 'node_modules', 'net-keepalive', 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  assert.equal(pkg.dependencies['ffi-rs'], keepalivePkg.dependencies['ffi-rs'], 'one ffi-rs version for net-keepalive and brine');
  assert.equal(pkg.devDependencies['ffi-rs'], undefined, 'not listed twice');
  const users: string[] = [];
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && fs.readFileSync(p, 'utf8').includes("'ffi-rs'")) users.push(path.relative(root, p));
    }
  };
  walk(path.join(root, 'src'));
  assert.deepEqual(users, [path.join('src', 'transport', 'libc.ts')]);
});
