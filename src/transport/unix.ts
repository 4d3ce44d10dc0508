// The local control socket: a Unix domain socket in sock_dir, mode 0600 inside a 0700
// directory, so only the master's user (and root) can connect; with an access group (the
// master's sock_group) 0660 inside 0750, both owned by that group, so its members can too.
// Every accepted connection carries its peer's kernel credentials (SO_PEERCRED). Same framing
// as the network.

import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { BrineError, errorMessage } from '../util/errors.js';
import type { Schema } from '../protocol/index.js';
import { FramedSocket } from './framed-socket.js';
import { peerCredentials, type PeerCredentials } from './peer-credentials.js';

export const CONTROL_MAX_FRAME = 64 * 1024 * 1024;

export interface UnixListener {
  readonly path: string;
  close(): Promise<void>;
}

export interface UnixListenOptions {
  /** A group whose members may connect too: socket 0660 and its directory 0750, both of that group. */
  group?: number;
}

/** The peer of one accepted connection: its kernel credentials, or why they could not be read. */
export type UnixPeer = PeerCredentials | { error: Error };

export async function listenUnix<In, Out extends { t: string }>(
  socketPath: string,
  schemas: ReadonlyMap<string, Schema<unknown>>,
  onChannel: (channel: FramedSocket<In, Out>, peer: UnixPeer) => void,
  opts: UnixListenOptions = {},
): Promise<UnixListener> {
  const dir = path.dirname(socketPath);
  try {
    const firstCreated = fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (opts.group !== undefined) shareWithGroup(dir, firstCreated, opts.group);
  } catch (err) {
    throw new BrineError('LISTEN_FAILED', `cannot create sock_dir ${dir}: ${errorMessage(err)}`, { cause: err });
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
    let peer: UnixPeer;
    try {
      peer = peerCredentials(socket);
    } catch (err) {
      peer = { error: err as Error };
    }
    const remoteAddress = 'error' in peer ? 'local' : `local pid ${peer.pid} uid ${peer.uid}`;
    // a job's returns are streamed in bursts (one per event-loop turn): one write per burst
    onChannel(new FramedSocket<In, Out>(socket, { remoteAddress, peerFingerprint: '', maxFrame: CONTROL_MAX_FRAME, schemas, coalesceWrites: true }), peer);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      reject(new BrineError('LISTEN_FAILED', `cannot listen on control socket ${socketPath}: ${err.code ?? err.message}`, { cause: err }));
    });
    server.listen(socketPath, () => resolve());
  });
  if (opts.group === undefined) {
    fs.chmodSync(socketPath, 0o600);
  } else {
    // group first: until the mode allows it, members cannot connect to a half-set-up socket
    fs.chownSync(socketPath, -1, opts.group);
    fs.chmodSync(socketPath, 0o660);
  }
  return {
    path: socketPath,
    close: () =>
      new Promise<void>((res) => {
        server.close(() => res());
        for (const s of sockets) s.destroy();
      }),
  };
}

/**
 * sock_dir, and the directories this start created above it, become 0750 of `gid`, so members
 * can reach the socket and still not rename anything in them (threats.md #34: no group write).
 */
function shareWithGroup(dir: string, firstCreated: string | undefined, gid: number): void {
  const dirs = [dir];
  if (firstCreated !== undefined) for (let d = path.dirname(dir); d.length >= firstCreated.length && d !== path.dirname(d); d = path.dirname(d)) dirs.push(d);
  for (const d of dirs) {
    fs.chownSync(d, -1, gid);
    fs.chmodSync(d, 0o750);
  }
}

/**
 * The directories above `dir` that members of `gid` (not owning them) cannot search, nearest
 * first: with any, sock_group is set but its members still cannot reach the socket.
 */
export function unsearchableByGroup(dir: string, gid: number): string[] {
  const out: string[] = [];
  for (let d = path.dirname(path.resolve(dir)); ; d = path.dirname(d)) {
    const st = fs.statSync(d, { throwIfNoEntry: false });
    if (st !== undefined && (st.mode & (st.gid === gid ? 0o010 : 0o001)) === 0) out.push(d);
    if (d === path.dirname(d)) return out;
  }
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

/** `accessGroup` names the master's sock_group in the permission-denied message, when it has one. */
export function connectUnix<In, Out extends { t: string }>(socketPath: string, schemas: ReadonlyMap<string, Schema<unknown>>, timeoutMs = 5000, accessGroup?: string): Promise<FramedSocket<In, Out>> {
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
              ? `permission denied: only root, the master's user${accessGroup === undefined ? '' : ` and members of group '${accessGroup}' (sock_group)`} may connect`
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
