// The minion side's way to a master: DNS and a mutual-TLS dial with the node's identity, as the
// `resolve`/`dial` pair a session `MasterConnection` takes. One wiring for the minion daemon and
// the emulator, so both exercise the same dial path.

import * as dns from 'node:dns';
import { BrineError, errnoCode } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { MASTER_MESSAGES, type Channel, type MasterMessage, type MinionMessage } from '../protocol/index.js';
import type { KeepaliveOptions } from './socket-options.js';
import { createIdentityContext, dialTls, type ResumableSession, type TlsIdentity } from './tls.js';

export interface MasterDialerOptions {
  identity: TlsIdentity;
  /** Deadline for the TCP connect plus TLS handshake, ms. */
  timeoutMs: number;
  socketOptions: KeepaliveOptions;
  /** Frame limit until authentication (the connection raises it afterwards). */
  maxFrame: number;
  logger: Logger;
  /**
   * Resolve each host once and reuse the answer (the emulator: thousands of sessions must not
   * each ask DNS). The daemon resolves on every attempt, so a moved master is followed.
   */
  cacheDns?: boolean;
  /** Ask at the master's door before TLS (door.ts); default true. */
  door?: boolean;
}

/** TLS sessions kept for resumption at most (one per minion and master; the emulator has many minions). */
const MAX_SESSIONS = 100_000;

/** Structurally the `resolve`/`dial` part of the session layer's ConnectionDeps. */
export interface MasterDialer {
  resolve(host: string): Promise<string>;
  /** `who` (the minion ID) keys the TLS session kept for resuming the next connection to that master. */
  dial(address: string, port: number, onTcpConnected: () => void, signal?: AbortSignal, who?: string): Promise<Channel<MasterMessage, MinionMessage>>;
}

export function createMasterDialer(opts: MasterDialerOptions): MasterDialer {
  // one secure context for every connection: cheap handshakes
  const secureContext = createIdentityContext(opts.identity);
  const lastAddress = new Map<string, string>();
  // the latest session ticket per minion and master: a reconnect (after a master restart too,
  // as the master keeps its ticket keys) resumes instead of a full handshake
  const sessions = new Map<string, ResumableSession>();
  return {
    async resolve(host) {
      const cached = opts.cacheDns ? lastAddress.get(host) : undefined;
      if (cached !== undefined) return cached;
      let address: string;
      try {
        address = (await dns.promises.lookup(host)).address;
      } catch (err) {
        throw new BrineError('CONNECT_FAILED', `Master hostname '${host}' not found: ${errnoCode(err) ?? String(err)}. Check 'master' in the minion config and DNS.`, {
          cause: err,
        });
      }
      const before = lastAddress.get(host);
      if (before !== undefined && before !== address) opts.logger.warn({ host, from: before, to: address }, `Master ip address changed from ${before} to ${address}`);
      lastAddress.set(host, address);
      return address;
    },
    async dial(address, port, onTcpConnected, signal, who) {
      const key = `${who ?? ''}@${address}:${port}`;
      const session = sessions.get(key);
      const dialed = await dialTls<MasterMessage, MinionMessage>({
        ...(session ? { session } : {}),
        onSession: (s) => {
          sessions.delete(key);
          if (sessions.size >= MAX_SESSIONS) sessions.delete(sessions.keys().next().value as string);
          sessions.set(key, s);
        },
        host: address,
        port,
        secureContext,
        timeoutMs: opts.timeoutMs,
        socketOptions: opts.socketOptions,
        maxFrame: opts.maxFrame,
        schemas: MASTER_MESSAGES,
        onTcpConnected,
        door: opts.door ?? true,
        ...(signal ? { signal } : {}),
      });
      return dialed.channel;
    },
  };
}
