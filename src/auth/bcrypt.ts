// bcrypt ($2a$, $2b$, $2y$) for htpasswd files, computed by bcryptjs. A login's check runs in a
// worker thread (bcrypt-worker.ts): bcryptjs's own async form works in 100 ms slices, long enough
// to stall the master's sessions, and a cost-12 hash is over a second of work.

import { timingSafeEqual } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { hashSync } from 'bcryptjs';
import { BrineError } from '../util/errors.js';

/** The most expensive cost accepted: 2^20 rounds already takes seconds of a core. */
export const BCRYPT_MAX_COST = 16;

const HASH_RE = /^\$(2[aby])\$(\d{2})\$([./A-Za-z0-9]{22})([./A-Za-z0-9]{31})$/;

export function isBcryptHash(hash: string): boolean {
  return /^\$2[abyx]?\$/.test(hash);
}

const setting = (variant: string, cost: number, salt22: string): string => `$${variant}$${String(cost).padStart(2, '0')}$${salt22}`;

/** The bcrypt hash of `password` with this variant, cost and 22-character salt (synchronous). */
export function bcryptHash(password: string, variant: '2a' | '2b' | '2y', cost: number, salt22: string): string {
  return hashSync(password, setting(variant, cost, salt22));
}

// One worker per core at most: parallel logins queue instead of each holding a V8 isolate.
const MAX_WORKERS = Math.max(1, availableParallelism());
let running = 0;
const waiting: Array<() => void> = [];

async function inWorkerSlot<T>(fn: () => Promise<T>): Promise<T> {
  // a finished check hands its slot straight to the next waiter, so `running` never overshoots
  if (running < MAX_WORKERS) running++;
  else await new Promise<void>((resolve) => waiting.push(resolve));
  try {
    return await fn();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

/** The same in a worker thread: a login never stalls the master's sessions. */
export function bcryptHashAsync(password: string, variant: '2a' | '2b' | '2y', cost: number, salt22: string): Promise<string> {
  return inWorkerSlot(
    () =>
      new Promise((resolve, reject) => {
        const worker = new Worker(new URL('./bcrypt-worker.js', import.meta.url), { workerData: { password, setting: setting(variant, cost, salt22) } });
        worker.once('message', (hash: string) => resolve(hash));
        worker.once('error', reject);
        // after the message this rejects a settled promise: no effect
        worker.once('exit', (code) => reject(new BrineError('INTERNAL', `the bcrypt worker exited with code ${code} before answering`)));
      }),
  );
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
