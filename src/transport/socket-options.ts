// Kernel-level TCP options (Salt's tcp_keepalive* plus TCP_USER_TIMEOUT), applied to every
// brine socket. Tests read them back from the kernel with test/faults/socket-inspect.ts.
//
// Node sets only SO_KEEPALIVE, TCP_KEEPIDLE and TCP_NODELAY; the rest is a setsockopt through
// ffi-rs (tens of microseconds a call). On Linux the master sets them once on its listening
// socket, and every accepted socket inherits them from it: no per-connection calls during a
// reconnect storm (issue 12). A dialer sets them on its one socket with plain setsockopt calls.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Server, Socket } from 'node:net';
import { LIBC, libc } from './libc.js';

const require = createRequire(import.meta.url);

interface NetKeepalive {
  setKeepAliveInterval(socket: Socket, ms: number): boolean;
  getKeepAliveInterval(socket: Socket): number;
  setKeepAliveProbes(socket: Socket, count: number): boolean;
  getKeepAliveProbes(socket: Socket): number;
  setUserTimeout(socket: Socket, ms: number): boolean;
}

let keepalive: NetKeepalive | undefined;

function nk(): NetKeepalive {
  keepalive ??= require('net-keepalive') as NetKeepalive;
  return keepalive;
}

// ---- setsockopt(2) on Linux ------------------------------------------------------------------

// Linux <sys/socket.h>, <netinet/tcp.h> (the same on x86, arm and arm64)
const SOL_SOCKET = 1;
const SO_KEEPALIVE = 9;
const IPPROTO_TCP = 6;
const TCP_NODELAY = 1;
const TCP_KEEPIDLE = 4;
const TCP_KEEPINTVL = 5;
const TCP_KEEPCNT = 6;
const TCP_USER_TIMEOUT = 18;

function setIntOption(fd: number, level: number, name: number, value: number): void {
  const f = libc();
  const v = Buffer.alloc(4);
  v.writeInt32LE(value);
  const { value: rc, errnoCode } = f.load({
    library: LIBC,
    funcName: 'setsockopt',
    retType: f.DataType.I32,
    paramsType: [f.DataType.I32, f.DataType.I32, f.DataType.I32, f.DataType.U8Array, f.DataType.I32],
    paramsValue: [fd, level, name, v, 4],
    errno: true,
  });
  if (rc !== 0) throw new Error(`setsockopt(${level}, ${name}) on fd ${fd} failed with errno ${errnoCode}`);
}

function fdOf(handleOwner: Socket | Server): number | undefined {
  const fd = (handleOwner as unknown as { _handle?: { fd?: number } })._handle?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : undefined;
}

/** The kernel's keepalive defaults (what a fresh socket has), read once. */
let osDefaults: { intervalSeconds: number; count: number } | undefined;

function kernelDefaults(): { intervalSeconds: number; count: number } {
  if (osDefaults === undefined) {
    const read = (name: string, fallback: number): number => {
      try {
        const n = Number(readFileSync(`/proc/sys/net/ipv4/${name}`, 'utf8').trim());
        return Number.isInteger(n) && n > 0 ? n : fallback;
      } catch {
        return fallback;
      }
    };
    osDefaults = { intervalSeconds: read('tcp_keepalive_intvl', 75), count: read('tcp_keepalive_probes', 9) };
  }
  return osDefaults;
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

/** Applies the options to a connected TCP socket (the raw one, not the TLS wrapper). */
export function applySocketOptions(socket: Socket, opts: KeepaliveOptions): void {
  socket.setNoDelay(true);
  const fd = process.platform === 'linux' ? fdOf(socket) : undefined;
  if (fd === undefined) {
    applyThroughNetKeepalive(socket, opts);
    return;
  }
  if (!opts.enabled) {
    socket.setKeepAlive(false);
  } else {
    // Node's setKeepAlive with a delay also forces TCP_KEEPINTVL=1 s and TCP_KEEPCNT=10 (libuv);
    // Salt's -1 means "the OS default", so those are put back to what the kernel gives
    socket.setKeepAlive(true, opts.idleSeconds > 0 ? opts.idleSeconds * 1000 : 0);
    setIntOption(fd, IPPROTO_TCP, TCP_KEEPINTVL, opts.intervalSeconds > 0 ? opts.intervalSeconds : kernelDefaults().intervalSeconds);
    setIntOption(fd, IPPROTO_TCP, TCP_KEEPCNT, opts.count > 0 ? opts.count : kernelDefaults().count);
  }
  if (opts.userTimeoutMs > 0) setIntOption(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, opts.userTimeoutMs);
}

/**
 * Sets the options on a listening socket, so that every socket it accepts inherits them (Linux
 * copies them into each accepted socket). True when done: the listener then applies nothing per
 * connection. False elsewhere (or if the kernel refused one): apply them per socket.
 */
export function applyListenerSocketOptions(server: Server, opts: KeepaliveOptions): boolean {
  const fd = process.platform === 'linux' ? fdOf(server) : undefined;
  if (fd === undefined) return false;
  try {
    setIntOption(fd, IPPROTO_TCP, TCP_NODELAY, 1);
    setIntOption(fd, SOL_SOCKET, SO_KEEPALIVE, opts.enabled ? 1 : 0);
    if (opts.enabled) {
      // -1 (the OS default) is what the listener has unless set: nothing to do for those
      if (opts.idleSeconds > 0) setIntOption(fd, IPPROTO_TCP, TCP_KEEPIDLE, opts.idleSeconds);
      if (opts.intervalSeconds > 0) setIntOption(fd, IPPROTO_TCP, TCP_KEEPINTVL, opts.intervalSeconds);
      if (opts.count > 0) setIntOption(fd, IPPROTO_TCP, TCP_KEEPCNT, opts.count);
    }
    if (opts.userTimeoutMs > 0) setIntOption(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, opts.userTimeoutMs);
    return true;
  } catch {
    return false;
  }
}

function applyThroughNetKeepalive(socket: Socket, opts: KeepaliveOptions): void {
  if (!opts.enabled) {
    socket.setKeepAlive(false);
  } else {
    const before = opts.intervalSeconds > 0 && opts.count > 0 ? undefined : { intervalMs: nk().getKeepAliveInterval(socket), count: nk().getKeepAliveProbes(socket) };
    socket.setKeepAlive(true, opts.idleSeconds > 0 ? opts.idleSeconds * 1000 : 0);
    nk().setKeepAliveInterval(socket, opts.intervalSeconds > 0 ? opts.intervalSeconds * 1000 : before!.intervalMs);
    nk().setKeepAliveProbes(socket, opts.count > 0 ? opts.count : before!.count);
  }
  if (opts.userTimeoutMs > 0) nk().setUserTimeout(socket, opts.userTimeoutMs);
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
