// NATS JWTs (the v2 claims that nats-server 2.9 reads): a JSON header
// {"typ":"JWT","alg":"ed25519-nkey"}, the claims, and an Ed25519 signature by the issuer's nkey
// over "header.claims", each part unpadded base64url. @nats-io/jwt verifies what brine reads.
// brine encodes its own: the library's encoders stamp iat with the current second (brine sets it,
// so a JWT re-issued after a revocation postdates it and a preloaded account JWT stays the same
// across restarts) and its jti is not the reference encoder's (base32 SHA-512/256 of the claims).

import { createHash } from 'node:crypto';
import { decode as libDecode } from '@nats-io/jwt';
import { BrineError } from '../util/errors.js';
import { base32Encode, decodePublicNkey, type NkeySigner, type NkeyRole } from './nkeys.js';

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

const jsonPart = (part: string): unknown => {
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch (err) {
    throw new BrineError('NATS_JWT_INVALID', 'a JWT part is not base64url JSON', { cause: err });
  }
};

/**
 * Decodes a JWT and checks its header and that the signature is by the nkey in `iss` (by
 * @nats-io/jwt); whether that issuer is trusted is the caller's decision. Anything malformed is
 * NATS_JWT_INVALID.
 */
export function decodeJwt(jwt: string): Claims {
  const parts = jwt.trim().split('.');
  if (parts.length !== 3) throw new BrineError('NATS_JWT_INVALID', 'a JWT has three dot-separated parts');
  const header = jsonPart(parts[0]!) as { typ?: unknown; alg?: unknown } | null;
  const claims = jsonPart(parts[1]!) as Partial<Claims> | null;
  // the library also takes v1 ("ed25519", the claims alone signed): nats-server 2.9 issues v2 only
  if (header?.alg !== HEADER.alg || (header.typ !== 'JWT' && header.typ !== 'jwt')) throw new BrineError('NATS_JWT_INVALID', `unsupported JWT header ${JSON.stringify(header)}`);
  if (typeof claims?.iss !== 'string' || typeof claims.sub !== 'string' || typeof claims.nats?.type !== 'string') {
    throw new BrineError('NATS_JWT_INVALID', 'the JWT claims lack iss, sub or nats.type');
  }
  decodePublicNkey(claims.iss);
  try {
    // the parts parse and iss is a public nkey: what the library can still refuse is the signature
    return libDecode<NatsClaimsBody>(parts.join('.')) as Claims;
  } catch (err) {
    throw new BrineError('NATS_JWT_INVALID', `the JWT signature does not verify for its issuer ${claims.iss.slice(0, 8)}...`, { cause: err });
  }
}
