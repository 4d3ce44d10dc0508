// Kernel-level TCP options (Salt's tcp_keepalive* plus TCP_USER_TIMEOUT), applied to every
// brine socket. Tests read them back from the kernel with test/faults/socket-inspect.ts (through
// ffi-rs, which production code uses only for the control socket's SO_PEERCRED).

import { createRequire } from 'node:module';
import type { Socket } from 'node:net';

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
