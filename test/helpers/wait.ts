// Waiting in tests: poll for a condition with a deadline, let queued callbacks run, or assert
// that nothing happens for a while. Tests never sleep a fixed time to let something happen.

/** How often a poll looks again: short enough not to slow a test, long enough not to spin. */
const POLL_MS = 20;

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Resolves with the first truthy value `check` returns, polling until then; rejects after
 * `timeoutMs` naming `what`. On a loaded machine give it a generous deadline (10-30 s): a poll
 * returns as soon as the condition holds, so the deadline only costs time when the test fails.
 */
export async function waitUntil<T>(check: () => T | undefined | null | false | Promise<T | undefined | null | false>, timeoutMs: number, what: string, everyMs = POLL_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await pause(everyMs);
  }
}

/**
 * The one fixed wait tests may use: asserts that for `ms` nothing happens. `happened` is polled
 * meanwhile and fails the test as soon as it returns a truthy value (say, what happened); without
 * it the caller checks afterwards. `what` names the thing that must not happen.
 */
export async function nothingFor(ms: number, what: string, happened?: () => unknown): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    const seen = happened?.();
    if (seen) throw new Error(`${what} happened within ${ms} ms: ${typeof seen === 'string' ? seen : JSON.stringify(seen)}`);
    const left = end - Date.now();
    if (left <= 0) return;
    await pause(Math.min(left, happened ? POLL_MS * 5 : left));
  }
}

/** Spaces out work on purpose (say, process start-ups on a loaded machine); never waits for an event. */
export function pace(ms: number): Promise<void> {
  return pause(ms);
}

/** Resolves with `p`, or rejects after `ms` naming `what` (a reply that never comes fails, not hangs). */
export function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** Lets promise chains and setImmediate callbacks run (no time passes on any clock). */
export async function settle(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((r) => setImmediate(r));
}
