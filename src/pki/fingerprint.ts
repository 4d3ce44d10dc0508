// Key fingerprints: SHA-256 of the public key's SPKI DER as 32 colon-separated hex pairs. The same
// key gives the same fingerprint whether it arrives as a public key, a certificate or a private key.

import { createHash, createPublicKey, KeyObject, X509Certificate } from 'node:crypto';
import { BrineError } from '../util/errors.js';

const FINGERPRINT_PATTERN = /^[0-9a-f]{2}(?::[0-9a-f]{2}){31}$/;

/**
 * The fingerprint of a key. Accepts a PEM public key, a PEM certificate, a PEM private key or a
 * KeyObject (private keys are reduced to their public half). Unparsable input → PKI_KEY_INVALID.
 */
export function fingerprint(key: string | KeyObject): string {
  const der = toPublicKey(key).export({ type: 'spki', format: 'der' });
  return colonHex(createHash('sha256').update(der).digest('hex'));
}

/** The public KeyObject behind a PEM public key, certificate, private key or KeyObject. */
export function toPublicKey(key: string | KeyObject): KeyObject {
  if (key instanceof KeyObject) {
    if (key.type === 'public') return key;
    if (key.type === 'private') return createPublicKey(key);
    throw new BrineError('PKI_KEY_INVALID', 'a secret (symmetric) key has no fingerprint; pass a public key, private key or certificate');
  }
  try {
    if (key.includes('-----BEGIN CERTIFICATE-----')) return new X509Certificate(key).publicKey;
    return createPublicKey(key); // also derives the public half from a private key PEM
  } catch (err) {
    throw new BrineError('PKI_KEY_INVALID', `cannot read a public key from the PEM text given: ${(err as Error).message}`, { cause: err });
  }
}

/** True when `s` is a fingerprint in canonical form (32 lowercase hex pairs joined by ':'). */
export function isFingerprint(s: unknown): s is string {
  return typeof s === 'string' && FINGERPRINT_PATTERN.test(s);
}

/**
 * Canonical form of a fingerprint typed by an operator: colons optional, any case, surrounding
 * whitespace ignored. Returns undefined when it is not 64 hex digits (with or without colons).
 */
export function normalizeFingerprint(s: string): string | undefined {
  const trimmed = s.trim().toLowerCase();
  const hex = trimmed.includes(':') ? colonsRemoved(trimmed) : trimmed;
  if (hex === undefined || !/^[0-9a-f]{64}$/.test(hex)) return undefined;
  return colonHex(hex);
}

// With colons, every group must be exactly one pair: "a:bc..." is a typo, not a fingerprint.
function colonsRemoved(s: string): string | undefined {
  const parts = s.split(':');
  return parts.every((p) => p.length === 2) ? parts.join('') : undefined;
}

function colonHex(hex: string): string {
  return hex.match(/../g)!.join(':');
}
