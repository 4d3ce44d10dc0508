// x509.private_key_managed as Salt 3007's x509_v2 (salt/states/x509_v2.py): keep the key at
// `name` if it has the algorithm, size and passphrase asked for, else create (or recreate) it.
// Keys come from node:crypto (OpenSSL underneath); nothing cryptographic is written here.

import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import { defineState, type StateFunction } from '../../types.js';
import { applyPerms, pathPermChanges } from '../file-perms.js';
import { stateResult } from '../state-result.js';
import { FILE_PARAMS, filePerms, writeSecret } from './x509-file.js';
import { errorMessage } from '../../../util/errors.js';

const CURVES: Record<string, number> = { prime256v1: 256, secp384r1: 384, secp521r1: 521 };
const CURVE_OF: Record<number, string> = { 256: 'prime256v1', 384: 'secp384r1', 521: 'secp521r1' };

type Loaded = { key: KeyObject } | { problem: 'bad-decrypt' | 'not-a-key' | 'unencrypted' | 'encrypted' };

/** Salt's x509util.load_privkey outcomes, from a PEM file and the passphrase given. */
export function loadPrivateKey(text: string, passphrase: string | undefined): Loaded {
  const encrypted = text.includes('ENCRYPTED PRIVATE KEY') || /Proc-Type: 4,ENCRYPTED/.test(text);
  if (!encrypted && passphrase) {
    try {
      createPrivateKey(text);
      return { problem: 'unencrypted' };
    } catch {
      return { problem: 'not-a-key' };
    }
  }
  if (encrypted && !passphrase) return { problem: 'encrypted' };
  try {
    return { key: createPrivateKey(passphrase ? { key: text, passphrase } : text) };
  } catch {
    return { problem: encrypted ? 'bad-decrypt' : 'not-a-key' };
  }
}

function newKey(algo: string, keysize: number | undefined): KeyObject {
  if (algo === 'rsa') return generateKeyPairSync('rsa', { modulusLength: keysize ?? 2048 }).privateKey;
  if (algo === 'ec') {
    const curve = CURVE_OF[keysize ?? 256];
    if (!curve) throw new Error(`Invalid keysize ${keysize} for ec; use 256, 384 or 521`);
    return generateKeyPairSync('ec', { namedCurve: curve }).privateKey;
  }
  if (algo === 'ed25519') return generateKeyPairSync('ed25519').privateKey;
  if (algo === 'ed448') return generateKeyPairSync('ed448').privateKey;
  throw new Error(`Invalid algorithm ${algo}; use rsa, ec, ed25519 or ed448`);
}

/** PKCS#8 PEM, encrypted with AES-256 when there is a passphrase (cryptography's BestAvailableEncryption). */
export function encodeKey(key: KeyObject, passphrase: string | undefined): string {
  return String(key.export(passphrase ? { type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase } : { type: 'pkcs8', format: 'pem' }));
}

const privateKeyManaged = defineState({
  name: 'x509.private_key_managed',
  // Salt's x509.private_key_managed takes **kwargs: an argument it does not name is ignored without a warning
  kwargs: true,
  doc: 'Make sure a private key (rsa, ec, ed25519, ed448; PEM) is at a path, created or recreated as needed (acts for real).',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'the path of the key' },
    { name: 'algo', type: 'string', default: 'rsa', doc: 'rsa, ec, ed25519 or ed448' },
    { name: 'keysize', type: 'int', doc: 'rsa: 2048 (default), 3072, 4096; ec: 256 (default), 384, 521' },
    { name: 'passphrase', type: 'string', doc: 'encrypt the key with it' },
    { name: 'encoding', type: 'string', default: 'pem', doc: 'only pem on brine' },
    { name: 'new', type: 'bool', default: false, doc: 'always create a new key' },
    { name: 'overwrite', type: 'bool', default: false, doc: 'replace a file that is not a key or that the passphrase cannot decrypt' },
    { name: 'pkcs12_encryption_compat', type: 'bool', default: false },
    { name: 'bits', type: 'int', doc: "the old x509 module's name for keysize" },
    ...FILE_PARAMS,
  ],
  example: '/etc/pki/www.key:\n  x509.private_key_managed:\n    - keysize: 4096\n    - user: root\n    - mode: "0400"',
  run: async (ctx, a) => {
    const n = a.named;
    const name = n.name;
    const keysize = n.keysize ?? n.bits;
    if (n.encoding !== 'pem') return stateResult(name, false, `encoding ${n.encoding} is not supported by brine's x509.private_key_managed; use pem`);
    if (keysize && (n.algo === 'ed25519' || n.algo === 'ed448')) return stateResult(name, false, `keysize is an invalid parameter for ${n.algo}`);
    const perms = await filePerms('x509.private_key_managed', n, '0400');
    if ('error' in perms) return stateResult(name, false, perms.error);
    const exists = fs.existsSync(name);
    const changes: Record<string, unknown> = {};
    let current: KeyObject | undefined;
    if (exists && !n.new) {
      const loaded = loadPrivateKey(fs.readFileSync(name, 'utf8'), n.passphrase);
      if ('key' in loaded) current = loaded.key;
      else if (loaded.problem === 'bad-decrypt') {
        if (!n.overwrite) return stateResult(name, false, 'The provided passphrase cannot decrypt the private key. Pass overwrite: true to force regeneration');
        changes.passphrase = true;
      } else if (loaded.problem === 'not-a-key') {
        if (!n.overwrite)
          return stateResult(name, false, 'The existing file does not seem to be a private key formatted as DER, PEM or embedded in PKCS12. Pass overwrite: true to force regeneration');
      } else if (loaded.problem === 'unencrypted') {
        changes.passphrase = true;
        current = createPrivateKey(fs.readFileSync(name, 'utf8'));
      } else {
        if (!n.overwrite) return stateResult(name, false, 'The existing file is encrypted. Pass overwrite: true to force regeneration without passphrase');
        changes.passphrase = true;
      }
    }
    if (current) {
      const type = current.asymmetricKeyType;
      if (type !== n.algo) changes.algo = n.algo;
      else if (n.algo === 'rsa' || n.algo === 'ec') {
        const want = keysize ?? (n.algo === 'rsa' ? 2048 : 256);
        const d = current.asymmetricKeyDetails;
        const have = n.algo === 'rsa' ? d?.modulusLength : CURVES[d?.namedCurve ?? ''];
        if (have !== want) changes.keysize = want;
      }
    } else if (exists && n.new) changes.replaced = name;
    else if (Object.keys(changes).length === 0 || !exists) changes.created = name;
    const permsDiffer = exists && Object.keys(await pathPermChanges(name, perms)).length > 0;
    if (Object.keys(changes).length === 0) {
      if (permsDiffer && !ctx.test) await applyPerms(name, perms);
      // Salt: result None only for key changes; a file.managed fix shows in its sub-state alone.
      return stateResult(name, true, 'The private key is in the correct state');
    }
    const verb = exists ? 'recreate' : 'create';
    if (ctx.test) return stateResult(name, null, `The private key would have been ${verb}d`, changes);
    // Only the passphrase changed: the same key, encoded again (Salt does not regenerate then).
    const onlyMeta = current !== undefined && Object.keys(changes).every((k) => k === 'passphrase' || k === 'encoding');
    const key = onlyMeta && current ? current : newKey(n.algo, keysize);
    try {
      await writeSecret(name, encodeKey(key, n.passphrase), perms, n.makedirs);
    } catch (err) {
      return stateResult(name, false, `Could not ${current ? 'update' : 'create'} file, see file.managed output: ${errorMessage(err)}`);
    }
    return stateResult(name, true, `The private key has been ${verb}d`, changes);
  },
});

export const x509KeyStates: readonly StateFunction[] = [privateKeyManaged];
