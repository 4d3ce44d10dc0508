// The master's TLS session-ticket keys, derived from its private key so that they survive a
// master restart: a minion coming back after one resumes its TLS session (no certificate
// signature or verification on either side; ~40% less master CPU per handshake, bench/README.md)
// instead of a full handshake. Derived, not stored: a resumed session carries no certificate, so
// whoever could seal tickets could pass as the master to a minion holding one. Bound to the
// master's key, that takes the key itself, and a re-keyed master (or an impostor with another
// key) has other ticket keys: the minion's ticket fails, the handshake is a full one, and its pin
// sees the new key.

import { createPrivateKey, hkdfSync } from 'node:crypto';

/** Node's ticket keys: 16 bytes of key name, 16 of HMAC secret, 16 of AES key. */
export const TICKET_KEYS_BYTES = 48;
/** How long a ticket stays usable, seconds (the TLS server's sessionTimeout). */
export const TICKET_LIFETIME_S = 24 * 3600;

/** The ticket keys of the master whose private key this is (HKDF-SHA256 of its PKCS#8 DER). */
export function ticketKeysFor(privateKeyPem: string): Buffer {
  const ikm = createPrivateKey(privateKeyPem).export({ type: 'pkcs8', format: 'der' });
  return Buffer.from(hkdfSync('sha256', ikm, 'brine', 'tls-session-tickets-v1', TICKET_KEYS_BYTES));
}
