// The minion ID grammar. An ID becomes a file name in the master's key store, so it is checked
// here, before any path is built from it, on both the minion and the master.

import { BrineError } from './errors.js';

export const MAX_ID_LENGTH = 255;

// ASCII only (no look-alikes), no path separators, no leading dot (so never `.` or `..`).
const ID_PATTERN = /^[A-Za-z0-9_@][A-Za-z0-9._@-]*$/;

// Salt's localhost filter (salt/utils/network.py): anchored at the start, case-sensitive.
const LOCALHOST_LIKE: readonly RegExp[] = [/^localhost.*/, /^ip6-.*/, /^127[.]\d/, /^0\.0\.0\.0/, /^::1.*/, /^ipv6-.*/, /^fe00::.*/, /^fe02::.*/, /^1.0.0.*.ip6.arpa/];

/** True for names Salt never picks as a generated ID: localhost, ip6-*, 127.x, ::1 ... */
export function isLocalhostLike(name: string): boolean {
  return LOCALHOST_LIKE.some((re) => re.test(name));
}

/** Why an ID is not valid, or undefined when it is. The reason is safe to show and log. */
export function minionIdProblem(id: unknown): string | undefined {
  if (typeof id !== 'string') return 'the ID is not a string';
  if (id.length === 0) return 'the ID is empty';
  if (id.length > MAX_ID_LENGTH) return `the ID is ${id.length} characters long (at most ${MAX_ID_LENGTH})`;
  if (id.includes('\0')) return 'the ID contains a NUL byte';
  if (id.includes('/') || id.includes('\\')) return 'the ID contains a path separator';
  if (id.startsWith('.')) return 'the ID starts with a dot';
  if (!ID_PATTERN.test(id)) return 'the ID contains characters outside A-Z a-z 0-9 . - _ @';
  if (isLocalhostLike(id)) return `the ID "${id}" is localhost-like: every host with a misconfigured resolver gets it, so it cannot identify one machine`;
  return undefined;
}

export function assertValidMinionId(id: unknown): asserts id is string {
  const problem = minionIdProblem(id);
  if (problem !== undefined) {
    const shown = typeof id === 'string' ? JSON.stringify(id.length > 64 ? `${id.slice(0, 64)}...` : id) : String(id);
    throw new BrineError('INVALID_ID', `invalid minion ID ${shown}: ${problem}`, { details: { problem } });
  }
}
