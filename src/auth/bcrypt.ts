// bcrypt ($2a$, $2b$, $2y$) verification for htpasswd files, in plain TypeScript: node:crypto has
// no bcrypt and no bcrypt package is a dependency. Blowfish's initial state is the fractional
// hexadecimal digits of pi, computed once (Machin's formula in BigInt) instead of a table.

import { timingSafeEqual } from 'node:crypto';

const P_WORDS = 18;
const S_WORDS = 1024;

let initial: Uint32Array | undefined;

/** arctan(1/x) scaled by 2^bits, by its Taylor series. */
function arctanInv(x: bigint, bits: bigint): bigint {
  const x2 = x * x;
  let term = (1n << bits) / x;
  let sum = term;
  let k = 1n;
  let sign = -1n;
  while (term !== 0n) {
    term /= x2;
    sum += (sign * term) / (2n * k + 1n);
    sign = -sign;
    k++;
  }
  return sum;
}

/** The first 18 + 1024 32-bit words of pi's fractional part: Blowfish's P-array and S-boxes. */
function initialState(): Uint32Array {
  if (initial) return initial;
  const words = P_WORDS + S_WORDS;
  const bits = BigInt(words * 32);
  const guard = 64n;
  const pi = 16n * arctanInv(5n, bits + guard) - 4n * arctanInv(239n, bits + guard);
  let frac = (pi >> guard) & ((1n << bits) - 1n);
  const out = new Uint32Array(words);
  for (let i = words - 1; i >= 0; i--) {
    out[i] = Number(frac & 0xffffffffn);
    frac >>= 32n;
  }
  initial = out;
  return out;
}

class Blowfish {
  readonly p: Uint32Array;
  readonly s: Uint32Array;
  private readonly lr = new Uint32Array(2);

  constructor() {
    const init = initialState();
    this.p = init.slice(0, P_WORDS);
    this.s = init.slice(P_WORDS);
  }

  private f(x: number): number {
    const s = this.s;
    return (((s[x >>> 24]! + s[256 | ((x >>> 16) & 0xff)]!) ^ s[512 | ((x >>> 8) & 0xff)]!) + s[768 | (x & 0xff)]!) >>> 0;
  }

  /** Encrypts this.lr in place. */
  encrypt(): void {
    const p = this.p;
    let l = this.lr[0]!;
    let r = this.lr[1]!;
    for (let i = 0; i < 16; i += 2) {
      l ^= p[i]!;
      r ^= this.f(l);
      r ^= p[i + 1]!;
      l ^= this.f(r);
    }
    l ^= p[16]!;
    r ^= p[17]!;
    this.lr[0] = r >>> 0;
    this.lr[1] = l >>> 0;
  }

  /** Blowfish_expandstate (data = salt) or Blowfish_expand0state (data undefined). */
  expand(key: Uint8Array, data?: Uint8Array): void {
    let j = 0;
    const word = (bytes: Uint8Array): number => {
      let w = 0;
      for (let k = 0; k < 4; k++) {
        w = ((w << 8) | bytes[j]!) >>> 0;
        j = (j + 1) % bytes.length;
      }
      return w;
    };
    for (let i = 0; i < P_WORDS; i++) this.p[i] = (this.p[i]! ^ word(key)) >>> 0;
    j = 0;
    this.lr[0] = 0;
    this.lr[1] = 0;
    const fill = (target: Uint32Array) => {
      for (let i = 0; i < target.length; i += 2) {
        if (data) {
          this.lr[0] = this.lr[0]! ^ word(data);
          this.lr[1] = this.lr[1]! ^ word(data);
        }
        this.encrypt();
        target[i] = this.lr[0]!;
        target[i + 1] = this.lr[1]!;
      }
    };
    fill(this.p);
    fill(this.s);
  }

  encryptBlock(l: number, r: number): [number, number] {
    this.lr[0] = l;
    this.lr[1] = r;
    this.encrypt();
    return [this.lr[0]!, this.lr[1]!];
  }
}

const B64 = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function b64Encode(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const c1 = bytes[i]!;
    const c2 = bytes[i + 1];
    const c3 = bytes[i + 2];
    out += B64[c1 >> 2];
    if (c2 === undefined) {
      out += B64[(c1 & 3) << 4];
      break;
    }
    out += B64[((c1 & 3) << 4) | (c2 >> 4)];
    if (c3 === undefined) {
      out += B64[(c2 & 0x0f) << 2];
      break;
    }
    out += B64[((c2 & 0x0f) << 2) | (c3 >> 6)];
    out += B64[c3 & 0x3f];
  }
  return out;
}

function b64Decode(text: string, length: number): Uint8Array | undefined {
  const bits: number[] = [];
  for (const ch of text) {
    const v = B64.indexOf(ch);
    if (v < 0) return undefined;
    bits.push(v);
  }
  const out = new Uint8Array(length);
  let o = 0;
  for (let i = 0; i < bits.length && o < length; i += 4) {
    const [a, b, c, d] = [bits[i]!, bits[i + 1] ?? 0, bits[i + 2] ?? 0, bits[i + 3] ?? 0];
    out[o++] = (a << 2) | (b >> 4);
    if (o < length) out[o++] = ((b & 0x0f) << 4) | (c >> 2);
    if (o < length) out[o++] = ((c & 3) << 6) | d;
  }
  return out;
}

/** The most expensive cost accepted: 2^20 rounds already takes seconds and blocks the master. */
export const BCRYPT_MAX_COST = 16;

const HASH_RE = /^\$(2[aby])\$(\d{2})\$([./A-Za-z0-9]{22})([./A-Za-z0-9]{31})$/;

export function isBcryptHash(hash: string): boolean {
  return /^\$2[abyx]?\$/.test(hash);
}

/** Rounds between yields to the event loop (about 2 ms of work each at any cost). */
const ROUNDS_PER_SLICE = 32;

function setup(password: string, cost: number, salt22: string): { bf: Blowfish; key: Uint8Array; salt: Uint8Array } {
  const salt = b64Decode(salt22, 16);
  if (!salt || cost < 4 || cost > 31) throw new Error('invalid bcrypt setting');
  const pw = Buffer.from(password, 'utf8');
  const key = new Uint8Array(Math.min(pw.length + 1, 72));
  key.set(pw.subarray(0, key.length));
  const bf = new Blowfish();
  bf.expand(key, salt);
  return { bf, key, salt };
}

function finish(bf: Blowfish, variant: string, cost: number, salt: Uint8Array): string {
  const magic = Buffer.from('OrpheanBeholderScryDoubt', 'latin1');
  const cdata = new Uint32Array(6);
  for (let i = 0; i < 6; i++) cdata[i] = magic.readUInt32BE(i * 4);
  for (let n = 0; n < 64; n++) {
    for (let i = 0; i < 6; i += 2) {
      const [l, r] = bf.encryptBlock(cdata[i]!, cdata[i + 1]!);
      cdata[i] = l;
      cdata[i + 1] = r;
    }
  }
  const out = Buffer.alloc(24);
  for (let i = 0; i < 6; i++) out.writeUInt32BE(cdata[i]!, i * 4);
  // the salt is re-encoded from its 16 bytes, as crypt_blowfish does
  return `$${variant}$${String(cost).padStart(2, '0')}$${b64Encode(salt)}${b64Encode(out.subarray(0, 23))}`;
}

/** The bcrypt hash of `password` with this variant, cost and 22-character salt (synchronous). */
export function bcryptHash(password: string, variant: '2a' | '2b' | '2y', cost: number, salt22: string): string {
  const { bf, key, salt } = setup(password, cost, salt22);
  const rounds = 2 ** cost;
  for (let i = 0; i < rounds; i++) {
    bf.expand(key);
    bf.expand(salt);
  }
  return finish(bf, variant, cost, salt);
}

/** The same, yielding to the event loop every few rounds: a login never stalls the master's sessions. */
export async function bcryptHashAsync(password: string, variant: '2a' | '2b' | '2y', cost: number, salt22: string): Promise<string> {
  const { bf, key, salt } = setup(password, cost, salt22);
  const rounds = 2 ** cost;
  for (let i = 0; i < rounds; i++) {
    bf.expand(key);
    bf.expand(salt);
    if (i % ROUNDS_PER_SLICE === ROUNDS_PER_SLICE - 1) await new Promise<void>((r) => setImmediate(r));
  }
  return finish(bf, variant, cost, salt);
}

/** Checks `password` against a $2a$/$2b$/$2y$ hash; undefined when the hash is not one brine can check. */
export async function bcryptVerify(password: string, hash: string): Promise<boolean | undefined> {
  const m = HASH_RE.exec(hash);
  if (!m) return undefined;
  const cost = Number(m[2]);
  if (cost < 4 || cost > BCRYPT_MAX_COST) return undefined;
  const computed = Buffer.from(await bcryptHashAsync(password, m[1] as '2a' | '2b' | '2y', cost, m[3]!));
  const expected = Buffer.from(hash);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}
