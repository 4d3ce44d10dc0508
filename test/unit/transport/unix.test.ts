// The control socket: owner-only permissions, taking over a dead master's socket file, refusing
// to steal a live one (or to delete something that is not a socket), and clear dial errors.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONTROL_REPLIES, CONTROL_REQUESTS, type ControlReply, type ControlRequest } from '../../../src/protocol/index.js';
import { connectUnix, listenUnix, type FramedSocket } from '../../../src/transport/index.js';
import { isBrineError } from '../../../src/util/errors.js';
import { tempDir, within } from './helpers.js';

type ServerSide = FramedSocket<ControlRequest, ControlReply>;

/** Leaves a socket file nobody listens on: a process binds it and is killed before cleanup. */
function staleSocket(path: string): void {
  const child = spawnSync(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, 'SIGKILL'))`], { stdio: 'ignore', timeout: 5_000 });
  assert.equal(child.signal, 'SIGKILL');
  assert.ok(lstatSync(path).isSocket(), 'stale socket exists');
}

/** A control server that answers `sessions` with an empty list. */
async function serve(t: import('node:test').TestContext, path: string) {
  const listener = await listenUnix<ControlRequest, ControlReply>(path, CONTROL_REQUESTS, (ch: ServerSide) => {
    ch.onMessage((m) => {
      if (m.t === 'sessions') ch.send({ t: 'sessions', sessions: [] });
    });
  });
  t.after(() => listener.close());
  return listener;
}

async function ask(path: string): Promise<ControlReply> {
  const client = await connectUnix<ControlReply, ControlRequest>(path, CONTROL_REPLIES, 2_000);
  try {
    const reply = within<ControlReply>(2_000, 'reply', (done) => client.onMessage(done));
    client.send({ t: 'sessions' });
    return await reply;
  } finally {
    client.close('shutdown');
  }
}

test('the control socket is created mode 0600 and answers requests', async (t) => {
  const path = join(tempDir(t), 'run', 'master_control.sock');
  const listener = await serve(t, path);
  assert.equal(listener.path, path);
  const st = lstatSync(path);
  assert.ok(st.isSocket());
  assert.equal(st.mode & 0o777, 0o600);
  assert.equal(lstatSync(join(path, '..')).mode & 0o777, 0o700, 'a sock_dir it creates is 0700');
  assert.deepEqual(await ask(path), { t: 'sessions', sessions: [] });
});

test('a stale socket file left by a dead master is taken over', async (t) => {
  const path = join(tempDir(t), 'master_control.sock');
  staleSocket(path);
  await serve(t, path);
  assert.deepEqual(await ask(path), { t: 'sessions', sessions: [] });
});

test('a live socket is refused with LISTEN_FAILED and keeps working', async (t) => {
  const path = join(tempDir(t), 'master_control.sock');
  await serve(t, path);
  await assert.rejects(
    listenUnix(path, CONTROL_REQUESTS, () => undefined),
    (err: unknown) => isBrineError(err, 'LISTEN_FAILED') && /in use/.test(err.message),
  );
  assert.ok(existsSync(path), 'the live socket file was not removed');
  assert.deepEqual(await ask(path), { t: 'sessions', sessions: [] });
});

test('a regular file at the socket path is not deleted: LISTEN_FAILED', async (t) => {
  const path = join(tempDir(t), 'master_control.sock');
  writeFileSync(path, 'precious');
  await assert.rejects(
    listenUnix(path, CONTROL_REQUESTS, () => undefined),
    (err: unknown) => isBrineError(err, 'LISTEN_FAILED'),
  );
  assert.equal(readFileSync(path, 'utf8'), 'precious');
});

test('connectUnix to a missing path: MASTER_UNREACHABLE naming the path', async (t) => {
  const path = join(tempDir(t), 'nothing-here.sock');
  await assert.rejects(connectUnix(path, CONTROL_REPLIES, 1_000), (err: unknown) => isBrineError(err, 'MASTER_UNREACHABLE') && err.message.includes(path));
});

test('connectUnix to a dead socket file: MASTER_UNREACHABLE', async (t) => {
  const path = join(tempDir(t), 'dead.sock');
  staleSocket(path);
  await assert.rejects(connectUnix(path, CONTROL_REPLIES, 1_000), (err: unknown) => isBrineError(err, 'MASTER_UNREACHABLE'));
});

test('close() removes the socket file', async (t) => {
  const path = join(tempDir(t), 'master_control.sock');
  const listener = await serve(t, path);
  await listener.close();
  assert.equal(existsSync(path), false);
});
