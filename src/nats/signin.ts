// The sign-in exchange over NATS: a pending minion (ENROL account) asks a master for its user
// JWT. The request names the minion's ID and key and is signed by that key, so a master never
// stores a key whose holder did not ask; its timestamp bounds replays. The answer's JWT is
// checked by the minion: its own key and ID, issued by a master it trusts.

import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { BrineError, isBrineError, toBrineError } from '../util/errors.js';
import { isPlainObject } from '../protocol/index.js';
import { minionIdProblem } from '../util/minion-id.js';
import { minionUserJwt, type AccountKeys } from './authority.js';
import { decodeJwt } from './jwt.js';
import { decodePublicNkey, encodePublicNkey, type NkeySigner, publicKeyFromRaw, verifyNkeySignature } from './nkeys.js';
import { SIGNIN_SUBJECT } from './subjects.js';

export const SIGNIN_VERSION = 1;
/** A request older or newer than this (by the master's clock) is refused as a possible replay. */
export const SIGNIN_MAX_SKEW_MS = 5 * 60_000;
/** Masters answer in one queue group: each request is decided once. */
export const SIGNIN_QUEUE = 'brine-masters';
const MAX_REQUEST_BYTES = 2048;

export type SigninStatus = 'accepted' | 'pending' | 'rejected' | 'denied' | 'invalid_id' | 'full' | 'busy' | 'error';

export interface SigninAnswer {
  status: SigninStatus;
  /** For `accepted`: the minion's user JWT in BRINE. */
  jwt?: string;
  /** A catalogue code for refusals and errors. */
  code?: string;
  message?: string;
  /** For `busy`: seconds to wait before asking again. */
  retryAfter?: number;
}

/** What a master learns from a verified request. */
export interface VerifiedSignin {
  id: string;
  /** U... nkey of the minion's key. */
  userKey: string;
  raw: Buffer;
  /** The key as SPKI PEM, what the key store keeps. */
  publicKeyPem: string;
}

const signedText = (id: string, key: string, ts: number): Buffer => Buffer.from(`brine-nats-signin\n${SIGNIN_VERSION}\n${id}\n${key}\n${ts}`);

/** The request a minion sends, signed with its own key. */
export function signinRequest(id: string, signer: NkeySigner, nowMs = Date.now()): Uint8Array {
  const key = signer.publicKey('user');
  const sig = signer.sign(signedText(id, key, nowMs)).toString('base64url');
  return Buffer.from(JSON.stringify({ v: SIGNIN_VERSION, id, key, ts: nowMs, sig }));
}

const invalid = (message: string): BrineError => new BrineError('MESSAGE_INVALID', `sign-in request refused: ${message}`);

/** Checks a request's shape, ID, time and signature; a refusal is MESSAGE_INVALID or INVALID_ID. */
export function verifySigninRequest(data: Uint8Array, nowMs = Date.now()): VerifiedSignin {
  if (data.length > MAX_REQUEST_BYTES) throw invalid(`${data.length} bytes (at most ${MAX_REQUEST_BYTES})`);
  let req: unknown;
  try {
    req = JSON.parse(Buffer.from(data).toString('utf8'));
  } catch {
    throw invalid('not JSON');
  }
  if (!isPlainObject(req)) throw invalid('not an object');
  const r = req;
  if (r.v !== SIGNIN_VERSION) throw invalid(`version ${JSON.stringify(r.v)} (this master speaks ${SIGNIN_VERSION})`);
  const { id, key, ts, sig } = r;
  if (typeof id !== 'string' || typeof key !== 'string' || typeof ts !== 'number' || typeof sig !== 'string') throw invalid('id, key, ts and sig are required');
  const problem = minionIdProblem(id);
  if (problem !== undefined) throw new BrineError('INVALID_ID', `sign-in request refused: ${problem}`);
  if (!Number.isSafeInteger(ts) || Math.abs(nowMs - ts) > SIGNIN_MAX_SKEW_MS) throw invalid("its time is more than 5 minutes from this master's clock (a replay, or a clock to fix)");
  let raw: Buffer;
  try {
    const decoded = decodePublicNkey(key);
    if (decoded.role !== 'user') throw invalid('the key is not a user nkey');
    raw = decoded.raw;
  } catch (err) {
    if (isBrineError(err, 'MESSAGE_INVALID')) throw err;
    throw invalid('the key is not an nkey');
  }
  if (!verifyNkeySignature(key, signedText(id, key, ts), Buffer.from(sig, 'base64url'))) throw invalid('the signature does not verify for the key it names');
  return { id, userKey: key, raw, publicKeyPem: publicKeyFromRaw(raw).export({ type: 'spki', format: 'pem' }).toString() };
}

/**
 * Checks an answer on the minion: an accepted answer must carry a JWT for this very key and
 * ID in BRINE, issued by one of `trustedMasters` (raw Ed25519 keys: the pinned masters).
 */
export function checkSigninAnswer(data: Uint8Array, id: string, signer: NkeySigner, accounts: Pick<AccountKeys, 'brine'>, trustedMasters: readonly Buffer[]): SigninAnswer {
  let answer: SigninAnswer;
  try {
    answer = JSON.parse(Buffer.from(data).toString('utf8')) as SigninAnswer;
  } catch {
    throw new BrineError('MESSAGE_INVALID', 'the sign-in answer is not JSON');
  }
  if (answer.status !== 'accepted') return answer;
  if (typeof answer.jwt !== 'string') throw new BrineError('MESSAGE_INVALID', 'an accepted sign-in answer without a JWT');
  const claims = decodeJwt(answer.jwt);
  if (claims.nats.type !== 'user' || claims.sub !== signer.publicKey('user') || claims.name !== id || claims.nats.issuer_account !== accounts.brine) {
    throw new BrineError('NATS_JWT_INVALID', 'the sign-in answer carries a JWT for another key, ID or account');
  }
  if (!trustedMasters.some((m) => encodePublicNkey('account', m) === claims.iss)) {
    throw new BrineError('MASTER_KEY_CHANGED', `the sign-in answer was issued by ${claims.iss.slice(0, 8)}..., not by a master this minion trusts`);
  }
  return answer;
}

/** A decision with the reason and what to do, as the key store's verdict says it. */
export type SigninDecision = { status: SigninStatus; code?: string; message?: string; retryAfter?: number };

/**
 * What the master decides for a verified request (the key store's decision, as on TLS); `source`
 * is the requester's address as the NATS server reports it (undefined when it does not).
 */
export type SigninDecide = (req: VerifiedSignin, source: string | undefined) => Promise<SigninStatus | SigninDecision> | SigninStatus | SigninDecision;

/** The header in which nats-server reports the requester's connection on a shared service import. */
export const REQUEST_INFO_HEADER = 'Nats-Request-Info';

/**
 * The requester's address as the server saw its connection (the ENROL import shares it, and the
 * server replaces any such header a client sent): the per-address sign-in limits' source, so one
 * client holding the public enrolment file is limited as one address, not as all of ENROL.
 */
export function requesterAddress(info: string | undefined): string | undefined {
  if (info === undefined || info === '') return undefined;
  try {
    const parsed: unknown = JSON.parse(info);
    const host = isPlainObject(parsed) ? parsed.host : undefined;
    // the server writes it (never the client), so a shape check is enough: an IPv4 or IPv6 literal
    return typeof host === 'string' && /^(?:[0-9.]{7,15}|[0-9A-Fa-f:.]{2,45})$/.test(host) && /[.:]/.test(host) ? host : undefined;
  } catch {
    return undefined;
  }
}

export interface SigninResponderOptions {
  /** Issue time of a new JWT for a key (after its revocation, if any); default now. */
  issuedAt?: (userKey: string) => Promise<number> | number;
  /** Called for each refused or failed request (log and count it). */
  onRefused?: (err: BrineError) => void;
}

/**
 * Serves `brine.signin` on a master's BRINE connection, in the masters' queue group: verifies,
 * decides, and answers; an accepted key gets its user JWT issued by this master.
 */
export function serveSignin(nc: NatsConnection, master: NkeySigner, accounts: AccountKeys, decide: SigninDecide, opts: SigninResponderOptions = {}): Subscription {
  return nc.subscribe(SIGNIN_SUBJECT, {
    queue: SIGNIN_QUEUE,
    callback: (_err, msg) => {
      void (async (): Promise<SigninAnswer> => {
        try {
          const req = verifySigninRequest(msg.data);
          const decided = await decide(req, requesterAddress(msg.headers?.get(REQUEST_INFO_HEADER)));
          const { status, ...why } = typeof decided === 'string' ? { status: decided } : decided;
          if (status !== 'accepted') return { status, ...why };
          const iat = opts.issuedAt === undefined ? undefined : await opts.issuedAt(req.userKey);
          return { status, jwt: minionUserJwt(master, accounts, req.id, req.raw, iat === undefined ? {} : { iat }) };
        } catch (err) {
          const e = toBrineError(err);
          opts.onRefused?.(e);
          return { status: 'error', code: e.code, message: e.message };
        }
      })().then((answer) => msg.respond(JSON.stringify(answer)));
    },
  });
}
