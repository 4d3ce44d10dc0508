// SO_PEERCRED through ffi-rs: the control socket learns the connecting process's pid, uid and gid
// from the kernel. Proven with this process and, as root, with a child running as nobody; and
// the access group's modes (0660 socket, 0750 directory of that group).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { CONTROL_REQUESTS, type ControlReply, type ControlRequest } from '../../../src/protocol/index.js';
import { listenUnix, unsearchableByGroup, type FramedSocket, type UnixPeer } from '../../../src/transport/index.js';
import { privilegedSkip } from '../../helpers/privileged.js';
import { tempDir, within } from './helpers.js';

type ServerSide = FramedSocket<ControlRequest, ControlReply>;
const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;

async function firstPeer(t: import('node:test').TestContext, socketPath: string, group?: number): Promise<{ peer: Promise<{ channel: ServerSide; peer: UnixPeer }> }> {
  let resolvePeer!: (v: { channel: ServerSide; peer: UnixPeer }) => void;
  const peer = new Promise<{ channel: ServerSide; peer: UnixPeer }>((r) => (resolvePeer = r));
  const listener = await listenUnix<ControlRequest, ControlReply>(socketPath, CONTROL_REQUESTS, (channel, p) => resolvePeer({ channel, peer: p }), group === undefined ? {} : { group });
  t.after(() => listener.close());
  return { peer };
}

test('a connection from this process: the peer is this pid, uid and gid', async (t) => {
  const socketPath = join(tempDir(t), 'sock', 'master.sock');
  const { peer } = await firstPeer(t, socketPath);
  const { createConnection } = await import('node:net');
  const client = createConnection(socketPath);
  t.after(() => client.destroy());
  const got = await within<{ channel: ServerSide; peer: UnixPeer }>(2_000, 'the accepted connection', (done) => void peer.then(done));
  assert.deepEqual(got.peer, { pid: process.pid, uid: process.getuid!(), gid: process.getgid!() });
  assert.equal(got.channel.remoteAddress, `local pid ${process.pid} uid ${process.getuid!()}`);
  assert.equal(statSync(socketPath).mode & 0o777, 0o600, 'no group: owner only');
});

test('a connection from a child running as nobody: its pid, uid 65534 and gid 65534', {
  skip: privilegedSkip('SO_PEERCRED of another user', isRoot ? false : 'needs root to run a child as nobody'),
}, async (t) => {
  const dir = tempDir(t);
  const { chmodSync } = await import('node:fs');
  chmodSync(dir, 0o755);
  const socketPath = join(dir, 'sock', 'master.sock');
  const { peer } = await firstPeer(t, socketPath, NOBODY);
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const s = require('net').connect(${JSON.stringify(socketPath)}); s.on('connect', () => setTimeout(() => s.end(), 2000)); s.on('error', (e) => { console.error(e.code); process.exit(3); });`,
    ],
    {
      uid: NOBODY,
      gid: NOBODY,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  t.after(() => child.kill('SIGKILL'));
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const got = await within<{ channel: ServerSide; peer: UnixPeer }>(5_000, `the child's connection (${stderr})`, (done) => void peer.then(done));
  assert.deepEqual(got.peer, { pid: child.pid, uid: NOBODY, gid: NOBODY });
  // the group's access: the socket 0660 and its directory 0750, both of that group
  const sock = statSync(socketPath);
  const sockDir = statSync(join(dir, 'sock'));
  assert.deepEqual([sock.mode & 0o777, sock.gid], [0o660, NOBODY]);
  assert.deepEqual([sockDir.mode & 0o777, sockDir.gid], [0o750, NOBODY]);
});

test('unsearchableByGroup lists every directory above that the group cannot search', async (t) => {
  const dir = tempDir(t);
  const { chmodSync, chownSync, mkdirSync } = await import('node:fs');
  const a = join(dir, 'a');
  const b = join(a, 'b');
  mkdirSync(join(b, 'sock'), { recursive: true });
  chmodSync(dir, 0o700);
  chmodSync(a, 0o711);
  chmodSync(b, 0o750);
  // root may give b any group; anyone else, their own
  const gid = isRoot ? 12345 : process.getgid!();
  chownSync(b, -1, gid);
  const blocked = unsearchableByGroup(join(b, 'sock'), gid);
  assert.ok(blocked.includes(dir), `${dir} is 0700: ${blocked.join(', ')}`);
  assert.ok(!blocked.includes(a), 'a is o+x');
  assert.ok(!blocked.includes(b), 'b is g+x for its group');
});
