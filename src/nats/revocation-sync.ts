// Key removals that reach the NATS servers even when masters race: revoking is read-modify-write
// on the account JWT (account-updates.ts), so two masters pushing at once can each drop the
// other's revocation. ensureRevoked pushes, reads the account back and pushes again until every
// requested revocation is there. revocationsForKeyChanges says which user nkeys a change of the
// accepted keys must revoke.

import type { NatsConnection } from '@nats-io/transport-node';
import { fingerprint, toPublicKey } from '../pki/fingerprint.js';
import { BrineError, isBrineError, errorMessage } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { lookupAccount, revokeUsers } from './account-updates.js';
import type { AccountNats, Claims } from './jwt.js';
import { encodePublicNkey, type NkeySigner } from './nkeys.js';

export interface EnsureRevokedOptions {
  logger?: Logger;
  /** Pushes and re-reads before giving up (default 8). */
  attempts?: number;
  /** Backoff between attempts: base doubling up to max, each a random 50-100% of it (ms). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /**
   * Once all revocations are seen, read the account once more after this long (ms, default 300):
   * a push that another master based on an older account just before may still land.
   */
  confirmAfterMs?: number;
  random?: () => number;
}

export interface RevocationOutcome {
  /** The revocation time (unix seconds) of the first push: every JWT issued up to then is void. */
  at: number;
  /** Account updates pushed (1 when nobody raced). */
  pushes: number;
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** User keys of `userKeys` whose revocation in `claims` is missing or older than `at`. */
export function missingRevocations(claims: Claims<AccountNats>, userKeys: readonly string[], at: number): string[] {
  const revocations = claims.nats.revocations ?? {};
  return userKeys.filter((k) => (revocations[k] ?? -1) < at);
}

/**
 * Revokes `userKeys` (U... nkeys) in `account` and makes sure the servers keep the revocations:
 * after each push the account is read back, and keys whose revocation is missing (another master
 * pushed an account based on an older copy) are pushed again, with jittered backoff. An answer
 * older than our revocation time comes from a server that has not seen our push yet: it is read
 * again, not pushed over. NATS_REVOCATION_INCOMPLETE after `attempts` rounds.
 */
export async function ensureRevoked(sys: NatsConnection, master: NkeySigner, account: string, userKeys: readonly string[], opts: EnsureRevokedOptions = {}): Promise<RevocationOutcome> {
  const keys = [...new Set(userKeys)];
  const attempts = opts.attempts ?? 8;
  const base = opts.baseDelayMs ?? 100;
  const max = opts.maxDelayMs ?? 2000;
  const random = opts.random ?? Math.random;
  const confirmAfter = opts.confirmAfterMs ?? 300;
  let at: number | undefined;
  let pushes = 0;
  let missing = keys;
  let confirmed = false;
  let lastError: unknown;
  if (keys.length === 0) return { at: Math.floor(Date.now() / 1000), pushes: 0 };
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      if (missing.length > 0) {
        const pushedAt = await revokeUsers(sys, master, account, missing);
        at ??= pushedAt;
        pushes++;
        confirmed = false;
      }
      const claims = await lookupAccount(sys, account);
      const seen = at ?? 0;
      missing = missingRevocations(claims, keys, seen);
      if (claims.iat < seen) {
        // this server has not got our push yet: ask again, never push over a stale copy
        missing = [];
        confirmed = false;
      } else if (missing.length === 0) {
        if (confirmed || confirmAfter === 0) return { at: seen, pushes };
        confirmed = true;
        await delay(confirmAfter);
        attempt--; // the confirming read is not a failed round
        continue;
      } else {
        opts.logger?.info({ account, missing: missing.length, attempt }, `${missing.length} revocation(s) were replaced by another master's account update; pushing them again`);
      }
    } catch (err) {
      if (!isBrineError(err)) throw err;
      lastError = err;
      opts.logger?.warn({ code: err.code, account, attempt, err: err.message }, `revoking ${keys.length} NATS user(s) failed (attempt ${attempt} of ${attempts}); retrying`);
    }
    if (attempt < attempts) await delay(Math.min(max, base * 2 ** (attempt - 1)) * (0.5 + random() * 0.5));
  }
  throw new BrineError(
    'NATS_REVOCATION_INCOMPLETE',
    `after ${attempts} attempts the NATS servers still do not hold the revocation of ${missing.length || keys.length} key(s) (${(missing.length > 0 ? missing : keys).map((k) => `${k.slice(0, 8)}...`).join(', ')}): check that the servers answer and that this master is an operator signing key, then repeat the brine key command`,
    { ...(lastError === undefined ? {} : { cause: lastError }), details: { account, missing: missing.length > 0 ? missing : keys } },
  );
}

/** The user nkey (U...) of an Ed25519 public key PEM; NATS_KEY_UNSUPPORTED for any other key type. */
export function userNkeyOfPem(pem: string): string {
  const key = toPublicKey(pem);
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new BrineError('NATS_KEY_UNSUPPORTED', `a brine key of type ${key.asymmetricKeyType ?? 'unknown'} has no NATS identity: NATS nkeys are Ed25519`);
  }
  const der = key.export({ type: 'spki', format: 'der' });
  return encodePublicNkey('user', der.subarray(der.length - 32));
}

export interface RevocationPlan {
  /** User nkeys to revoke: keys deleted, rejected or replaced since `previous`. */
  revoke: string[];
  /** Keys that have no NATS identity (EC P-256) or cannot be read: nothing to revoke on NATS. */
  skipped: Array<{ id: string; code: string; message: string }>;
}

type KeyMap = ReadonlyMap<string, string> | Readonly<Record<string, string>>;

const isMap = (m: KeyMap): m is ReadonlyMap<string, string> => m instanceof Map;
const entries = (m: KeyMap): Array<[string, string]> => (isMap(m) ? [...m.entries()] : Object.entries(m));
const lookup = (m: KeyMap, id: string): string | undefined => (isMap(m) ? m.get(id) : Object.hasOwn(m, id) ? m[id] : undefined);

/**
 * Which user nkeys to revoke when the accepted keys (ID -> public key PEM) go from `previous` to
 * `current`: every previous key that is no longer the ID's accepted key (deleted, rejected,
 * replaced). An EC key is skipped with NATS_KEY_UNSUPPORTED (logged as a warning when a logger is
 * given): such a minion cannot be on NATS.
 */
export function revocationsForKeyChanges(previous: KeyMap, current: KeyMap, logger?: Logger): RevocationPlan {
  const plan: RevocationPlan = { revoke: [], skipped: [] };
  for (const [id, pem] of entries(previous)) {
    const now = lookup(current, id);
    try {
      if (now !== undefined && fingerprint(now) === fingerprint(pem)) continue;
    } catch {
      // an unreadable current key is no longer the previous one: revoke the previous
    }
    try {
      plan.revoke.push(userNkeyOfPem(pem));
    } catch (err) {
      const code = isBrineError(err) ? err.code : 'PKI_KEY_INVALID';
      plan.skipped.push({ id, code, message: errorMessage(err) });
      logger?.warn({ code, id }, `not revoking the previous key of ${id} on NATS: ${errorMessage(err)}`);
    }
  }
  plan.revoke = [...new Set(plan.revoke)];
  return plan;
}
