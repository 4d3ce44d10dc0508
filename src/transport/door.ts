// The door: one plaintext line each way on the master's port before TLS, so the master can pace
// handshakes and tell a minion when to come back without spending a handshake on it.
//
//   minion -> master   `BRINE/1 <patience-ms>\n`   (how long it will wait for an answer)
//   master -> minion   `OK\n`                       start TLS now
//                      `BUSY <retry-after-ms>\n`    come back then; the master closes
//
// A peer whose first byte is not `B` (a TLS ClientHello starts with 0x16: openssl s_client, an
// older brine) skips the door and waits for a handshake slot without being told anything.

import { BrineError } from '../util/errors.js';
import { foreignPeerError, recogniseForeignPeer } from '../protocol/index.js';

export const DOOR_REQUEST_PREFIX = 'BRINE/1 ';
/** Longest line either side reads before deciding the peer does not speak the door. */
export const DOOR_MAX_LINE = 64;

export function doorRequest(patienceMs: number): string {
  return `${DOOR_REQUEST_PREFIX}${Math.max(0, Math.round(patienceMs))}\n`;
}

export const DOOR_OK = 'OK\n';

export function doorBusy(retryAfterMs: number): string {
  return `BUSY ${Math.max(0, Math.round(retryAfterMs))}\n`;
}

/** What the master makes of the first bytes of a new connection. */
export type DoorSniff = { kind: 'door'; patienceMs: number; rest: Buffer } | { kind: 'tls' } | { kind: 'more' };

/**
 * Reads what a new connection sent so far: a complete door request, anything that is not one
 * (handed to TLS untouched, which fails it as it always did if it is not TLS either), or a prefix
 * of a request that needs more bytes.
 */
export function sniffDoor(buf: Buffer): DoorSniff {
  const prefix = DOOR_REQUEST_PREFIX;
  const n = Math.min(buf.length, prefix.length);
  if (buf.toString('latin1', 0, n) !== prefix.slice(0, n)) return { kind: 'tls' };
  const nl = buf.indexOf(10);
  if (nl < 0) return buf.length >= DOOR_MAX_LINE ? { kind: 'tls' } : { kind: 'more' };
  const digits = buf.toString('latin1', prefix.length, nl);
  if (!/^[0-9]{1,9}$/.test(digits)) return { kind: 'tls' };
  return { kind: 'door', patienceMs: Number(digits), rest: buf.subarray(nl + 1) };
}

/** The master's answer as the minion reads it; undefined while the line is incomplete. */
export function parseDoorAnswer(buf: Buffer, target: string): { ok: true; rest: Buffer } | { ok: false; retryAfterMs: number } | undefined {
  const nl = buf.indexOf(10);
  if (nl < 0) {
    if (buf.length >= DOOR_MAX_LINE) throw doorGarbage(buf, target);
    return undefined;
  }
  const line = buf.toString('latin1', 0, nl);
  if (line === 'OK') return { ok: true, rest: buf.subarray(nl + 1) };
  const busy = /^BUSY ([0-9]{1,9})$/.exec(line);
  if (busy) return { ok: false, retryAfterMs: Number(busy[1]) };
  throw doorGarbage(buf, target);
}

function doorGarbage(buf: Buffer, target: string): BrineError {
  const foreign = recogniseForeignPeer(buf);
  if (foreign !== undefined) return foreignPeerError(foreign, buf, target);
  const shown = JSON.stringify(buf.toString('latin1', 0, Math.min(buf.length, 32)));
  return new BrineError(
    'TLS_ERROR',
    `${target} answered the connection with ${shown}, not a brine master's OK or BUSY: is this an older brine master (it must be upgraded with its minions) or another service on the port?`,
  );
}
