// Checking a password against one htpasswd hash, as Apache's htpasswd writes them: bcrypt
// ($2y$, -B), MD5 ($apr1$, -m; and glibc's $1$), SHA1 ({SHA}, -s) and plain text (-p). Other
// schemes (DES crypt, SHA-crypt $5$/$6$) are refused by name rather than guessed at.

import { createHash, timingSafeEqual } from 'node:crypto';
import apacheMd5 from 'apache-md5';
import { BrineError } from '../util/errors.js';
import { bcryptVerify, BCRYPT_MAX_COST, isBcryptHash } from './bcrypt.js';

const same = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

// apache-md5 is CommonJS (`module.exports = fn`) while its types declare an ES default export
const aprMd5 = apacheMd5 as unknown as (password: string, salt: string) => string;

// apache-md5 hashes a string's UTF-16 code units as single bytes (Node's 'ascii' is latin1): a
// string spelling the UTF-8 bytes makes it hash what htpasswd and openssl passwd hash.
const asBytes = (text: string): string => Buffer.from(text, 'utf8').toString('latin1');

/** The MD5-crypt string (Apache's $apr1$, glibc's $1$) of `password` with up to 8 salt chars. */
export function md5Crypt(password: string, magic: '$1$' | '$apr1$', salt: string): string {
  return Buffer.from(aprMd5(asBytes(password), `${magic}${asBytes(salt.slice(0, 8))}$`), 'latin1').toString('utf8');
}

const MD5_RE = /^(\$apr1\$|\$1\$)([^$]{0,8})\$([./0-9A-Za-z]{22})$/;

/** Checks a $apr1$/$1$ hash; undefined when `hash` is not one. */
export function md5CryptVerify(password: string, hash: string): boolean | undefined {
  const m = MD5_RE.exec(hash);
  if (!m) return undefined;
  return same(md5Crypt(password, m[1] as '$1$' | '$apr1$', m[2]!), hash);
}

/** The scheme of an htpasswd hash, for messages: never the hash itself. */
export function htpasswdScheme(hash: string): string {
  if (isBcryptHash(hash)) return 'bcrypt';
  if (hash.startsWith('$apr1$')) return 'apr1-md5';
  if (hash.startsWith('$1$')) return 'md5-crypt';
  if (hash.startsWith('{SHA}')) return 'sha1';
  if (hash.startsWith('$5$')) return 'sha256-crypt';
  if (hash.startsWith('$6$')) return 'sha512-crypt';
  const id = /^\$([^$]{1,16})\$/.exec(hash);
  if (id) return `$${id[1]}$`;
  if (/^[./0-9A-Za-z]{13}$/.test(hash)) return 'des-crypt';
  return 'plaintext';
}

function unsupported(scheme: string, user: string, why = ''): BrineError {
  return new BrineError('HTPASSWD_HASH_UNSUPPORTED', `the htpasswd entry of '${user}' uses ${scheme}${why}, which brine cannot check; re-create it with htpasswd -B (bcrypt), -m (MD5) or -s (SHA1)`, {
    details: { scheme },
  });
}

/** True when `password` matches `hash`; HTPASSWD_HASH_UNSUPPORTED for a scheme brine cannot check. */
export async function htpasswdVerify(password: string, hash: string, user: string): Promise<boolean> {
  const scheme = htpasswdScheme(hash);
  switch (scheme) {
    case 'bcrypt': {
      const ok = await bcryptVerify(password, hash);
      if (ok === undefined) throw unsupported(/^\$2x\$/.test(hash) ? 'bcrypt $2x$' : 'bcrypt', user, ` with a malformed hash or a cost above ${BCRYPT_MAX_COST}`);
      return ok;
    }
    case 'apr1-md5':
    case 'md5-crypt': {
      const ok = md5CryptVerify(password, hash);
      if (ok === undefined) throw unsupported(scheme, user, ' with a malformed hash');
      return ok;
    }
    case 'sha1':
      return same(`{SHA}${createHash('sha1').update(password, 'utf8').digest('base64')}`, hash);
    case 'plaintext':
      return same(password, hash);
    default:
      throw unsupported(scheme, user);
  }
}
