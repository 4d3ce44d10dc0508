// The master's TLS session-ticket keys, kept in pki_dir so that tickets survive a master restart:
// a minion coming back after one resumes its TLS session (no certificate signature or
// verification on either side; ~40% less master CPU per handshake, bench/README.md) instead of
// a full handshake. The file is as secret as master.pem (mode 0600): whoever holds it can resume
// a session as a minion whose ticket they also hold (tickets travel encrypted). Renewed at start
// when older than the tickets' lifetime, so no ticket outlives the key that sealed it by much.

import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BrineError } from '../util/errors.js';
import { writeFileAtomicSync } from '../util/atomic-write.js';

/** Node's ticket keys: 16 bytes of key name, 16 of HMAC secret, 16 of AES key. */
export const TICKET_KEYS_BYTES = 48;
/** How long a ticket stays usable, seconds (the TLS server's sessionTimeout). */
export const TICKET_LIFETIME_S = 24 * 3600;

export function ticketKeysPath(pkiDir: string): string {
  return join(pkiDir, 'master_tickets.key');
}

/** The keys from pki_dir, made (or renewed, when older than the ticket lifetime) if need be. */
export function loadOrCreateTicketKeys(pkiDir: string, now: number = Date.now()): Buffer {
  const file = ticketKeysPath(pkiDir);
  try {
    const st = statSync(file);
    const text = readFileSync(file, 'utf8').trim();
    const keys = Buffer.from(text, 'hex');
    if (/^[0-9a-f]+$/.test(text) && keys.length === TICKET_KEYS_BYTES && (st.mode & 0o077) === 0 && now - st.mtimeMs < TICKET_LIFETIME_S * 1000) return keys;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new BrineError('PKI_UNWRITABLE', `cannot read ${file}: ${(err as Error).message}`, { cause: err });
  }
  const keys = randomBytes(TICKET_KEYS_BYTES);
  try {
    writeFileAtomicSync(file, `${keys.toString('hex')}\n`, { mode: 0o600 });
  } catch (err) {
    throw new BrineError('PKI_UNWRITABLE', `cannot write the TLS ticket keys ${file}: ${(err as Error).message}. Make pki_dir writable by the user running the master`, { cause: err });
  }
  return keys;
}
