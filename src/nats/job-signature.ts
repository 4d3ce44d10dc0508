// Jobs signed by the master that issues them (threats.md #41): on NATS a minion's job subject is
// only as safe as every credential and route of the cluster, so each job and find_job carries an
// Ed25519 signature of the issuing master, checked by the minion against the masters it trusts.
//
// The signature covers a fixed text: a domain tag, the version, the minion the message is for,
// the master's key, the issue and expiry times and the SHA-256 of the exact payload bytes. The
// payload is decoded only after those bytes verified, so what runs is what was signed (jid, fun,
// arguments, target), for this minion only, within its lifetime. The fields travel as NATS headers.

import { createHash } from 'node:crypto';
import { decodePublicNkey, type NkeySigner, verifyNkeySignature } from './nkeys.js';

export const JOB_SIGNATURE_VERSION = 1;
/** How long a signed job may be run after it was issued (it is published at once on core NATS). */
export const JOB_SIGNATURE_TTL_MS = 2 * 60_000;
/** Clock difference tolerated between a master and a minion (as for sign-in requests). */
export const JOB_CLOCK_SKEW_MS = 5 * 60_000;

/** The NATS headers carrying a job's signature. */
export const JOB_HEADERS = {
  master: 'Brine-Master',
  issued: 'Brine-Issued',
  expires: 'Brine-Expires',
  sig: 'Brine-Sig',
} as const;

export interface JobSignature {
  /** The issuing master's account nkey (A...), as the enrolment file names trusted masters. */
  master: string;
  issuedMs: number;
  expiresMs: number;
  /** base64url Ed25519 signature. */
  sig: string;
}

/** SHA-256 of a payload: computed once per job, whatever the number of minions it goes to. */
export function payloadDigest(payload: Uint8Array | string): string {
  return createHash('sha256').update(payload).digest('hex');
}

function signedText(minionId: string, master: string, issuedMs: number, expiresMs: number, digest: string): Buffer {
  return Buffer.from(`brine-nats-job\n${JOB_SIGNATURE_VERSION}\n${minionId}\n${master}\n${issuedMs}\n${expiresMs}\n${digest}`);
}

/** The signature of one job for one minion. */
export function signJob(signer: NkeySigner, minionId: string, digest: string, nowMs: number, ttlMs = JOB_SIGNATURE_TTL_MS): JobSignature {
  const master = signer.publicKey('account');
  const expiresMs = nowMs + ttlMs;
  const sig = signer.sign(signedText(minionId, master, nowMs, expiresMs, digest)).toString('base64url');
  return { master, issuedMs: nowMs, expiresMs, sig };
}

/** Why a job is refused, one reason per counter. */
export type JobRefusal = 'unsigned' | 'malformed' | 'untrusted_master' | 'bad_signature' | 'expired' | 'not_yet_valid' | 'replayed';

export type JobVerdict = { ok: true; master: string; expiresMs: number } | { ok: false; reason: JobRefusal; master?: string };

const JOB_HEADER_KEYS: ReadonlyArray<keyof typeof JOB_HEADERS> = ['master', 'issued', 'expires', 'sig'];

/** Reads the signature headers; undefined when none is there at all. */
export function readJobSignature(get: (name: string) => string): Partial<Record<keyof typeof JOB_HEADERS, string>> | undefined {
  const out: Partial<Record<keyof typeof JOB_HEADERS, string>> = {};
  for (const k of JOB_HEADER_KEYS) {
    const v = get(JOB_HEADERS[k]);
    if (v !== '') out[k] = v;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/**
 * Checks a job's signature for `minionId` against `trusted` (A... nkeys): a pure decision; the
 * caller drops, logs and counts. Replays are the caller's (it knows the jid once decoded).
 */
export function verifyJob(fields: Partial<Record<keyof typeof JOB_HEADERS, string>> | undefined, payload: Uint8Array, minionId: string, trusted: ReadonlySet<string>, nowMs: number): JobVerdict {
  if (fields === undefined) return { ok: false, reason: 'unsigned' };
  const { master, issued, expires, sig } = fields;
  if (master === undefined || issued === undefined || expires === undefined || sig === undefined || !/^\d{1,16}$/.test(issued) || !/^\d{1,16}$/.test(expires)) {
    return { ok: false, reason: 'malformed', ...(master === undefined ? {} : { master: master.slice(0, 64) }) };
  }
  if (!trusted.has(master)) return { ok: false, reason: 'untrusted_master', master: master.slice(0, 64) };
  try {
    if (decodePublicNkey(master).role !== 'account') return { ok: false, reason: 'malformed', master };
  } catch {
    return { ok: false, reason: 'malformed', master };
  }
  const issuedMs = Number(issued);
  const expiresMs = Number(expires);
  if (!verifyNkeySignature(master, signedText(minionId, master, issuedMs, expiresMs, payloadDigest(payload)), Buffer.from(sig, 'base64url'))) {
    return { ok: false, reason: 'bad_signature', master };
  }
  // a lifetime longer than a master gives is not one a master signed for a job
  if (expiresMs < issuedMs || expiresMs - issuedMs > JOB_CLOCK_SKEW_MS) return { ok: false, reason: 'malformed', master };
  if (issuedMs > nowMs + JOB_CLOCK_SKEW_MS) return { ok: false, reason: 'not_yet_valid', master };
  if (nowMs > expiresMs + JOB_CLOCK_SKEW_MS) return { ok: false, reason: 'expired', master };
  return { ok: true, master, expiresMs };
}
