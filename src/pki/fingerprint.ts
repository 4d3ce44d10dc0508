// Key fingerprints: SHA-256 of the public key's SPKI DER as 32 colon-separated hex pairs. The same
// key gives the same fingerprint whether it arrives as a public key, a certificate or a private key.

import { createHash, createPublicKey, KeyObject, X509Certificate } from 'node:crypto';
import { BrineError, errorMessage } from '../util/errors.js';

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
    throw new BrineError('PKI_KEY_INVALID', `cannot read a public key from the PEM text given: ${errorMessage(err)}`, { cause: err });
  }
}

/**
 * The fingerprint of a plain `PUBLIC KEY` PEM (one block, SPKI DER inside) by hashing its DER
 * directly, without parsing the key: ~40x cheaper than fingerprint(). The DER is not checked, so
 * this is for comparing against a fingerprint known to be real (the sign-in fast path): a damaged
 * file gives a hash no real key has. Anything else (a certificate, a private key, several blocks)
 * is undefined; use fingerprint().
 */
export function spkiPemFingerprint(pem: string): string | undefined {
  const m = /^\s*-----BEGIN PUBLIC KEY-----\r?\n([A-Za-z0-9+/=\r\n]+)-----END PUBLIC KEY-----\s*$/.exec(pem);
  if (!m) return undefined;
  const der = Buffer.from(m[1]!.replace(/\s/g, ''), 'base64');
  if (der.length < 16 || der[0] !== 0x30) return undefined;
  return colonHex(createHash('sha256').update(der).digest('hex'));
}

/**
 * The subject public key of a DER certificate, as its fingerprint and SPKI PEM, read by walking
 * the DER instead of making KeyObjects (half the cost per TLS handshake on the master). Undefined
 * when the structure is not what X.509 v3 has; the caller then goes the long way.
 */
export function certificateKeyFromDer(der: Buffer): { fingerprint: string; pem: string } | undefined {
  try {
    const cert = derElement(der, 0);
    const tbs = derElement(der, cert.start);
    if (cert.tag !== 0x30 || tbs.tag !== 0x30) return undefined;
    let at = tbs.start;
    // [0] version (optional), serialNumber, signature, issuer, validity, subject
    if (derElement(der, at).tag === 0xa0) at = derElement(der, at).end;
    for (let i = 0; i < 5; i++) at = derElement(der, at).end;
    const spki = derElement(der, at);
    if (spki.tag !== 0x30 || spki.end > tbs.end) return undefined;
    const bytes = der.subarray(at, spki.end);
    const b64 = bytes.toString('base64').replace(/.{64}(?!$)/g, '$&\n');
    return { fingerprint: colonHex(createHash('sha256').update(bytes).digest('hex')), pem: `-----BEGIN PUBLIC KEY-----\n${b64}\n-----END PUBLIC KEY-----\n` };
  } catch {
    return undefined;
  }
}

/** One DER TLV at `at`: its tag, where its content starts and where it ends. */
function derElement(der: Buffer, at: number): { tag: number; start: number; end: number } {
  if (at + 2 > der.length) throw new RangeError('DER truncated');
  let len = der[at + 1]!;
  let header = 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || at + 2 + n > der.length) throw new RangeError('DER length');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + der[at + 2 + i]!;
    header = 2 + n;
  }
  const end = at + header + len;
  if (end > der.length) throw new RangeError('DER truncated');
  return { tag: der[at]!, start: at + header, end };
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
