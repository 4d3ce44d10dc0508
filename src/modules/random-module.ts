// random.rand_int (salt/modules/mod_random.py): Python's random.randint, seeded with
// random.seed(seed) when a seed is given. Trees seed it with the minion id to spread cron jobs
// over the hour (`rand_int(0, 59, seed=grains['id'])`), so a seeded call must give the number
// Salt gives on the same host, or a migrated job moves: this is CPython's Mersenne Twister
// (random.seed version 2, init_by_array, getrandbits, _randbelow). Not for secrets.

import { createHash, randomInt } from 'node:crypto';
import { BrineError } from '../util/errors.js';
import type { ModuleFunction } from './types.js';
import { defineFunction } from './define-function.js';

const N = 624;
const M = 397;

/** CPython's _random.Random: MT19937 seeded as random.seed(x) seeds it. */
class PythonRandom {
  private readonly mt = new Uint32Array(N);
  private mti = N + 1;

  constructor(seed: string | number) {
    this.initByArray(keyOf(seed));
  }

  private initGenrand(s: number): void {
    this.mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = this.mt[i - 1]! ^ (this.mt[i - 1]! >>> 30);
      this.mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    this.mti = N;
  }

  private initByArray(key: readonly number[]): void {
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const prev = this.mt[i - 1]! ^ (this.mt[i - 1]! >>> 30);
      this.mt[i] = ((this.mt[i]! ^ Math.imul(prev, 1664525)) + key[j]! + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        this.mt[0] = this.mt[N - 1]!;
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = this.mt[i - 1]! ^ (this.mt[i - 1]! >>> 30);
      this.mt[i] = ((this.mt[i]! ^ Math.imul(prev, 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        this.mt[0] = this.mt[N - 1]!;
        i = 1;
      }
    }
    this.mt[0] = 0x80000000;
  }

  private next32(): number {
    if (this.mti >= N) {
      for (let kk = 0; kk < N; kk++) {
        const y = (this.mt[kk]! & 0x80000000) | (this.mt[(kk + 1) % N]! & 0x7fffffff);
        this.mt[kk] = this.mt[(kk + M) % N]! ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      this.mti = 0;
    }
    let y = this.mt[this.mti++]!;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** random.getrandbits(k), k <= 32. */
  private bits(k: number): number {
    return this.next32() >>> (32 - k);
  }

  /** random.randint(a, b): _randbelow by rejection over getrandbits(bit_length(width)). */
  randint(a: number, b: number): number {
    const width = b - a + 1;
    const k = width.toString(2).length;
    let r = this.bits(k);
    while (r >= width) r = this.bits(k);
    return a + r;
  }
}

/** random.seed(x) version 2: text -> its bytes followed by their SHA-512, as a big integer; ints -> abs(x); as 32-bit words, low first. */
function keyOf(seed: string | number): number[] {
  let n: bigint;
  if (typeof seed === 'string') {
    const bytes = Buffer.from(seed, 'utf8');
    const all = Buffer.concat([bytes, createHash('sha512').update(bytes).digest()]);
    n = BigInt(`0x${all.toString('hex')}`);
  } else {
    n = BigInt(Math.abs(seed));
  }
  const key: number[] = [];
  while (n > 0n) {
    key.push(Number(n & 0xffffffffn));
    n >>= 32n;
  }
  return key.length === 0 ? [0] : key;
}

/** Python's random.randint(start, end), after random.seed(seed) when a seed is given. */
export function pythonRandint(start: number, end: number, seed?: string | number): number {
  if (seed === undefined) return randomInt(start, end + 1);
  return new PythonRandom(seed).randint(start, end);
}

export const randomFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'random.rand_int',
    doc: "A random integer from start to end (both included); with seed, the number Python's random.seed(seed) gives, as in Salt.",
    params: [
      { name: 'start', type: 'int', default: 1, doc: 'smallest value' },
      { name: 'end', type: 'int', default: 10, doc: 'largest value' },
      { name: 'seed', type: 'any', doc: 'a text or integer seed: the same seed gives the same number (e.g. the minion id)' },
    ],
    run: (_ctx, a) => {
      const { start, end, seed } = a.named;
      if (end < start) throw new BrineError('BAD_ARGUMENTS', `random.rand_int: empty range for randrange() (${start}, ${end + 1}); give end >= start`);
      // one 32-bit draw per try, as CPython draws for ranges up to 2^32
      if (end - start >= 2 ** 32) throw new BrineError('BAD_ARGUMENTS', 'random.rand_int: ranges wider than 2^32 are not supported by brine; split the range');
      if (seed !== undefined && seed !== null && typeof seed !== 'string' && !(typeof seed === 'number' && Number.isInteger(seed))) {
        throw new BrineError('BAD_ARGUMENTS', `random.rand_int: seed must be a text or an integer, got ${JSON.stringify(seed)}`);
      }
      return pythonRandint(start, end, seed === null ? undefined : (seed as string | number | undefined));
    },
  }),
];
