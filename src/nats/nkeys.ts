// NATS nkeys from brine's own Ed25519 keys: an nkey is the raw Ed25519 public key (or 32-byte
// seed) behind a role prefix with a CRC16 trailer, in base32; @nats-io/nkeys encodes, decodes
// and checks them. A brine key therefore *is* a NATS identity; only its spelling changes per role
// (U... as a user, A... as an account signing key, O... as an operator signing key). Signing and
// verifying stay on node:crypto's Ed25519 (OpenSSL): the library's pure-JS tweetnacl costs
// milliseconds per signature, and the master signs every job for every minion.

import { createPrivateKey, createPublicKey, type KeyObject, sign as edSign, verify as edVerify } from 'node:crypto';
import { fromSeed, NKeysError, NKeysErrorCode, Prefix } from '@nats-io/nkeys';
// the codec, base32 and CRC16 behind the library's public API: the version is pinned in package.json
import { base32 } from '@nats-io/nkeys/lib/base32.js';
import { Codec } from '@nats-io/nkeys/lib/codec.js';
import { crc16 as libCrc16 } from '@nats-io/nkeys/lib/crc16.js';
import { BrineError } from '../util/errors.js';

/** The roles an nkey can spell (the prefix byte of the encoded form). */
export const NKEY_PREFIX = {
  operator: Prefix.Operator, // 'O'
  account: Prefix.Account, // 'A'
  user: Prefix.User, // 'U'
  server: Prefix.Server, // 'N'
  cluster: Prefix.Cluster, // 'C'
} as const;
export type NkeyRole = keyof typeof NKEY_PREFIX;

const ROLES = Object.keys(NKEY_PREFIX) as NkeyRole[];
const roleOf = (prefix: number | undefined): NkeyRole | undefined => ROLES.find((r) => NKEY_PREFIX[r] === prefix);
const ascii = (bytes: Uint8Array): string => Buffer.from(bytes).toString('latin1');

/** CRC-16/XMODEM, the checksum nkeys carry. */
export const crc16 = (data: Uint8Array): number => libCrc16.checksum(data);

/** Unpadded RFC 4648 base32, as nkeys and NATS JWT IDs spell bytes. */
export const base32Encode = (data: Uint8Array): string => ascii(base32.encode(data));

export function base32Decode(text: string): Buffer {
  try {
    return Buffer.from(base32.decode(Buffer.from(text, 'latin1')));
  } catch (err) {
    throw new BrineError('NATS_KEY_INVALID', `not base32: ${JSON.stringify(text.slice(0, 8))}...`, { cause: err });
  }
}

/** The library's typed failure as NATS_KEY_INVALID, saying what is wrong with `what`. */
function keyError(err: unknown, what: string): BrineError {
  if (!(err instanceof NKeysError)) return new BrineError('NATS_KEY_INVALID', `${what} is not an nkey`, { cause: err });
  const why: Partial<Record<string, string>> = {
    [NKeysErrorCode.InvalidChecksum]: 'fails its checksum (a typo or a truncated key)',
    [NKeysErrorCode.InvalidEncoding]: 'is not base32 or is too short',
  };
  return new BrineError('NATS_KEY_INVALID', `${what} ${why[err.code] ?? 'has a wrong prefix or length'}`, { cause: err });
}

function decodeWith<T>(what: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw keyError(err, what);
  }
}

/** The public nkey (U..., A..., O...) of a raw 32-byte Ed25519 public key. */
export function encodePublicNkey(role: NkeyRole, raw: Uint8Array): string {
  if (raw.length !== 32) throw new BrineError('NATS_KEY_INVALID', `an Ed25519 public key has 32 bytes, got ${raw.length}`);
  return ascii(Codec.encode(NKEY_PREFIX[role], raw));
}

/** Role and raw public key of a public nkey; a bad checksum, prefix or length is NATS_KEY_INVALID. */
export function decodePublicNkey(nkey: string): { role: NkeyRole; raw: Buffer } {
  const body = decodeWith(`the nkey ${JSON.stringify(nkey.slice(0, 8))}...`, () => Codec._decode(Buffer.from(nkey, 'latin1')));
  const role = roleOf(body[0]);
  if (role === undefined || body.length !== 33) throw new BrineError('NATS_KEY_INVALID', `${JSON.stringify(nkey.slice(0, 8))}... is not a public nkey`);
  return { role, raw: Buffer.from(body.subarray(1)) };
}

/** The seed form (SU..., SA..., SO...) of a raw 32-byte Ed25519 seed: a secret, never log it. */
export function encodeSeed(role: NkeyRole, seed: Uint8Array): string {
  if (seed.length !== 32) throw new BrineError('NATS_KEY_INVALID', `an Ed25519 seed has 32 bytes, got ${seed.length}`);
  return ascii(Codec.encodeSeed(NKEY_PREFIX[role], seed));
}

export function decodeSeed(text: string): { role: NkeyRole; seed: Buffer } {
  const { prefix, buf } = decodeWith('the seed', () => Codec.decodeSeed(Buffer.from(text, 'latin1')));
  const role = roleOf(prefix);
  if (role === undefined || buf.length !== 32) throw new BrineError('NATS_KEY_INVALID', 'not an nkey seed');
  return { role, seed: Buffer.from(buf) };
}

/** An Ed25519 public key object from a raw 32-byte public key. */
export function publicKeyFromRaw(raw: Uint8Array): KeyObject {
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw).toString('base64url') }, format: 'jwk' });
}

/** An Ed25519 private key object from a raw seed (the library derives its public half). */
export function privateKeyFromSeed(seed: Uint8Array): KeyObject {
  const pair = fromSeed(Codec.encodeSeed(Prefix.User, seed));
  const x = Buffer.from(Codec.decode(Prefix.User, Buffer.from(pair.getPublicKey(), 'latin1'))).toString('base64url');
  return createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', d: Buffer.from(seed).toString('base64url'), x }, format: 'jwk' });
}

/**
 * Something that signs as one nkey: a brine key (only Ed25519 can be an nkey; an EC P-256
 * brine key is refused with NATS_KEY_UNSUPPORTED). The private key never leaves the object.
 */
export class NkeySigner {
  readonly raw: Buffer;
  private constructor(private readonly key: KeyObject) {
    this.raw = Buffer.from(createPublicKey(key).export({ format: 'jwk' }).x ?? '', 'base64url');
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
    return Buffer.from(this.key.export({ format: 'jwk' }).d ?? '', 'base64url');
  }
}

/** Whether `sig` is nkey's Ed25519 signature over data. */
export function verifyNkeySignature(nkey: string, data: Uint8Array, sig: Uint8Array): boolean {
  return edVerify(null, data, publicKeyFromRaw(decodePublicNkey(nkey).raw), sig);
}
