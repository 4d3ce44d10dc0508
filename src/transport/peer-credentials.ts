// Who is on the other end of a local Unix socket, as the kernel recorded it at connect(2):
// getsockopt(SO_PEERCRED) gives the peer's pid, uid and gid. The master authorises control
// requests by these numbers, never by a user name the client claims (issue 11). Node has no API
// for it, so the libc call goes through ffi-rs (libc.ts).

import type { Socket } from 'node:net';
import { BrineError } from '../util/errors.js';
import { LIBC, libc } from './libc.js';

export interface PeerCredentials {
  pid: number;
  uid: number;
  gid: number;
}

// Linux <sys/socket.h>: SOL_SOCKET and SO_PEERCRED (the same on x86, arm and arm64)
const SOL_SOCKET = 1;
const SO_PEERCRED = 17;
/** struct ucred { pid_t pid; uid_t uid; gid_t gid; }: three 32-bit fields. */
const UCRED_SIZE = 12;

/** The credentials of the process that connected to a Unix socket, from the raw descriptor. */
export function peerCredentialsOfFd(fd: number): PeerCredentials {
  if (process.platform !== 'linux') {
    throw new BrineError('INTERNAL', `reading a control socket peer's uid (SO_PEERCRED) is implemented for Linux only, not ${process.platform}`);
  }
  const f = libc();
  const cred = Buffer.alloc(UCRED_SIZE);
  const [lenPtr] = f.createPointer({ paramsType: [f.DataType.I32], paramsValue: [UCRED_SIZE] });
  const { value: rc, errnoCode } = f.load({
    library: LIBC,
    funcName: 'getsockopt',
    retType: f.DataType.I32,
    paramsType: [f.DataType.I32, f.DataType.I32, f.DataType.I32, f.DataType.U8Array, f.DataType.External],
    paramsValue: [fd, SOL_SOCKET, SO_PEERCRED, cred, lenPtr],
    errno: true,
  });
  if (rc !== 0) throw new BrineError('INTERNAL', `getsockopt(SO_PEERCRED) on fd ${fd} failed with errno ${errnoCode}`);
  const [len] = f.restorePointer({ retType: [f.DataType.I32], paramsValue: [lenPtr] });
  if (len !== UCRED_SIZE) throw new BrineError('INTERNAL', `getsockopt(SO_PEERCRED) returned ${String(len)} bytes, expected ${UCRED_SIZE}`);
  return { pid: cred.readInt32LE(0), uid: cred.readUInt32LE(4), gid: cred.readUInt32LE(8) };
}

/** The credentials of a connected Unix socket's peer (an accepted connection of a listener). */
export function peerCredentials(socket: Socket): PeerCredentials {
  // node keeps the descriptor on its private libuv handle
  const fd = (socket as unknown as { _handle?: { fd?: number } })._handle?.fd;
  if (fd === undefined || fd < 0) throw new BrineError('INTERNAL', 'the control connection has no file descriptor (closed before it could be checked)');
  return peerCredentialsOfFd(fd);
}
