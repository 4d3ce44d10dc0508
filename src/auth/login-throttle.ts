// Failed API logins, counted per user name and per source address over a window: after
// `maxFailures` in the window, further attempts are refused (LOGIN_THROTTLED) without checking
// the password, until the oldest counted failure leaves the window. An attempt counts as failed
// from the moment it starts; a good password takes it back.

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

/** A login in progress, counted as failed unless its password turns out good. */
export interface LoginAttempt {
  succeeded(): void;
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

  /**
   * Starts a login: LOGIN_THROTTLED when the user or the source has used up its failures,
   * otherwise the attempt is counted as a failure at once, before the password check awaits,
   * so parallel logins cannot all pass the check (issue 21, point 7). Only a good password
   * takes the count back, through the returned attempt.
   */
  begin(user: string, source: string): LoginAttempt {
    const now = this.clock.monotonic();
    const keys = [`u:${user}`, `s:${sourceBucket(source)}`] as const;
    const lists = keys.map((key) => this.recent(key, now));
    for (const [i, what] of [`user '${user.slice(0, 64)}'`, `address ${source}`].entries()) {
      const list = lists[i]!;
      if (list.length >= this.maxFailures) {
        const retryAfterS = Math.max(1, Math.ceil((list[0]! + this.windowMs - now) / 1000));
        throw new BrineError('LOGIN_THROTTLED', `too many failed logins for ${what}; try again in ${retryAfterS} s`, { details: { retryAfterS } });
      }
    }
    for (const [i, key] of keys.entries()) {
      const list = lists[i]!;
      list.push(now);
      // re-inserted so that the oldest keys are the ones forgotten past MAX_KEYS
      this.failures.delete(key);
      this.failures.set(key, list);
    }
    while (this.failures.size > MAX_KEYS) this.failures.delete(this.failures.keys().next().value as string);
    let settled = false;
    return {
      succeeded: () => {
        if (settled) return;
        settled = true;
        // a good password clears the user's count, and takes back this attempt from the
        // address's count (not earlier failures: a spray across users still counts)
        this.failures.delete(keys[0]);
        const list = this.failures.get(keys[1]);
        const at = list?.lastIndexOf(now) ?? -1;
        if (list && at >= 0) list.splice(at, 1);
      },
    };
  }
}
