// The NATS operator's own state, kept beside the master key in `<pki_dir>/nats/`: the operator
// seed (the root of brine's NATS trust chain, 0600) and the three account public keys. The
// accounts' private halves are discarded when made: masters sign accounts and users with their
// own keys (listed as signing keys), so nothing needs them. Only `brine nats server-config`
// reads this directory, to sign the operator JWT and the starting account JWTs.

import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomicSync } from '../util/atomic-write.js';
import { isPlainObject } from '../protocol/index.js';
import { BrineError, errnoCode } from '../util/errors.js';
import type { AccountKeys } from './authority.js';
import { decodePublicNkey, decodeSeed, encodeSeed, NkeySigner } from './nkeys.js';

export interface OperatorState {
  operator: NkeySigner;
  accounts: AccountKeys;
  /**
   * When the state was made (unix seconds): the issue time of the operator JWT and of the
   * preloaded account JWTs, so every run of server-config preloads the same JWTs, and an account
   * JWT a master pushed later (revocations) is always newer than the preload and is kept.
   */
  iat: number;
  /** Whether this call made the state (first run). */
  created: boolean;
}

export const OPERATOR_SEED_FILE = 'operator.nk';
export const ACCOUNTS_FILE = 'accounts.json';

function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return undefined;
    throw new BrineError('PKI_UNWRITABLE', `cannot read ${path}`, { cause: err });
  }
}

const freshKey = (): NkeySigner => NkeySigner.fromKey(generateKeyPairSync('ed25519').privateKey);

function parseAccounts(text: string, path: string): { accounts: AccountKeys; iat: number } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new BrineError('NATS_KEY_INVALID', `${path} is not JSON`, { cause: err });
  }
  const p = isPlainObject(parsed) ? parsed : {};
  const accountKey = (k: keyof AccountKeys): string => {
    const v = p[k];
    if (typeof v !== 'string' || decodePublicNkey(v).role !== 'account') throw new BrineError('NATS_KEY_INVALID', `${path}: "${k}" is not an account public key`);
    return v;
  };
  const accounts: AccountKeys = { brine: accountKey('brine'), enrol: accountKey('enrol'), sys: accountKey('sys') };
  const iat = p.iat;
  if (typeof iat !== 'number' || !Number.isSafeInteger(iat) || iat <= 0) throw new BrineError('NATS_KEY_INVALID', `${path}: "iat" is not a positive whole number of seconds`);
  return { accounts, iat };
}

/**
 * The account public keys only (`accounts.json`, no secret): what a master needs to issue users
 * and push account updates. A master that did not make the operator state gets a copy of it.
 */
export function loadAccounts(dir: string): { accounts: AccountKeys; iat: number } {
  const path = join(dir, ACCOUNTS_FILE);
  const text = readIfExists(path);
  if (text === undefined) {
    throw new BrineError(
      'CONFIG_NOT_FOUND',
      `${path} does not exist: run \`brine nats server-config\` on this master first, or copy ${ACCOUNTS_FILE} from the master that made the NATS operator (it holds no secret)`,
    );
  }
  return parseAccounts(text, path);
}

/** Loads the operator state from `dir`, making it on first use (both files or neither). */
export function loadOrCreateOperator(dir: string): OperatorState {
  const seedPath = join(dir, OPERATOR_SEED_FILE);
  const accountsPath = join(dir, ACCOUNTS_FILE);
  const seedText = readIfExists(seedPath);
  const accountsText = readIfExists(accountsPath);
  if (seedText !== undefined && accountsText !== undefined) {
    const { role, seed } = decodeSeed(seedText.trim());
    if (role !== 'operator') throw new BrineError('NATS_KEY_INVALID', `${seedPath} holds a ${role} seed, not an operator seed`);
    return { operator: NkeySigner.fromSeed(seed), ...parseAccounts(accountsText, accountsPath), created: false };
  }
  if (seedText !== undefined || accountsText !== undefined) {
    throw new BrineError(
      'NATS_KEY_INVALID',
      `${dir} holds only one of ${OPERATOR_SEED_FILE} and ${ACCOUNTS_FILE}; restore the other from your backup (making new ones would orphan every NATS server already configured)`,
    );
  }
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new BrineError('PKI_UNWRITABLE', `cannot create ${dir}`, { cause: err });
  }
  const operator = freshKey();
  const accounts: AccountKeys = { brine: freshKey().publicKey('account'), enrol: freshKey().publicKey('account'), sys: freshKey().publicKey('account') };
  const iat = Math.floor(Date.now() / 1000);
  try {
    writeFileAtomicSync(seedPath, `${encodeSeed('operator', operator.seed())}\n`, 0o600);
    writeFileAtomicSync(accountsPath, `${JSON.stringify({ ...accounts, iat }, null, 2)}\n`, 0o644);
  } catch (err) {
    throw new BrineError('PKI_UNWRITABLE', `cannot write the NATS operator state in ${dir}`, { cause: err });
  }
  return { operator, accounts, iat, created: true };
}
