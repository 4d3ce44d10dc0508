// The local control socket: a Unix domain socket in sock_dir, mode 0600 inside a 0700
// directory, so only the master's user can publish jobs. Same framing as the network.

import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { BrineError } from '../util/errors.js';
import type { Schema } from '../protocol/index.js';
import { FramedSocket } from './framed-socket.js';

export const CONTROL_MAX_FRAME = 64 * 1024 * 1024;

export interface UnixListener {
  readonly path: string;
  close(): Promise<void>;
}

export async function listenUnix<In, Out extends { t: string }>(
  socketPath: string,
  schemas: ReadonlyMap<string, Schema<unknown>>,
  onChannel: (channel: FramedSocket<In, Out>) => void,
): Promise<UnixListener> {
  const dir = path.dirname(socketPath);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new BrineError('LISTEN_FAILED', `cannot create sock_dir ${dir}: ${(err as Error).message}`, { cause: err });
  }
  const existing = fs.lstatSync(socketPath, { throwIfNoEntry: false });
  if (existing) {
    // only ever remove a socket: a regular file here means sock_dir points somewhere wrong
    if (!existing.isSocket()) {
      throw new BrineError('LISTEN_FAILED', `${socketPath} exists and is not a socket; refusing to replace it (check sock_dir)`);
    }
    if (await socketAnswers(socketPath)) {
      throw new BrineError('LISTEN_FAILED', `control socket ${socketPath} is in use: another master is running with this sock_dir`);
    }
    // a master that died left its socket behind; nobody answers on it, so take it over
    fs.rmSync(socketPath, { force: true });
  }
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    onChannel(new FramedSocket<In, Out>(socket, { remoteAddress: 'local', peerFingerprint: '', maxFrame: CONTROL_MAX_FRAME, schemas }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      reject(new BrineError('LISTEN_FAILED', `cannot listen on control socket ${socketPath}: ${err.code ?? err.message}`, { cause: err }));
    });
    server.listen(socketPath, () => resolve());
  });
  fs.chmodSync(socketPath, 0o600);
  return {
    path: socketPath,
    close: () =>
      new Promise<void>((res) => {
        server.close(() => res());
        for (const s of sockets) s.destroy();
      }),
  };
}

function socketAnswers(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.connect(socketPath);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}

export function connectUnix<In, Out extends { t: string }>(socketPath: string, schemas: ReadonlyMap<string, Schema<unknown>>, timeoutMs = 5000): Promise<FramedSocket<In, Out>> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new BrineError('MASTER_UNREACHABLE', `the master did not answer on ${socketPath} within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      const why =
        err.code === 'ENOENT'
          ? 'no control socket (is the master running?)'
          : err.code === 'ECONNREFUSED'
            ? 'nothing listens on it (is the master running?)'
            : err.code === 'EACCES'
              ? 'permission denied (run as the master user)'
              : (err.code ?? err.message);
      reject(new BrineError(err.code === 'EACCES' ? 'CONTROL_DENIED' : 'MASTER_UNREACHABLE', `cannot reach the master at ${socketPath}: ${why}`, { cause: err }));
    });
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(new FramedSocket<In, Out>(socket, { remoteAddress: 'local', peerFingerprint: '', maxFrame: CONTROL_MAX_FRAME, schemas }));
    });
  });
}
