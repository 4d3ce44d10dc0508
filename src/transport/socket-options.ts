// Kernel-level TCP options (Salt's tcp_keepalive* plus TCP_USER_TIMEOUT), applied to every
// brine socket and readable back from the kernel so tests can prove they are in force.

import { createRequire } from 'node:module';
import type { Socket } from 'node:net';

const require = createRequire(import.meta.url);

interface NetKeepalive {
  setKeepAliveInterval(socket: Socket, ms: number): boolean;
  getKeepAliveInterval(socket: Socket): number;
  setKeepAliveProbes(socket: Socket, count: number): boolean;
  getKeepAliveProbes(socket: Socket): number;
  setUserTimeout(socket: Socket, ms: number): boolean;
  getUserTimeout(socket: Socket): number;
}

interface FfiRs {
  open(opts: { library: string; path: string }): void;
  load(opts: Record<string, unknown>): { value: number; errnoCode: number };
  createPointer(opts: { paramsType: unknown[]; paramsValue: unknown[] }): unknown[];
  restorePointer(opts: { retType: unknown[]; paramsValue: unknown[] }): unknown[];
  DataType: { I32: unknown; External: unknown };
}

let keepalive: NetKeepalive | undefined;
let ffi: FfiRs | undefined;

function nk(): NetKeepalive {
  keepalive ??= require('net-keepalive') as NetKeepalive;
  return keepalive;
}

const SOL_SOCKET = 1;
const SO_KEEPALIVE = 9;
const IPPROTO_TCP = 6;
const TCP_KEEPIDLE = 4;
const LIBC = 'brine_libc';

function getIntOption(socket: Socket, level: number, name: number): number {
  if (!ffi) {
    ffi = require('ffi-rs') as FfiRs;
    ffi.open({ library: LIBC, path: '' });
  }
  const fd = (socket as unknown as { _handle?: { fd?: number } })._handle?.fd;
  if (fd === undefined || fd < 0) throw new Error('socket has no file descriptor');
  const { DataType } = ffi;
  const [valuePtr] = ffi.createPointer({ paramsType: [DataType.I32], paramsValue: [0] });
  const [lenPtr] = ffi.createPointer({ paramsType: [DataType.I32], paramsValue: [4] });
  const { value: rc, errnoCode } = ffi.load({
    library: LIBC,
    funcName: 'getsockopt',
    retType: DataType.I32,
    paramsType: [DataType.I32, DataType.I32, DataType.I32, DataType.External, DataType.External],
    paramsValue: [fd, level, name, valuePtr, lenPtr],
    errno: true,
  });
  if (rc !== 0) throw new Error(`getsockopt failed with errno ${errnoCode}`);
  const [value] = ffi.restorePointer({ retType: [DataType.I32], paramsValue: [valuePtr] });
  return value as number;
}

export interface KeepaliveOptions {
  /** Salt's tcp_keepalive. */
  enabled: boolean;
  /** Salt's tcp_keepalive_idle, seconds; applied when > 0. */
  idleSeconds: number;
  /** Salt's tcp_keepalive_cnt; -1 = OS default. */
  count: number;
  /** Salt's tcp_keepalive_intvl, seconds; -1 = OS default. */
  intervalSeconds: number;
  /** TCP_USER_TIMEOUT in ms: how long written data may stay unacknowledged; 0 = OS default. */
  userTimeoutMs: number;
}

export interface AppliedSocketOptions {
  keepalive: boolean;
  idleSeconds: number;
  intervalSeconds: number;
  count: number;
  userTimeoutMs: number;
}

/** Applies the options to a connected TCP socket (the raw one, not the TLS wrapper). */
export function applySocketOptions(socket: Socket, opts: KeepaliveOptions): void {
  socket.setNoDelay(true);
  if (!opts.enabled) {
    socket.setKeepAlive(false);
  } else {
    // Node's setKeepAlive with a delay also forces TCP_KEEPINTVL=1 s and TCP_KEEPCNT=10 (libuv);
    // Salt's -1 means "the OS default", so remember what the socket had and put it back.
    const before = opts.intervalSeconds > 0 && opts.count > 0 ? undefined : { intervalMs: nk().getKeepAliveInterval(socket), count: nk().getKeepAliveProbes(socket) };
    socket.setKeepAlive(true, opts.idleSeconds > 0 ? opts.idleSeconds * 1000 : 0);
    const intervalMs = opts.intervalSeconds > 0 ? opts.intervalSeconds * 1000 : before!.intervalMs;
    const count = opts.count > 0 ? opts.count : before!.count;
    nk().setKeepAliveInterval(socket, intervalMs);
    nk().setKeepAliveProbes(socket, count);
  }
  if (opts.userTimeoutMs > 0) nk().setUserTimeout(socket, opts.userTimeoutMs);
}

/** Reads the options back from the kernel. */
export function readSocketOptions(socket: Socket): AppliedSocketOptions {
  return {
    keepalive: getIntOption(socket, SOL_SOCKET, SO_KEEPALIVE) !== 0,
    idleSeconds: getIntOption(socket, IPPROTO_TCP, TCP_KEEPIDLE),
    intervalSeconds: nk().getKeepAliveInterval(socket) / 1000,
    count: nk().getKeepAliveProbes(socket),
    userTimeoutMs: nk().getUserTimeout(socket),
  };
}

/** The config options (both roles, Salt's names) that decide the socket options. */
export interface KeepaliveConfig {
  tcp_keepalive: boolean;
  tcp_keepalive_idle: number;
  tcp_keepalive_cnt: number;
  tcp_keepalive_intvl: number;
  /** ms; 0 = derived from heartbeat_timeout. */
  tcp_user_timeout: number;
  /** seconds */
  heartbeat_timeout: number;
}

export function keepaliveFromConfig(opts: KeepaliveConfig): KeepaliveOptions {
  return {
    enabled: opts.tcp_keepalive,
    idleSeconds: opts.tcp_keepalive_idle,
    count: opts.tcp_keepalive_cnt,
    intervalSeconds: opts.tcp_keepalive_intvl,
    // unacknowledged writes to a dead peer fail within the heartbeat timeout unless configured
    userTimeoutMs: opts.tcp_user_timeout > 0 ? opts.tcp_user_timeout : opts.heartbeat_timeout * 1000,
  };
}
