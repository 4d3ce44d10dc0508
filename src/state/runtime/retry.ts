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

/** `retry: True` means Salt's defaults; a mapping overrides them (checked by the compiler). */
export function retryPolicy(raw: unknown): RetryPolicy | undefined {
  if (raw === false || raw === undefined || raw === null) return undefined;
  if (raw === true) return { ...DEFAULTS };
  const o = raw as Partial<RetryPolicy>;
  return {
    attempts: o.attempts ?? DEFAULTS.attempts,
    until: o.until === undefined ? DEFAULTS.until : o.until,
    interval: o.interval ?? DEFAULTS.interval,
    splay: o.splay ?? DEFAULTS.splay,
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
