// Failed API logins, counted per user name and per source address over a window: after
// `maxFailures` in the window, further attempts are refused (LOGIN_THROTTLED) without checking
// the password, until the oldest counted failure leaves the window.

import type { Clock } from '../util/clock.js';
import { BrineError } from '../util/errors.js';

/** Keys remembered at most; past it the oldest are forgotten (bounded memory under a spray). */
const MAX_KEYS = 20_000;

/** The address a failure is counted against: an IPv4 address, or the /64 of an IPv6 one (one host's usual share). */
export function sourceBucket(source: string): string {
  const v4 = /^(?:::ffff:)?(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(source);
  if (v4) return v4[1]!;
  if (!source.includes(':')) return source;
  const [head = '', tail] = source.toLowerCase().split('%')[0]!.split('::') as [string, string | undefined];
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? left : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

export class LoginThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly clock: Clock,
    private readonly maxFailures: number,
    private readonly windowMs: number,
  ) {}

  private recent(key: string, now: number): number[] {
    const list = (this.failures.get(key) ?? []).filter((t) => now - t < this.windowMs);
    if (list.length === 0) this.failures.delete(key);
    else this.failures.set(key, list);
    return list;
  }

  /** LOGIN_THROTTLED when the user or the source has used up its failures. */
  check(user: string, source: string): void {
    const now = this.clock.monotonic();
    for (const [key, what] of [
      [`u:${user}`, `user '${user.slice(0, 64)}'`],
      [`s:${sourceBucket(source)}`, `address ${source}`],
    ] as const) {
      const list = this.recent(key, now);
      if (list.length >= this.maxFailures) {
        const retryAfterS = Math.max(1, Math.ceil((list[0]! + this.windowMs - now) / 1000));
        throw new BrineError('LOGIN_THROTTLED', `too many failed logins for ${what}; try again in ${retryAfterS} s`, { details: { retryAfterS } });
      }
    }
  }

  fail(user: string, source: string): void {
    const now = this.clock.monotonic();
    for (const key of [`u:${user}`, `s:${sourceBucket(source)}`]) {
      const list = this.recent(key, now);
      list.push(now);
      this.failures.delete(key);
      this.failures.set(key, list.slice(-this.maxFailures));
    }
    while (this.failures.size > MAX_KEYS) this.failures.delete(this.failures.keys().next().value as string);
  }

  /** A good password clears the user's count (not the address's: a spray across users still counts). */
  succeed(user: string): void {
    this.failures.delete(`u:${user}`);
  }
}
