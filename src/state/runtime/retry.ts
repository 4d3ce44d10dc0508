// The `retry` global argument (Salt's verify_retry_data): attempts, until, interval, splay, and
// the comment each retried attempt leaves.

export interface RetryPolicy {
  attempts: number;
  /** The result that ends the retries (Salt's default True). */
  until: boolean | null;
  /** Seconds between attempts. */
  interval: number;
  /** Up to this many extra seconds, random, added to each interval. */
  splay: number;
}

const DEFAULTS: RetryPolicy = { attempts: 2, until: true, interval: 30, splay: 0 };

/**
 * Salt's verify_retry_data: a mapping overrides the defaults key by key, a key of the wrong type
 * keeps its default (Salt logs a warning), and anything else that is set (`retry: 3`, `retry:
 * True`) means the defaults. `False` (or nothing) is no retry. Unknown keys are ignored, as Salt
 * ignores them.
 */
export function retryPolicy(raw: unknown): RetryPolicy | undefined {
  if (raw === false || raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'object' || Array.isArray(raw)) return { ...DEFAULTS };
  const o = raw as Record<string, unknown>;
  const int = (v: unknown, dflt: number): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : dflt);
  return {
    attempts: typeof o.attempts === 'number' && Number.isInteger(o.attempts) ? o.attempts : DEFAULTS.attempts,
    until: typeof o.until === 'boolean' || o.until === null ? o.until : DEFAULTS.until,
    interval: int(o.interval, DEFAULTS.interval),
    splay: int(o.splay, DEFAULTS.splay),
  };
}

const py = (v: boolean | null): string => (v === null ? 'None' : v ? 'True' : 'False');

export function attemptComment(attempt: number, result: boolean | null, comment: string): string {
  return `Attempt ${attempt}: Returned a result of "${py(result)}", with the following comment: "${comment}"`;
}

/** Under test=True nothing is retried; the comment says what would happen. */
export function testModeRetryComment(p: RetryPolicy): string {
  return `The state would be retried every ${p.interval} seconds (with a splay of up to ${p.splay} seconds) a maximum of ${p.attempts} times or until a result of ${py(p.until)} is returned`;
}
