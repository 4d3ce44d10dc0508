// Reads kernel TCP options back with getsockopt(2), to prove brine applied its configured
// tcp_keepalive_* and TCP_USER_TIMEOUT: off this process's own sockets (unit tests), or off a
// socket owned by a real brine daemon: `ss -p` names the owning pid and fd, pidfd_getfd(2)
// copies that fd into this process (needs root, i.e. ptrace access, and Linux >= 5.6).
// ffi-rs, the native binding used here, is also what src/transport/peer-credentials.ts uses for
// SO_PEERCRED; production code never reads TCP options back.

import { createRequire } from 'node:module';
import type { Socket } from 'node:net';

// the few ffi-rs calls used here, typed for the errno form of load()
interface Ffi {
  open(opts: { library: string; path: string }): void;
  load(opts: Record<string, unknown>): { value: number; errnoCode: number };
  createPointer(opts: { paramsType: unknown[]; paramsValue: unknown[] }): unknown[];
  restorePointer(opts: { retType: unknown[]; paramsValue: unknown[] }): unknown[];
  DataType: { I32: unknown; I64: unknown; External: unknown };
}

const require = createRequire(import.meta.url);
const LIB = 'faults_libc';
// unified syscall numbers (every architecture but alpha), so no libc wrapper is needed
const SYS_PIDFD_OPEN = 434;
const SYS_PIDFD_GETFD = 438;
const SOL_SOCKET = 1;
const SO_KEEPALIVE = 9;
const IPPROTO_TCP = 6;
const TCP_KEEPIDLE = 4;
const TCP_KEEPINTVL = 5;
const TCP_KEEPCNT = 6;
const TCP_USER_TIMEOUT = 18;

let ffi: Ffi | undefined;

function lib(): Ffi {
  if (!ffi) {
    ffi = require('ffi-rs') as Ffi;
    ffi.open({ library: LIB, path: '' });
  }
  return ffi;
}

/** syscall(2) takes and returns longs; close(2) ints. */
function call(funcName: 'syscall' | 'close', args: number[]): number {
  const f = lib();
  const type = funcName === 'syscall' ? f.DataType.I64 : f.DataType.I32;
  const { value, errnoCode } = f.load({
    library: LIB,
    funcName,
    retType: type,
    paramsType: args.map(() => type),
    paramsValue: args,
    errno: true,
  });
  if (value < 0) throw new Error(`${funcName}(${args.join(', ')}) failed with errno ${errnoCode}`);
  return value;
}

function getsockopt(fd: number, level: number, name: number): number {
  const f = lib();
  const { DataType } = f;
  const [valuePtr] = f.createPointer({ paramsType: [DataType.I32], paramsValue: [0] });
  const [lenPtr] = f.createPointer({ paramsType: [DataType.I32], paramsValue: [4] });
  const { value: rc, errnoCode } = f.load({
    library: LIB,
    funcName: 'getsockopt',
    retType: DataType.I32,
    paramsType: [DataType.I32, DataType.I32, DataType.I32, DataType.External, DataType.External],
    paramsValue: [fd, level, name, valuePtr, lenPtr],
    errno: true,
  });
  if (rc !== 0) throw new Error(`getsockopt(${level}, ${name}) failed with errno ${errnoCode}`);
  const [value] = f.restorePointer({ retType: [DataType.I32], paramsValue: [valuePtr] });
  return value as number;
}

export interface PeerSocketOptions {
  keepalive: boolean;
  idleSeconds: number;
  intervalSeconds: number;
  count: number;
  userTimeoutMs: number;
}

function readFd(fd: number): PeerSocketOptions {
  return {
    keepalive: getsockopt(fd, SOL_SOCKET, SO_KEEPALIVE) !== 0,
    idleSeconds: getsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE),
    intervalSeconds: getsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL),
    count: getsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT),
    userTimeoutMs: getsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT),
  };
}

/** The TCP options of one of this process's sockets (the raw one, not a TLS wrapper). */
export function readSocketOptions(socket: Socket): PeerSocketOptions {
  // node keeps the descriptor on its private libuv handle
  const fd = (socket as unknown as { _handle?: { fd?: number } })._handle?.fd;
  if (fd === undefined || fd < 0) throw new Error('socket has no file descriptor (not connected, or already closed)');
  return readFd(fd);
}

/** The TCP options of file descriptor `fd` in process `pid`, read from the kernel. */
export function readPeerSocketOptions(pid: number, fd: number): PeerSocketOptions {
  const pidfd = call('syscall', [SYS_PIDFD_OPEN, pid, 0]);
  try {
    const local = call('syscall', [SYS_PIDFD_GETFD, pidfd, fd, 0]);
    try {
      return readFd(local);
    } finally {
      call('close', [local]);
    }
  } finally {
    call('close', [pidfd]);
  }
}

export interface SsSocket {
  local: string;
  peer: string;
  /** Owners from `users:((...,pid=N,fd=M))`; empty without -p. */
  owners: { pid: number; fd: number }[];
  /** `timer:(keepalive,59sec,0)` -> { name: 'keepalive', left: '59sec' }; the time format varies by ss version. */
  timer: { name: string; left: string } | undefined;
}

/** Parses `ss -tnpo` (or -tino) output for established TCP sockets. */
export function parseSs(output: string): SsSocket[] {
  const out: SsSocket[] = [];
  // with -i the details continue on an indented line; join them to their socket line
  const lines = output.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('State') && !l.startsWith('Recv-Q'));
  const joined: string[] = [];
  for (const l of lines) {
    if (/^\s/.test(l) && joined.length > 0) joined[joined.length - 1] += ` ${l.trim()}`;
    else joined.push(l);
  }
  for (const l of joined) {
    const cols = l.trim().split(/\s+/);
    // ESTAB recv-q send-q local peer ... (the state column is absent with `state established`)
    const start = /^\d+$/.test(cols[0] ?? '') ? 0 : 1;
    const local = cols[start + 2];
    const peer = cols[start + 3];
    if (local === undefined || peer === undefined) continue;
    const owners = [...l.matchAll(/pid=(\d+),fd=(\d+)/g)].map((m) => ({ pid: Number(m[1]), fd: Number(m[2]) }));
    const t = /timer:\((\w+),([^,)]*)/.exec(l);
    const timer = t ? { name: t[1]!, left: t[2]! } : undefined;
    out.push({ local, peer, owners, timer });
  }
  return out;
}
