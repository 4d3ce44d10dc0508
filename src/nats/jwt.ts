// NATS JWTs (the v2 claims that nats-server 2.9 reads): a JSON header
// {"typ":"JWT","alg":"ed25519-nkey"}, the claims, and an Ed25519 signature by the issuer's nkey
// over "header.claims", each part unpadded base64url. The jti is the base32 SHA-512/256 of the
// claims without it, as the reference encoder makes it.

import { createHash } from 'node:crypto';
import { BrineError } from '../util/errors.js';
import { base32Encode, decodePublicNkey, type NkeySigner, type NkeyRole, verifyNkeySignature } from './nkeys.js';

const HEADER = { typ: 'JWT', alg: 'ed25519-nkey' } as const;

export interface Permission {
  allow?: string[];
  deny?: string[];
}

export interface Permissions {
  pub?: Permission;
  sub?: Permission;
  /** Responders may publish to the reply subject of requests they received (max replies, ttl in ns). */
  resp?: { max: number; ttl: number };
}

export interface OperatorNats {
  type: 'operator';
  version: 2;
  signing_keys?: string[];
  system_account?: string;
}

export interface Export {
  name?: string;
  subject: string;
  type: 'service' | 'stream';
  response_type?: 'Singleton' | 'Stream' | 'Chunked';
}

export interface Import {
  name?: string;
  subject: string;
  account: string;
  type: 'service' | 'stream';
  local_subject?: string;
  /** Service imports: the server adds the requester's connection (host, cid) in the Nats-Request-Info header. */
  share?: boolean;
}

export interface AccountLimits {
  subs: number;
  data: number;
  payload: number;
  imports: number;
  exports: number;
  wildcards: boolean;
  conn: number;
  leaf: number;
  mem_storage: number;
  disk_storage: number;
  streams: number;
  consumer: number;
}

export interface AccountNats {
  type: 'account';
  version: 2;
  signing_keys?: string[];
  limits: AccountLimits;
  exports?: Export[];
  imports?: Import[];
  /** User public key -> unix seconds: every JWT of that user issued at or before then is void. */
  revocations?: Record<string, number>;
  default_permissions?: Permissions;
}

export interface UserNats extends Permissions {
  type: 'user';
  version: 2;
  subs: number;
  data: number;
  payload: number;
  issuer_account?: string;
  bearer_token?: boolean;
}

export type NatsClaimsBody = OperatorNats | AccountNats | UserNats;

export interface Claims<N extends NatsClaimsBody = NatsClaimsBody> {
  jti?: string;
  iat: number;
  iss: string;
  sub: string;
  name: string;
  exp?: number;
  nats: N;
}

const b64url = (data: Uint8Array | string): string => Buffer.from(data).toString('base64url');

/** The role an issuer must have for a JWT of each type. */
const ISSUER_ROLE: Readonly<Record<NatsClaimsBody['type'], NkeyRole>> = { operator: 'operator', account: 'operator', user: 'account' };

/**
 * Encodes and signs claims. The signer must be the issuer named in `iss` (checked, so a JWT that
 * the server would refuse is never produced).
 */
export function encodeJwt<N extends NatsClaimsBody>(claims: Claims<N>, signer: NkeySigner): string {
  const role = ISSUER_ROLE[claims.nats.type];
  if (claims.iss !== signer.publicKey(role)) throw new BrineError('NATS_KEY_INVALID', `a ${claims.nats.type} JWT must be signed by its issuer ${claims.iss.slice(0, 8)}...`);
  const body: Claims<N> = { ...claims, jti: '' };
  body.jti = base32Encode(createHash('sha512-256').update(JSON.stringify(body)).digest());
  const signing = `${b64url(JSON.stringify(HEADER))}.${b64url(JSON.stringify(body))}`;
  return `${signing}.${b64url(signer.sign(Buffer.from(signing)))}`;
}

/**
 * Decodes a JWT and checks its header and that the signature is by the nkey in `iss`; whether
 * that issuer is trusted is the caller's decision. Anything malformed is NATS_JWT_INVALID.
 */
export function decodeJwt(jwt: string): Claims {
  const parts = jwt.trim().split('.');
  if (parts.length !== 3) throw new BrineError('NATS_JWT_INVALID', 'a JWT has three dot-separated parts');
  const [h, c, s] = parts as [string, string, string];
  let header: unknown;
  let claims: Claims;
  try {
    header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8'));
    claims = JSON.parse(Buffer.from(c, 'base64url').toString('utf8')) as Claims;
  } catch (err) {
    throw new BrineError('NATS_JWT_INVALID', 'a JWT part is not base64url JSON', { cause: err });
  }
  const hd = header as { typ?: unknown; alg?: unknown };
  if (hd?.alg !== HEADER.alg || (hd.typ !== 'JWT' && hd.typ !== 'jwt')) throw new BrineError('NATS_JWT_INVALID', `unsupported JWT header ${JSON.stringify(header)}`);
  if (typeof claims?.iss !== 'string' || typeof claims.sub !== 'string' || typeof claims.nats?.type !== 'string') {
    throw new BrineError('NATS_JWT_INVALID', 'the JWT claims lack iss, sub or nats.type');
  }
  decodePublicNkey(claims.iss);
  if (!verifyNkeySignature(claims.iss, Buffer.from(`${h}.${c}`), Buffer.from(s, 'base64url'))) {
    throw new BrineError('NATS_JWT_INVALID', `the JWT signature does not verify for its issuer ${claims.iss.slice(0, 8)}...`);
  }
  return claims;
}
