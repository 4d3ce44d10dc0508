// A node's own identity in its pki_dir: an Ed25519 key pair and a self-signed certificate, made
// at first start and loaded afterwards. The key is the identity; the certificate is re-made freely.
// The REST API's HTTPS key is made the same way (`api`, EC P-256: browsers accept no Ed25519).

import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BrineError, errorMessage, errnoCode } from '../util/errors.js';
import { writeFileAtomicSync } from '../util/atomic-write.js';
import { certificateProblem, createSelfSignedCert, type AltNames } from './certificate.js';
import { fingerprint, toPublicKey } from './fingerprint.js';
import { keyTypeProblem, SUPPORTED_KEY_TYPES } from './key-type.js';

export interface Identity {
  /** PKCS#8 PEM. Never log it. */
  privateKeyPem: string;
  certPem: string;
  /** SPKI PEM: what the master stores in its key store. */
  publicKeyPem: string;
  fingerprint: string;
  paths: { key: string; pub: string; cert: string };
}

export interface IdentityOptions {
  pkiDir: string;
  name: 'master' | 'minion' | 'api';
  commonName: string;
  /** The type of a key made here (an existing key is kept whatever its type); default Ed25519. */
  keyType?: 'ed25519' | 'ec-p256';
  /** subjectAltName of a certificate made here (for clients that check host names). */
  altNames?: AltNames;
}

const KEY_MODE = 0o600;
const PUB_MODE = 0o644;
const DIR_MODE = 0o700;

/**
 * Loads `<name>.pem/.pub/.crt` from pkiDir, creating whatever is missing. An existing private key
 * is never replaced (that would change the node's identity); the public key and certificate are
 * re-derived from it when they are missing, stale or damaged.
 */
export async function loadOrCreateIdentity(opts: IdentityOptions): Promise<Identity> {
  const paths = { key: join(opts.pkiDir, `${opts.name}.pem`), pub: join(opts.pkiDir, `${opts.name}.pub`), cert: join(opts.pkiDir, `${opts.name}.crt`) };
  ensureDirectory(opts.pkiDir);

  let privateKey: KeyObject;
  let privateKeyPem = readIfExists(paths.key);
  if (privateKeyPem === undefined) {
    privateKey = opts.keyType === 'ec-p256' ? generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey : generateKeyPairSync('ed25519').privateKey;
    privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    write(paths.key, privateKeyPem, KEY_MODE); // first, so a crash later still keeps the identity
  } else {
    privateKey = parsePrivateKey(privateKeyPem, paths.key);
    tightenKeyMode(paths.key);
  }

  const publicKeyPem = toPublicKey(privateKey).export({ type: 'spki', format: 'pem' }) as string;
  if (readIfExists(paths.pub) !== publicKeyPem) write(paths.pub, publicKeyPem, PUB_MODE);

  let certPem = readIfExists(paths.cert);
  if (certPem === undefined || certificateProblem(certPem, privateKey, opts.commonName) !== undefined) {
    certPem = await createSelfSignedCert(privateKey, opts.commonName, new Date(), opts.altNames);
    write(paths.cert, certPem, PUB_MODE);
  }

  return { privateKeyPem, certPem, publicKeyPem, fingerprint: fingerprint(privateKey), paths };
}

function ensureDirectory(dir: string): void {
  try {
    // mkdir with recursive does not fail on an existing directory and applies the mode only
    // to directories it creates, which is what we want for an operator-made pki_dir.
    mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  } catch (err) {
    throw unwritable(dir, err, 'cannot create the PKI directory');
  }
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch (err) {
    throw unwritable(dir, err, 'cannot inspect the PKI directory');
  }
  if (!isDir) throw new BrineError('PKI_UNWRITABLE', `PKI directory ${dir} exists but is not a directory; move it aside or set pki_dir to a directory`, { details: { path: dir } });
}

function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return undefined;
    throw new BrineError('PKI_KEY_INVALID', `cannot read ${path}: ${errorMessage(err)}; fix its permissions so the daemon user can read it`, { cause: err, details: { path } });
  }
}

function parsePrivateKey(pem: string, path: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch (err) {
    throw new BrineError('PKI_KEY_INVALID', `private key ${path} cannot be parsed (${errorMessage(err)}); move it aside to generate a new identity, which the master must then accept again`, {
      cause: err,
      details: { path },
    });
  }
  // the same rule the master applies to minion keys, so a node never makes a key it would refuse
  const problem = keyTypeProblem(toPublicKey(key));
  if (problem !== undefined) {
    throw new BrineError('PKI_KEY_INVALID', `private key ${path} is ${problem}; brine uses ${SUPPORTED_KEY_TYPES} keys. Move it aside to generate a new identity`, { details: { path } });
  }
  return key;
}

// A private key readable by group or others is narrowed to 0600 rather than refused: the fix is
// obvious and safe, and refusing would take a working node down. 0400 (Salt's choice) is kept.
function tightenKeyMode(path: string): void {
  try {
    if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, KEY_MODE);
  } catch {
    // a read-only pki_dir still lets the node run with the key as it is
  }
}

function write(path: string, data: string, mode: number): void {
  try {
    writeFileAtomicSync(path, data, mode);
  } catch (err) {
    throw unwritable(path, err, 'cannot write');
  }
}

function unwritable(path: string, err: unknown, what: string): BrineError {
  const reason = errorMessage(err);
  return new BrineError('PKI_UNWRITABLE', `${what} ${path}: ${reason}. Make the directory writable by the user running brine, or set pki_dir to a writable path`, { cause: err, details: { path } });
}
