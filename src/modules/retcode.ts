// Salt's retcode rule for a function's return: an explicit retcode set by the function wins,
// else 1 when the return is a mapping whose `result` or `success` is false, else 0.

// Symbol.for: one symbol per thread even where brine's code is loaded twice (the bundled job
// worker, and a custom module importing withRetcode from dist/), so either copy recognises it
const BRAND: unique symbol = Symbol.for('brine.withRetcode') as typeof BRAND;

/** A return value carrying an explicit retcode (Salt's `__context__["retcode"]`). */
export interface RetcodeWrapped<T = unknown> {
  readonly __retcode: number;
  readonly value: T;
  readonly [BRAND]: true;
}

/**
 * Wraps a return value with the retcode the job should report. The wrapper is branded with a
 * symbol, which no JSON or YAML data can carry, so data that merely looks like
 * `{__retcode, value}` (a grain, a command's parsed output) cannot set the retcode.
 */
export function withRetcode<T>(value: T, retcode: number): RetcodeWrapped<T> {
  if (!Number.isInteger(retcode)) throw new TypeError(`withRetcode: retcode must be an integer, got ${String(retcode)}`);
  return Object.freeze({ __retcode: retcode, value, [BRAND]: true as const });
}

export function isRetcodeWrapped(x: unknown): x is RetcodeWrapped {
  return typeof x === 'object' && x !== null && (x as Partial<RetcodeWrapped>)[BRAND] === true;
}

/** Splits a function's raw return into the value to send and the retcode to report. */
export function resolveRetcode(raw: unknown): { value: unknown; retcode: number } {
  if (isRetcodeWrapped(raw)) return { value: raw.value, retcode: raw.__retcode };
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
    const own = (k: string): unknown => (Object.hasOwn(raw, k) ? (raw as Record<string, unknown>)[k] : undefined);
    if (own('result') === false || own('success') === false) return { value: raw, retcode: 1 };
  }
  return { value: raw, retcode: 0 };
}
