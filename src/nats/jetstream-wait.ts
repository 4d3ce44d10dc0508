// A master cannot serve before JetStream answers (its returns stream and consumer), and a
// cluster answers nothing until it has a JetStream leader: fewer than a majority of servers up,
// or routes not joined yet. This waits for it, retrying with backoff and a coded warning that
// says what to check, instead of stopping the master with a bare client timeout.

import type { Clock } from '../util/clock.js';
import { BrineError, errorMessage } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { Backoff, type BackoffOptions } from '../session/backoff.js';

export interface JetStreamWaitOptions {
  clock: Clock;
  logger: Logger;
  /** True once the caller stops: the wait ends with NATS_UNAVAILABLE instead of retrying. */
  stopped(): boolean;
  /** Delays between attempts (each attempt may itself wait for its request timeout). */
  backoff?: BackoffOptions;
  /** The warning is logged at the first failure and again at most this often while it lasts. */
  warnEveryMs?: number;
}

const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 250, maxMs: 5000, randomize: true, floorMs: 100 };
const DEFAULT_WARN_EVERY_MS = 30_000;

/** Failures that waiting does not cure: JetStream off for the account, or a refused permission. */
export function isPermanentJetStreamError(err: unknown): boolean {
  return /not enabled|permissions violation|authorization violation/i.test(messageOf(err));
}

function messageOf(err: unknown): string {
  return errorMessage(err);
}

/**
 * Runs `attempt` until it succeeds. `what` completes "cannot ... yet" (e.g. "make or find the
 * JetStream stream BRINE"). Throws NATS_UNAVAILABLE for a permanent failure or once stopped.
 */
export async function waitForJetStream<T>(what: string, attempt: () => Promise<T>, opts: JetStreamWaitOptions): Promise<T> {
  const { clock, logger } = opts;
  const backoff = new Backoff(opts.backoff ?? DEFAULT_BACKOFF);
  const warnEvery = opts.warnEveryMs ?? DEFAULT_WARN_EVERY_MS;
  const started = clock.monotonic();
  let warnedAt: number | undefined;
  for (;;) {
    try {
      const value = await attempt();
      if (warnedAt !== undefined) logger.info({ waitedS: Math.round((clock.monotonic() - started) / 1000) }, `JetStream answers now: could ${what}`);
      return value;
    } catch (err) {
      const message = messageOf(err);
      if (isPermanentJetStreamError(err)) {
        throw new BrineError(
          'NATS_UNAVAILABLE',
          `cannot ${what}: ${message} (run the servers with the configuration from \`brine nats server-config\`, which gives the BRINE account JetStream and this master every permission)`,
          { cause: err },
        );
      }
      if (opts.stopped()) throw new BrineError('NATS_UNAVAILABLE', `stopped while waiting to ${what}: ${message}`, { cause: err });
      const now = clock.monotonic();
      if (warnedAt === undefined || now - warnedAt >= warnEvery) {
        warnedAt = now;
        logger.warn(
          { code: 'NATS_UNAVAILABLE', err: message, waitingS: Math.round((now - started) / 1000) },
          `cannot ${what} yet: no JetStream leader yet (${message}); waiting for a majority of the NATS servers to run and join each other over their cluster routes: check that each nats-server runs, its log for route or TLS errors, and its /jsz for a meta leader; trying again`,
        );
      }
      await new Promise<void>((resolve) => clock.setTimeout(resolve, backoff.next()));
    }
  }
}
