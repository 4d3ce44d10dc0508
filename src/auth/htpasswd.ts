// Checking a password against one htpasswd hash, as Apache's htpasswd writes them: bcrypt
// ($2y$, -B), MD5 ($apr1$, -m; and glibc's $1$), SHA1 ({SHA}, -s) and plain text (-p). Other
// schemes (DES crypt, SHA-crypt $5$/$6$) are refused by name rather than guessed at.

import { createHash, timingSafeEqual } from 'node:crypto';
import { BrineError } from '../util/errors.js';
import { bcryptVerify, BCRYPT_MAX_COST, isBcryptHash } from './bcrypt.js';
import { md5CryptVerify } from './md5-crypt.js';

const same = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

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
