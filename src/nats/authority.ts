// The NATS trust chain brine builds (decentralized JWT auth, nats-server's operator mode):
//   operator (root key, kept by whoever runs `brine nats server-config`)
//     signing keys: every master's own key -> any master can re-sign an account (revocations)
//   accounts BRINE (minions, masters, JetStream), ENROL (pending keys: sign-in only), SYS (server)
//     signing keys: every master's own key -> any master can issue users in them
//   users: a minion's own key (U...) with its own subjects; a master's own key; the shared
//     enrolment bearer user that can only ask to sign in.
// Masters share no private key: each signs with its own brine key under its own prefix.

import { type AccountLimits, type AccountNats, type Claims, encodeJwt, type Permissions, type UserNats } from './jwt.js';
import { encodePublicNkey, type NkeySigner } from './nkeys.js';
import { enrolPermissions, minionPermissions, minionSubjects, SIGNIN_SUBJECT } from './subjects.js';

/** Public keys (A...) of the three accounts. Their private halves are thrown away once made. */
export interface AccountKeys {
  brine: string;
  enrol: string;
  sys: string;
}

export type AccountKind = keyof AccountKeys;

export const ACCOUNT_NAMES: Readonly<Record<AccountKind, string>> = { brine: 'BRINE', enrol: 'ENROL', sys: 'SYS' };

export interface AccountPolicy {
  /** Connections the enrolment account accepts at once (pending keys asking to sign in). */
  enrolMaxConnections: number;
}

export const DEFAULT_ACCOUNT_POLICY: AccountPolicy = { enrolMaxConnections: 1024 };

/** A sign-in request or answer is small; anything bigger from a pending client is refused. */
export const ENROL_MAX_PAYLOAD = 4096;

const UNLIMITED: AccountLimits = {
  subs: -1,
  data: -1,
  payload: -1,
  imports: -1,
  exports: -1,
  wildcards: true,
  conn: -1,
  leaf: -1,
  mem_storage: 0,
  disk_storage: 0,
  streams: 0,
  consumer: 0,
};

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** The operator JWT: self-signed, naming every master's key as a signing key. */
export function operatorJwt(operator: NkeySigner, masters: readonly NkeySigner[] | readonly Buffer[], accounts: AccountKeys, iat = nowSeconds()): string {
  const o = operator.publicKey('operator');
  return encodeJwt(
    {
      iat,
      iss: o,
      sub: o,
      name: 'brine',
      nats: { type: 'operator', version: 2, signing_keys: masterKeys(masters, 'operator'), system_account: accounts.sys },
    },
    operator,
  );
}

/** The claims of one account (not yet signed): limits, exports/imports and signing keys. */
export function accountClaims(
  kind: AccountKind,
  issuer: string,
  accounts: AccountKeys,
  masters: readonly NkeySigner[] | readonly Buffer[],
  policy: AccountPolicy = DEFAULT_ACCOUNT_POLICY,
  iat = nowSeconds(),
): Claims<AccountNats> {
  const nats: AccountNats = { type: 'account', version: 2, signing_keys: masterKeys(masters, 'account'), limits: { ...UNLIMITED } };
  if (kind === 'brine') {
    // JetStream on, unlimited here: the server's own jetstream limits bound it
    nats.limits = { ...UNLIMITED, mem_storage: -1, disk_storage: -1, streams: -1, consumer: -1 };
    nats.exports = [{ name: 'sign-in', subject: SIGNIN_SUBJECT, type: 'service', response_type: 'Singleton' }];
  } else if (kind === 'enrol') {
    nats.limits = { ...UNLIMITED, conn: policy.enrolMaxConnections, payload: ENROL_MAX_PAYLOAD, leaf: 0, imports: 1, exports: 0 };
    // share: the masters learn each requester's address from the server (Nats-Request-Info), so
    // the per-address sign-in limits apply per client and not to ENROL as a whole (threats.md #42)
    nats.imports = [{ name: 'sign-in', subject: SIGNIN_SUBJECT, account: accounts.brine, type: 'service', share: true }];
    // nothing but the sign-in request, whatever a user JWT in this account says
    nats.default_permissions = enrolPermissions();
  }
  return { iat, iss: issuer, sub: accounts[kind], name: ACCOUNT_NAMES[kind], nats };
}

/** Signs account claims as `signer` in its operator role (the operator itself or a master). */
export function signAccount(claims: Claims<AccountNats>, signer: NkeySigner, iat = nowSeconds()): string {
  return encodeJwt({ ...claims, iat, iss: signer.publicKey('operator') }, signer);
}

/**
 * Account claims with `userKey` revoked as of `at` (unix seconds): the server closes that user's
 * connections and refuses every JWT for it issued at or before then.
 */
export function withRevocation(claims: Claims<AccountNats>, userKey: string, at = nowSeconds()): Claims<AccountNats> {
  return { ...claims, nats: { ...claims.nats, revocations: { ...(claims.nats.revocations ?? {}), [userKey]: at } } };
}

/** Account claims with `userKey`'s revocation lifted (a key accepted again). */
export function withoutRevocation(claims: Claims<AccountNats>, userKey: string): Claims<AccountNats> {
  const revocations = { ...(claims.nats.revocations ?? {}) };
  delete revocations[userKey];
  return { ...claims, nats: { ...claims.nats, revocations } };
}

export interface UserJwtOptions {
  /** Unix seconds when the JWT stops being valid (none: until revoked). */
  exp?: number;
  iat?: number;
}

function userJwt(master: NkeySigner, account: string, userKey: string, name: string, perms: Permissions, extra: Partial<UserNats>, opts: UserJwtOptions): string {
  const claims: Claims<UserNats> = {
    iat: opts.iat ?? nowSeconds(),
    iss: master.publicKey('account'),
    sub: userKey,
    name,
    nats: { type: 'user', version: 2, subs: -1, data: -1, payload: -1, issuer_account: account, ...perms, ...extra },
  };
  if (opts.exp !== undefined) claims.exp = opts.exp;
  return encodeJwt(claims, master);
}

/** The user JWT of an accepted minion: its own key, its own subjects, issued by one master. */
export function minionUserJwt(master: NkeySigner, accounts: AccountKeys, id: string, minionKey: Buffer, opts: UserJwtOptions = {}): string {
  return userJwt(master, accounts.brine, encodePublicNkey('user', minionKey), id, minionPermissions(id), {}, opts);
}

/** A master's own user in BRINE: everything in that account. */
export function masterUserJwt(master: NkeySigner, accounts: AccountKeys, name: string, opts: UserJwtOptions = {}): string {
  return userJwt(master, accounts.brine, master.publicKey('user'), name, {}, {}, opts);
}

/** A master's own user in SYS, to push and look up account JWTs. */
export function masterSystemUserJwt(master: NkeySigner, accounts: AccountKeys, name: string, opts: UserJwtOptions = {}): string {
  return userJwt(master, accounts.sys, master.publicKey('user'), name, {}, {}, opts);
}

/**
 * The enrolment credentials every minion may hold: a bearer JWT (no private key behind it, so
 * it is no secret) in ENROL that can only publish the sign-in request and read its answer.
 */
export function enrolUserJwt(master: NkeySigner, accounts: AccountKeys, userKey: string, opts: UserJwtOptions = {}): string {
  return userJwt(master, accounts.enrol, userKey, 'brine-enrol', enrolPermissions(), { bearer_token: true, subs: 8, payload: ENROL_MAX_PAYLOAD }, opts);
}

/** The inbox prefix a minion's connection must use (its only subscribable replies). */
export function minionInboxPrefix(id: string): string {
  return minionSubjects(id).inbox;
}

function masterKeys(masters: readonly NkeySigner[] | readonly Buffer[], role: 'operator' | 'account'): string[] {
  return masters.map((m) => (Buffer.isBuffer(m) ? encodePublicNkey(role, m) : m.publicKey(role)));
}
