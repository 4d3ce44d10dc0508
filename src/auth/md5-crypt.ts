// MD5-crypt as Apache's htpasswd -m writes it ($apr1$) and glibc's $1$: the same algorithm
// (Poul-Henning Kamp's md5crypt) with a different magic string.

import { createHash, timingSafeEqual } from 'node:crypto';

const ITOA64 = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

const md5 = (...parts: Buffer[]): Buffer => {
  const h = createHash('md5');
  for (const p of parts) h.update(p);
  return h.digest();
};

function to64(value: number, n: number): string {
  let out = '';
  let v = value;
  for (let i = 0; i < n; i++) {
    out += ITOA64[v & 0x3f];
    v >>>= 6;
  }
  return out;
}

/** The md5-crypt string for `password` with `magic` ('$1$' or '$apr1$') and up to 8 salt chars. */
export function md5Crypt(password: string, magic: '$1$' | '$apr1$', saltText: string): string {
  const pw = Buffer.from(password, 'utf8');
  const salt = Buffer.from(saltText.slice(0, 8), 'utf8');
  const alt = md5(pw, salt, pw);
  const ctx = createHash('md5');
  ctx.update(pw);
  ctx.update(Buffer.from(magic));
  ctx.update(salt);
  for (let pl = pw.length; pl > 0; pl -= 16) ctx.update(alt.subarray(0, Math.min(16, pl)));
  for (let i = pw.length; i > 0; i >>>= 1) ctx.update(i & 1 ? Buffer.from([0]) : pw.subarray(0, 1));
  let fin: Buffer = ctx.digest();
  for (let i = 0; i < 1000; i++) {
    const parts: Buffer[] = [i & 1 ? pw : fin];
    if (i % 3) parts.push(salt);
    if (i % 7) parts.push(pw);
    parts.push(i & 1 ? fin : pw);
    fin = md5(...parts);
  }
  const f = fin;
  const out =
    to64((f[0]! << 16) | (f[6]! << 8) | f[12]!, 4) +
    to64((f[1]! << 16) | (f[7]! << 8) | f[13]!, 4) +
    to64((f[2]! << 16) | (f[8]! << 8) | f[14]!, 4) +
    to64((f[3]! << 16) | (f[9]! << 8) | f[15]!, 4) +
    to64((f[4]! << 16) | (f[10]! << 8) | f[5]!, 4) +
    to64(f[11]!, 2);
  return `${magic}${salt.toString('utf8')}$${out}`;
}

const MD5_RE = /^(\$apr1\$|\$1\$)([^$]{0,8})\$([./0-9A-Za-z]{22})$/;

/** Checks a $apr1$/$1$ hash; undefined when `hash` is not one. */
export function md5CryptVerify(password: string, hash: string): boolean | undefined {
  const m = MD5_RE.exec(hash);
  if (!m) return undefined;
  const computed = Buffer.from(md5Crypt(password, m[1] as '$1$' | '$apr1$', m[2]!));
  const expected = Buffer.from(hash);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}
