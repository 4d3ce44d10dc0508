// What one connection outcome means for the link, as a pure decision: retry as usual, a master
// that is not trusted (changed key, or a refusal from a master never authenticated with), a
// refusal from a trusted master, or the end of the link.

import { BrineError, type ErrorCode } from '../util/errors.js';
import type { ConnectionOutcome, MasterEndpoint } from './master-connection.js';

export type LinkVerdict =
  | { kind: 'retry' }
  /** The master is refused (not trusted); the link retries it with backoff unless told to stop. */
  | { kind: 'untrusted'; error: BrineError }
  /** A trusted master refused this minion's key; whether that ends the minion is the owner's call. */
  | { kind: 'refused'; error: BrineError }
  | { kind: 'fatal'; error: BrineError };

export interface VerdictOptions {
  /** rejected_retry: a refusal is retried like a pending key. */
  rejectedRetry: boolean;
  /** untrusted_master_exit: an untrusted master ends the link (brine before per-master trust). */
  untrustedMasterFatal: boolean;
}

const REFUSALS: ReadonlySet<string> = new Set(['auth_rejected', 'auth_denied', 'invalid_id']);
/** Closed as auth_rejected, but the master is only full for now: retried, never an end. */
const FULL: ReadonlySet<string> = new Set(['AUTH_FULL', 'AUTH_PENDING_LIMIT']);

export function isRefusal(outcome: ConnectionOutcome): boolean {
  return REFUSALS.has(outcome.reason) && !(outcome.error instanceof BrineError && FULL.has(outcome.error.code));
}

export function judgeOutcome(outcome: ConnectionOutcome, endpoint: MasterEndpoint, opts: VerdictOptions): LinkVerdict {
  const err = outcome.error instanceof BrineError ? outcome.error : undefined;
  let untrusted: BrineError | undefined;
  if (outcome.reason === 'master_key_changed') {
    untrusted = err ?? new BrineError('MASTER_KEY_CHANGED', `master ${endpoint.host}:${endpoint.port} presented a key that is not trusted`);
  } else if (isRefusal(outcome)) {
    if (!outcome.masterTrusted) {
      // a refusal on the very contact that would pin the master proves nothing: any peer can say it
      const code: ErrorCode = err?.code ?? 'AUTH_REJECTED';
      const fp = typeof err?.details?.masterFingerprint === 'string' ? ` (its key ${err.details.masterFingerprint})` : '';
      untrusted = new BrineError(
        code,
        `Master ${endpoint.host}:${endpoint.port}${fp} refused this minion (${outcome.reason}) before it was ever trusted: this minion has never signed in there, so the refusal may come from a fake master. It is retried with backoff and the other masters are still served. If it is a real master, fix the key there (${err?.message ?? outcome.reason}), or set master_finger so its refusals count.`,
        { cause: err },
      );
    } else if (!opts.rejectedRetry) {
      return { kind: 'refused', error: err ?? new BrineError('AUTH_REJECTED', 'rejected by the master') };
    }
  }
  if (untrusted === undefined) return { kind: 'retry' };
  return opts.untrustedMasterFatal ? { kind: 'fatal', error: untrusted } : { kind: 'untrusted', error: untrusted };
}
