// What `brine nats server-config` computes: from the operator state and the masters' public
// keys, the operator JWT and the starting account JWTs, rendered into one server's config.

import { createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { BrineError } from '../util/errors.js';
import { type AccountKind, type AccountPolicy, accountClaims, DEFAULT_ACCOUNT_POLICY, operatorJwt, signAccount } from './authority.js';
import type { NkeySigner } from './nkeys.js';
import type { OperatorState } from './operator-store.js';
import { renderServerConfig, type ServerConfigInput } from './server-config.js';

const ED25519_SPKI_PREFIX_LENGTH = 12;

/** The raw Ed25519 public key of a master from its public key (PEM); P-256 is NATS_KEY_UNSUPPORTED. */
export function masterRawKey(key: KeyObject, what: string): Buffer {
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new BrineError('NATS_KEY_UNSUPPORTED', `${what} is a ${key.asymmetricKeyType ?? 'unknown'} key; a master on NATS signs with an Ed25519 key`);
  }
  return key.export({ type: 'spki', format: 'der' }).subarray(ED25519_SPKI_PREFIX_LENGTH);
}

/** Reads another master's `master.pub` (SPKI PEM) given with --master-key. */
export function readMasterPublicKey(path: string): Buffer {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (err) {
    throw new BrineError('CONFIG_NOT_FOUND', `cannot read the master key ${path}`, { cause: err });
  }
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch (err) {
    throw new BrineError('PKI_KEY_INVALID', `${path} is not a PEM public key (give the master.pub of each master)`, { cause: err });
  }
  return masterRawKey(key, path);
}

export interface ServerSetup extends Omit<ServerConfigInput, 'operatorJwt' | 'systemAccount' | 'preload'> {
  operator: OperatorState;
  /** This master's signer plus the raw public keys of the other masters. */
  masters: readonly Buffer[];
  policy?: AccountPolicy;
}

/** The masters' keys without duplicates, in the order given. */
export function uniqueKeys(keys: readonly Buffer[]): Buffer[] {
  const out: Buffer[] = [];
  for (const k of keys) if (!out.some((o) => o.equals(k))) out.push(k);
  return out;
}

export function serverConfigText(setup: ServerSetup): string {
  const { operator, masters, policy = DEFAULT_ACCOUNT_POLICY, ...rest } = setup;
  if (masters.length === 0) throw new BrineError('USAGE', 'at least one master key is needed');
  const signer: NkeySigner = operator.operator;
  const preload: Record<string, string> = {};
  const kinds: readonly AccountKind[] = ['sys', 'brine', 'enrol'];
  for (const kind of kinds) {
    // the same iat on every run: see OperatorState.iat
    preload[operator.accounts[kind]] = signAccount(accountClaims(kind, signer.publicKey('operator'), operator.accounts, masters, policy, operator.iat), signer, operator.iat);
  }
  return renderServerConfig({ ...rest, operatorJwt: operatorJwt(signer, masters, operator.accounts, operator.iat), systemAccount: operator.accounts.sys, preload });
}
