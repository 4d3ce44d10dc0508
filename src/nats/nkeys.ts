// NATS nkeys from brine's own Ed25519 keys: an nkey is the raw Ed25519 public key (or 32-byte
// seed) behind a one-byte role prefix, with a CRC16 (XMODEM) trailer, in unpadded RFC 4648
// base32. A brine key therefore *is* a NATS identity; only its spelling changes per role
// (U... as a user, A... as an account signing key, O... as an operator signing key).

import { createPrivateKey, createPublicKey, type KeyObject, sign as edSign, verify as edVerify } from 'node:crypto';
import { BrineError } from '../util/errors.js';

/** The roles an nkey can spell (the prefix byte of the encoded form). */
export const NKEY_PREFIX = {
  operator: 14 << 3, // 'O'
  account: 0, // 'A'
  user: 20 << 3, // 'U'
  server: 13 << 3, // 'N'
  cluster: 2 << 3, // 'C'
} as const;
export type NkeyRole = keyof typeof NKEY_PREFIX;

const SEED_PREFIX = 18 << 3; // 'S'
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** CRC-16/XMODEM (poly 0x1021, init 0), the checksum nkeys carry. */
export function crc16(data: Uint8Array): number {
  let crc = 0;
  for (const byte of data) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

export function base32Encode(data: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of data) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += B32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += B32[(value << (5 - bits)) & 31];
  return out;
}

export function base32Decode(text: string): Buffer {
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of text) {
    const v = B32.indexOf(ch);
    if (v < 0) throw new BrineError('NATS_KEY_INVALID', `not base32: character ${JSON.stringify(ch)}`);
    value = ((value << 5) | v) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

function withCrc(body: Buffer): Buffer {
  const crc = crc16(body);
  return Buffer.concat([body, Buffer.from([crc & 0xff, crc >>> 8])]);
}

function checkCrc(raw: Buffer, what: string): Buffer {
  if (raw.length < 3) throw new BrineError('NATS_KEY_INVALID', `${what} is too short`);
  const body = raw.subarray(0, raw.length - 2);
  const crc = raw.readUInt16LE(raw.length - 2);
  if (crc16(body) !== crc) throw new BrineError('NATS_KEY_INVALID', `${what} fails its checksum (a typo or a truncated key)`);
  return body;
}

/** The public nkey (U..., A..., O...) of a raw 32-byte Ed25519 public key. */
export function encodePublicNkey(role: NkeyRole, raw: Uint8Array): string {
  if (raw.length !== 32) throw new BrineError('NATS_KEY_INVALID', `an Ed25519 public key has 32 bytes, got ${raw.length}`);
  return base32Encode(withCrc(Buffer.concat([Buffer.from([NKEY_PREFIX[role]]), raw])));
}

/** Role and raw public key of a public nkey; a bad checksum, prefix or length is NATS_KEY_INVALID. */
export function decodePublicNkey(nkey: string): { role: NkeyRole; raw: Buffer } {
  const body = checkCrc(base32Decode(nkey), `the nkey ${JSON.stringify(nkey.slice(0, 8))}...`);
  const role = (Object.keys(NKEY_PREFIX) as NkeyRole[]).find((r) => NKEY_PREFIX[r] === body[0]);
  if (role === undefined || body.length !== 33) throw new BrineError('NATS_KEY_INVALID', `${JSON.stringify(nkey.slice(0, 8))}... is not a public nkey`);
  return { role, raw: body.subarray(1) };
}

/** The seed form (SU..., SA..., SO...) of a raw 32-byte Ed25519 seed: a secret, never log it. */
export function encodeSeed(role: NkeyRole, seed: Uint8Array): string {
  if (seed.length !== 32) throw new BrineError('NATS_KEY_INVALID', `an Ed25519 seed has 32 bytes, got ${seed.length}`);
  const p = NKEY_PREFIX[role];
  return base32Encode(withCrc(Buffer.concat([Buffer.from([SEED_PREFIX | (p >> 5), (p & 31) << 3]), seed])));
}

export function decodeSeed(text: string): { role: NkeyRole; seed: Buffer } {
  const body = checkCrc(base32Decode(text), 'the seed');
  const prefix = (((body[0] ?? 0) & 7) << 5) | ((body[1] ?? 0) >> 3);
  const role = (Object.keys(NKEY_PREFIX) as NkeyRole[]).find((r) => NKEY_PREFIX[r] === prefix);
  if ((body[0] ?? 0) >> 3 !== SEED_PREFIX >> 3 || role === undefined || body.length !== 34) throw new BrineError('NATS_KEY_INVALID', 'not an nkey seed');
  return { role, seed: body.subarray(2) };
}

/** An Ed25519 private key object from a raw seed. */
export function privateKeyFromSeed(seed: Uint8Array): KeyObject {
  return createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

/** An Ed25519 public key object from a raw 32-byte public key. */
export function publicKeyFromRaw(raw: Uint8Array): KeyObject {
  return createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
}

/**
 * Something that signs as one nkey: a brine key (only Ed25519 can be an nkey; an EC P-256
 * brine key is refused with NATS_KEY_UNSUPPORTED). The private key never leaves the object.
 */
export class NkeySigner {
  readonly raw: Buffer;
  private constructor(private readonly key: KeyObject) {
    const spki = createPublicKey(key).export({ type: 'spki', format: 'der' });
    this.raw = spki.subarray(ED25519_SPKI_PREFIX.length);
  }

  static fromKey(key: KeyObject | string): NkeySigner {
    const k = typeof key === 'string' ? createPrivateKey(key) : key;
    if (k.type !== 'private') throw new BrineError('NATS_KEY_INVALID', 'a signer needs a private key');
    if (k.asymmetricKeyType !== 'ed25519') {
      throw new BrineError('NATS_KEY_UNSUPPORTED', `a brine key of type ${k.asymmetricKeyType ?? 'unknown'} cannot be a NATS identity: NATS nkeys are Ed25519`);
    }
    return new NkeySigner(k);
  }

  static fromSeed(seed: Uint8Array): NkeySigner {
    return new NkeySigner(privateKeyFromSeed(seed));
  }

  publicKey(role: NkeyRole): string {
    return encodePublicNkey(role, this.raw);
  }

  sign(data: Uint8Array): Buffer {
    return edSign(null, data, this.key);
  }

  publicKeyObject(): KeyObject {
    return createPublicKey(this.key);
  }

  /** The raw seed, for a credentials file; a secret. */
  seed(): Buffer {
    const der = this.key.export({ type: 'pkcs8', format: 'der' });
    return der.subarray(der.length - 32);
  }
}

/** Whether `sig` is nkey's Ed25519 signature over data. */
export function verifyNkeySignature(nkey: string, data: Uint8Array, sig: Uint8Array): boolean {
  return edVerify(null, data, publicKeyFromRaw(decodePublicNkey(nkey).raw), sig);
}
