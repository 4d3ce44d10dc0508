// The enrolment file a minion on NATS starts from (`brine nats enrolment` writes it on a master):
// the bearer JWT with which a pending key may ask to sign in, the BRINE account its user JWT
// must belong to, and the masters whose JWTs it trusts. Nothing in it is secret; what it gives
// is trust, so the minion takes it only from a file its operator put there.

import { readFileSync } from 'node:fs';
import { BrineError, errorMessage, errnoCode } from '../util/errors.js';
import { isPlainObject } from '../protocol/index.js';
import { decodeJwt } from './jwt.js';
import { decodePublicNkey, encodePublicNkey } from './nkeys.js';

export const ENROLMENT_VERSION = 1;

export interface Enrolment {
  v: typeof ENROLMENT_VERSION;
  /** The ENROL bearer JWT: it may only publish the sign-in request. */
  enrolJwt: string;
  /** The BRINE account's public key (A...): an accepted minion's user JWT must name it. */
  brineAccount: string;
  /** The masters (A... account signing nkeys) whose sign-in answers the minion trusts. */
  masters: string[];
}

const invalid = (file: string, why: string): BrineError =>
  new BrineError('NATS_ENROLMENT_INVALID', `the NATS enrolment file ${file} ${why}; make it again on a master with \`brine nats enrolment -o <file>\``);

/** Reads and checks an enrolment file; NATS_ENROLMENT_INVALID says what is wrong and what to run. */
export function readEnrolment(file: string): Enrolment {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw invalid(file, `cannot be read (${errnoCode(err) ?? errorMessage(err)})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid(file, 'is not JSON');
  }
  return checkEnrolment(value, file);
}

export function checkEnrolment(value: unknown, file = 'given'): Enrolment {
  if (!isPlainObject(value)) throw invalid(file, 'is not an object');
  const e = value;
  if (e.v !== ENROLMENT_VERSION) throw invalid(file, `has version ${JSON.stringify(e.v)} (this brine reads ${ENROLMENT_VERSION})`);
  if (typeof e.enrolJwt !== 'string' || typeof e.brineAccount !== 'string' || !Array.isArray(e.masters) || e.masters.length === 0) {
    throw invalid(file, 'lacks enrolJwt, brineAccount or masters');
  }
  try {
    if (decodePublicNkey(e.brineAccount).role !== 'account') throw new Error('not an account key');
    for (const m of e.masters) if (typeof m !== 'string' || decodePublicNkey(m).role !== 'account') throw new Error('a master is not an account signing key');
    const claims = decodeJwt(e.enrolJwt);
    if (claims.nats.type !== 'user') throw new Error('the enrolment JWT is not a user JWT');
  } catch (err) {
    throw invalid(file, `holds a malformed key or JWT (${errorMessage(err)})`);
  }
  return { v: ENROLMENT_VERSION, enrolJwt: e.enrolJwt, brineAccount: e.brineAccount, masters: [...e.masters] };
}

/** The enrolment file's content for these masters (raw Ed25519 keys). */
export function makeEnrolment(enrolJwt: string, brineAccount: string, masters: readonly Buffer[]): Enrolment {
  return { v: ENROLMENT_VERSION, enrolJwt, brineAccount, masters: masters.map((m) => encodePublicNkey('account', m)) };
}

/** The raw keys of the trusted masters, for checkSigninAnswer. */
export function trustedMasterKeys(enrolment: Enrolment): Buffer[] {
  return enrolment.masters.map((m) => decodePublicNkey(m).raw);
}
