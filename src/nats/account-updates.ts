// Key changes reaching the NATS servers: a master looks up an account's current JWT from the
// full resolver, changes its revocations and pushes it back, signed with its own key (an
// operator signing key), through the system account. The servers of a cluster share the
// update; each closes the connections of a revoked user at once and refuses its JWTs after.

import type { NatsConnection } from '@nats-io/transport-node';
import { BrineError } from '../util/errors.js';
import { signAccount, withoutRevocation, withRevocation } from './authority.js';
import { type AccountNats, type Claims, decodeJwt } from './jwt.js';
import { encodePublicNkey, type NkeySigner } from './nkeys.js';
import { SIGNIN_SUBJECT } from './subjects.js';

const REQUEST_TIMEOUT_MS = 5000;

const isAccountClaims = (c: Claims): c is Claims<AccountNats> => c.nats.type === 'account';

/** The account's JWT as the servers hold it now (the connection must be in SYS). */
export async function lookupAccount(sys: NatsConnection, account: string): Promise<Claims<AccountNats>> {
  let text: string;
  try {
    text = (await sys.request(`$SYS.REQ.ACCOUNT.${account}.CLAIMS.LOOKUP`, '', { timeout: REQUEST_TIMEOUT_MS })).string();
  } catch (err) {
    throw new BrineError('NATS_CLAIMS_UPDATE_FAILED', `no NATS server answered the lookup of account ${account}`, { cause: err });
  }
  const claims = decodeJwt(text);
  if (!isAccountClaims(claims) || claims.sub !== account) throw new BrineError('NATS_JWT_INVALID', `the lookup of account ${account} returned another JWT`);
  return claims;
}

/** Pushes an account JWT; resolves when a server stored it (code 200), else NATS_CLAIMS_UPDATE_FAILED. */
export async function pushAccount(sys: NatsConnection, jwt: string): Promise<void> {
  let answer: { data?: { code?: number; message?: string }; error?: { code?: number; description?: string } };
  try {
    answer = (await sys.request('$SYS.REQ.CLAIMS.UPDATE', jwt, { timeout: REQUEST_TIMEOUT_MS })).json();
  } catch (err) {
    throw new BrineError('NATS_CLAIMS_UPDATE_FAILED', 'no NATS server answered the account update', { cause: err });
  }
  if (answer.data?.code !== 200) {
    const why = answer.error?.description ?? answer.data?.message ?? JSON.stringify(answer);
    throw new BrineError('NATS_CLAIMS_UPDATE_FAILED', `the NATS servers refused the account update: ${why}`);
  }
}

/** A second, for the JWT timestamps (whole seconds). */
const seconds = (ms: number): number => Math.floor(ms / 1000);

/**
 * Revokes every JWT of each of `userKeys` (U... nkeys) in `account` issued up to now: deleting or
 * rejecting keys. One account update for all of them (`brine key -D` of many keys is one push).
 * Returns the revocation time. Read-modify-write: two masters revoking at the same moment can
 * race; the last write wins, so the caller re-checks with lookupAccount.
 */
export async function revokeUsers(sys: NatsConnection, master: NkeySigner, account: string, userKeys: readonly string[], nowMs = Date.now()): Promise<number> {
  const at = seconds(nowMs);
  const current = await lookupAccount(sys, account);
  let next = current;
  for (const key of userKeys) next = withRevocation(next, key, at);
  // strictly newer than the stored JWT, or the resolver may keep the stored one
  await pushAccount(sys, signAccount(next, master, Math.max(at, current.iat + 1)));
  return at;
}

/**
 * Makes `masters` (raw Ed25519 keys) the signing keys of `account` on the running servers,
 * keeping everything else (revocations, limits). A master added here can issue users at once;
 * to push account updates itself it must also be in the operator JWT (server-config). A master
 * removed here voids every user JWT it issued: those minions must sign in again.
 */
export async function setSigningKeys(sys: NatsConnection, master: NkeySigner, account: string, masters: readonly Buffer[], nowMs = Date.now()): Promise<void> {
  const current = await lookupAccount(sys, account);
  const signing_keys = masters.map((m) => encodePublicNkey('account', m));
  const nats = { ...current.nats, signing_keys };
  // accounts made before the sign-in import shared the requester's address get it here, so the
  // masters' per-address sign-in limits see each client (threats.md #42)
  if (current.nats.imports !== undefined) nats.imports = current.nats.imports.map((i) => (i.type === 'service' && i.subject === SIGNIN_SUBJECT ? { ...i, share: true } : i));
  await pushAccount(sys, signAccount({ ...current, nats }, master, Math.max(seconds(nowMs), current.iat + 1)));
}

/** Lifts a revocation (a key accepted again); its new JWT must be issued after the revocation time. */
export async function unrevokeUser(sys: NatsConnection, master: NkeySigner, account: string, userKey: string, nowMs = Date.now()): Promise<void> {
  const current = await lookupAccount(sys, account);
  if (current.nats.revocations?.[userKey] === undefined) return;
  await pushAccount(sys, signAccount(withoutRevocation(current, userKey), master, Math.max(seconds(nowMs), current.iat + 1)));
}

/**
 * The issue time for a new user JWT of `userKey`: now, or just after its revocation if that is
 * this same second (a JWT issued at or before a revocation time is void).
 */
export function issueTimeAfter(claims: Claims<AccountNats>, userKey: string, nowMs = Date.now()): number {
  const revokedAt = claims.nats.revocations?.[userKey];
  return revokedAt === undefined ? seconds(nowMs) : Math.max(seconds(nowMs), revokedAt + 1);
}
