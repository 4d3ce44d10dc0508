// One minion's keys as the masters share them in the JetStream key-value bucket (issue 13): the
// record format, its validation, a digest for "same keys?" checks, the bucket key for an ID, and
// the three-way merge decision between this master's files, the bucket and what both last agreed on.

import { createHash } from 'node:crypto';
import { type DeniedKey, DENIED_KEYS_PER_ID } from '../pki/denied-keys.js';
import { fingerprint, toPublicKey } from '../pki/fingerprint.js';
import type { KeyStore } from '../pki/key-store.js';
import { BrineError } from '../util/errors.js';
import { isPlainObject } from '../protocol/index.js';
import { assertValidMinionId, MAX_ID_LENGTH } from '../util/minion-id.js';

export const KEY_RECORD_VERSION = 1;
/** The states a record holds one key for (denied holds a list). */
export const SINGLE_STATES = ['accepted', 'pending', 'rejected'] as const;
export type SingleState = (typeof SINGLE_STATES)[number];

export interface KeyPem {
  pem: string;
  fingerprint: string;
}

/** A minion's keys in every state; no key at all means the ID is deleted. */
export interface KeySet {
  accepted?: KeyPem;
  pending?: KeyPem;
  rejected?: KeyPem;
  /** Every distinct denied key, with where and when it was seen (DeniedKeyHistory). */
  denied: DeniedKey[];
}

/** The JSON stored under an ID's bucket key. */
export interface KeyRecordJson {
  v: 1;
  accepted?: string;
  pending?: string;
  rejected?: string;
  denied?: Array<{ pem: string; remote?: string; firstSeen?: number; lastSeen?: number }>;
  /** ms since the epoch when a master wrote it, and that master's name: for operators reading the bucket. */
  at: number;
  by: string;
}

/** The digest of a KeySet with no key: a deleted ID (a KV delete marker) or one never seen. */
export const NO_KEYS = 'none';

/**
 * The bucket key for a minion ID. KV keys allow only `[-/=.\w]`, and a dot separates subject
 * tokens (an ID may end with one, or hold two in a row), so `.` is written `/` and `@` is
 * written `=`: both are outside the ID grammar, so the mapping is one-to-one.
 */
export function kvKeyOf(id: string): string {
  assertValidMinionId(id);
  return id.replaceAll('.', '/').replaceAll('@', '=');
}

/** The minion ID of a bucket key (INVALID_ID for a key that kvKeyOf does not make, e.g. one with a dot). */
export function minionIdOfKvKey(key: string): string {
  const id = key.replaceAll('/', '.').replaceAll('=', '@');
  assertValidMinionId(id);
  // one ID, one key: `web1.example.com` written by hand must not stand for `web1/example/com`
  if (kvKeyOf(id) !== key) throw new BrineError('INVALID_ID', `the key bucket entry ${JSON.stringify(key.slice(0, 80))} is not spelled as brine spells minion IDs`);
  return id;
}

export function isEmpty(set: KeySet): boolean {
  return set.accepted === undefined && set.pending === undefined && set.rejected === undefined && set.denied.length === 0;
}

/**
 * What identifies a KeySet for "same keys?": the fingerprints per state and the set of denied
 * fingerprints. PEM spelling, denied keys' addresses and times, `at` and `by` do not count, so a
 * record applied on another master and read back from its files has the same digest (no echo loop).
 */
export function digestOf(set: KeySet): string {
  if (isEmpty(set)) return NO_KEYS;
  const denied = [...new Set(set.denied.map((d) => d.fingerprint))].sort();
  const body = JSON.stringify([set.accepted?.fingerprint ?? null, set.pending?.fingerprint ?? null, set.rejected?.fingerprint ?? null, denied]);
  return createHash('sha256').update(body).digest('base64url').slice(0, 27);
}

export function encodeRecord(set: KeySet, by: string, at: number): string {
  const record: KeyRecordJson = { v: KEY_RECORD_VERSION, at, by };
  for (const state of SINGLE_STATES) {
    const key = set[state];
    if (key !== undefined) record[state] = key.pem;
  }
  if (set.denied.length > 0) {
    record.denied = set.denied.map((d) => ({
      pem: d.pem,
      ...(d.remote === undefined ? {} : { remote: d.remote }),
      ...(d.firstSeen === undefined ? {} : { firstSeen: d.firstSeen }),
      ...(d.lastSeen === undefined ? {} : { lastSeen: d.lastSeen }),
    }));
  }
  return JSON.stringify(record);
}

const MAX_PEM_LENGTH = 4096;
const MAX_REMOTE_LENGTH = 300;

function invalid(why: string): BrineError {
  return new BrineError('NATS_KV_VALUE_INVALID', `not a brine key record: ${why}`);
}

/** A public key PEM from a record: parsed, never a private key or a certificate. */
function keyPem(value: unknown, field: string): KeyPem {
  if (typeof value !== 'string' || value.length > MAX_PEM_LENGTH) throw invalid(`${field} is not a PEM string of at most ${MAX_PEM_LENGTH} characters`);
  if (/PRIVATE KEY|CERTIFICATE/.test(value)) throw invalid(`${field} holds a private key or a certificate, not a public key`);
  try {
    toPublicKey(value);
    return { pem: value, fingerprint: fingerprint(value) };
  } catch (err) {
    throw new BrineError('NATS_KV_VALUE_INVALID', `not a brine key record: ${field} is not a public key`, { cause: err });
  }
}

function optionalTime(value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw invalid(`${field} is not a time in ms`);
  return value;
}

/** Parses and checks a bucket value; anything else than a v1 record is NATS_KV_VALUE_INVALID. */
export function parseRecord(bytes: Uint8Array | string): KeySet & { at: number; by: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(typeof bytes === 'string' ? bytes : Buffer.from(bytes).toString('utf8'));
  } catch {
    throw invalid('the value is not JSON');
  }
  if (!isPlainObject(raw)) throw invalid('the value is not a JSON object');
  const r = raw;
  if (r.v !== KEY_RECORD_VERSION) throw invalid(`unknown record version ${JSON.stringify(r.v)}`);
  const at = optionalTime(r.at, 'at');
  if (at === undefined) throw invalid('at is missing');
  if (typeof r.by !== 'string' || r.by.length > MAX_ID_LENGTH) throw invalid('by is not a master name');
  const set: KeySet = { denied: [] };
  for (const state of SINGLE_STATES) if (r[state] !== undefined) set[state] = keyPem(r[state], state);
  if (r.denied !== undefined) {
    if (!Array.isArray(r.denied) || r.denied.length > DENIED_KEYS_PER_ID) throw invalid(`denied is not a list of at most ${DENIED_KEYS_PER_ID} keys`);
    for (const [i, d] of r.denied.entries()) {
      if (!isPlainObject(d)) throw invalid(`denied[${i}] is not an object`);
      const entry = d;
      const key = keyPem(entry.pem, `denied[${i}].pem`);
      if (entry.remote !== undefined && (typeof entry.remote !== 'string' || entry.remote.length > MAX_REMOTE_LENGTH)) throw invalid(`denied[${i}].remote is not an address`);
      const firstSeen = optionalTime(entry.firstSeen, `denied[${i}].firstSeen`);
      const lastSeen = optionalTime(entry.lastSeen, `denied[${i}].lastSeen`);
      set.denied.push({
        ...key,
        ...(typeof entry.remote === 'string' ? { remote: entry.remote } : {}),
        ...(firstSeen === undefined ? {} : { firstSeen }),
        ...(lastSeen === undefined ? {} : { lastSeen }),
      });
    }
  }
  return { ...set, at, by: r.by };
}

/** The ID's keys as this master's files hold them (PKI_KEY_INVALID for a damaged file). */
export function readLocal(keys: KeyStore, id: string): KeySet {
  const set: KeySet = { denied: keys.deniedKeys(id) };
  for (const state of SINGLE_STATES) {
    const pem = keys.read(state, id);
    if (pem !== undefined) set[state] = { pem, fingerprint: fingerprint(pem) };
  }
  return set;
}

/**
 * Makes the ID's files hold exactly `set`. New keys are written before old ones are removed, so
 * a sign-in in between never finds the ID without keys (and never records a fresh pending key).
 */
export function applyLocal(keys: KeyStore, id: string, set: KeySet): void {
  const local = readLocalTolerant(keys, id);
  for (const state of SINGLE_STATES) {
    const want = set[state];
    if (want !== undefined && local[state]?.fingerprint !== want.fingerprint) keys.write(state, id, want.pem);
  }
  for (const state of SINGLE_STATES) if (set[state] === undefined && local[state] !== undefined) keys.remove(id, state);
  const want = new Set(set.denied.map((d) => d.fingerprint));
  if (want.size === 0) {
    if (local.denied.length > 0 || keys.read('denied', id) !== undefined) keys.remove(id, 'denied');
    return;
  }
  const have = new Set(local.denied.map((d) => d.fingerprint));
  // oldest first, so minions_denied/<id> ends up holding the most recently seen key, as locally
  const missing = set.denied.filter((d) => !have.has(d.fingerprint)).sort((a, b) => (a.lastSeen ?? 0) - (b.lastSeen ?? 0));
  for (const d of missing) keys.recordDenied(id, d.pem, { remote: d.remote ?? 'unknown', at: d.lastSeen ?? d.firstSeen ?? Date.now() });
  for (const d of local.denied) if (!want.has(d.fingerprint)) keys.forgetDenied(id, d.fingerprint);
}

/** Local keys where a damaged file counts as absent (applying a record replaces it). */
function readLocalTolerant(keys: KeyStore, id: string): KeySet {
  const set: KeySet = { denied: keys.deniedKeys(id) };
  for (const state of SINGLE_STATES) {
    try {
      const pem = keys.read(state, id);
      if (pem !== undefined) set[state] = { pem, fingerprint: fingerprint(pem) };
    } catch {
      set[state] = { pem: '', fingerprint: 'damaged' };
    }
  }
  return set;
}

/** What to do with one ID, given the digests of its local keys, the bucket's and the last agreed. */
export type MergeDecision = 'same' | 'apply' | 'publish' | 'conflict';

/**
 * The three-way merge. `remote` undefined: the bucket has no entry at all (never written, or a
 * new bucket); NO_KEYS: a delete marker. `base` undefined: this master never agreed with the
 * bucket on this ID (first start, or a master joining with keys of its own).
 * - apply: the bucket changed, the files did not -> write the files.
 * - publish: the files changed, the bucket did not -> write the bucket (compare-and-set).
 * - conflict: both changed -> the bucket wins (it is what the other masters already hold), logged.
 * A master without a base for an ID that the bucket knows takes the bucket's keys (a conflict only
 * when it had different keys of its own).
 */
export function decideMerge(local: string, remote: string | undefined, base: string | undefined): MergeDecision {
  if (remote === undefined) return local === NO_KEYS ? 'same' : 'publish';
  if (local === remote) return 'same';
  if (base === undefined) return local === NO_KEYS ? 'apply' : 'conflict';
  if (local === base) return 'apply';
  if (remote === base) return 'publish';
  return 'conflict';
}
