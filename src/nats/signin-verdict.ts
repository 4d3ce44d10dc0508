// What a NATS minion does with a sign-in answer other than `accepted`, as a pure decision (the
// link applies it): wait and ask again, refuse an untrusted refusal, or end. Refusals are not
// signed and the enrolment file is public, so before any master has accepted this minion a
// refusal may be a squatter's doing (threats.md #42): it is retried with a CRITICAL line, as the
// TLS transport does with a refusal from a master it never trusted (src/session/link-verdict.ts).

import { BrineError, type ErrorCode } from '../util/errors.js';
import type { SigninAnswer } from './signin.js';

export type SigninWait = 'acceptance' | 'backoff' | { ms: number };

export type SigninVerdict =
  /** Ask again after the wait; `level` and `message` are what to log (the wait is appended). */
  | { kind: 'wait'; wait: SigninWait; level: 'info' | 'warn' | 'error'; code: string; message: string }
  /** A refusal that proves nothing yet: CRITICAL and the acceptance wait, or the end with untrusted_master_exit. */
  | { kind: 'untrusted'; error: BrineError }
  /** A refusal after a master accepted this minion: the end, unless rejected_retry. */
  | { kind: 'refused'; error: BrineError; retry: boolean };

export interface SigninVerdictContext {
  id: string;
  /** A master of the enrolment file has accepted this minion before. */
  everAccepted: boolean;
  rejectedRetry: boolean;
}

const REFUSAL_CODES: Readonly<Record<string, ErrorCode>> = { denied: 'AUTH_DENIED', invalid_id: 'INVALID_ID' };

export function judgeSigninAnswer(answer: SigninAnswer, ctx: SigninVerdictContext): SigninVerdict {
  const why = answer.message ?? answer.code ?? answer.status;
  switch (answer.status) {
    case 'busy':
      // the enrolment rate (auth_rate_per_source / auth_rate on the masters): come back when told
      return { kind: 'wait', wait: { ms: Math.max(1000, (answer.retryAfter ?? 1) * 1000) }, level: 'info', code: 'AUTH_BUSY', message: `the masters are busy with sign-ins (${why})` };
    case 'full':
      // a cap on waiting keys is a state of the master, never a verdict on this minion
      return { kind: 'wait', wait: 'acceptance', level: 'error', code: answer.code ?? 'AUTH_FULL', message: `the master cannot take this minion's key now: ${why}` };
    case 'pending':
      return {
        kind: 'wait',
        wait: 'acceptance',
        level: 'error',
        code: 'AUTH_PENDING',
        message: `The master has not accepted this minion's key yet (pending). On the master run: brine key -a ${ctx.id}`,
      };
    case 'error':
    case 'accepted':
      return { kind: 'wait', wait: 'backoff', level: 'warn', code: answer.code ?? 'MESSAGE_INVALID', message: `the master could not decide the sign-in: ${why}` };
    default: {
      const code = REFUSAL_CODES[answer.status] ?? 'AUTH_REJECTED';
      if (!ctx.everAccepted) {
        return {
          kind: 'untrusted',
          error: new BrineError(
            code,
            `The masters refused this minion (${answer.status}: ${why}) before any of them ever accepted it: the ID may be squatted by another key that signed in first with the enrolment file. It is retried; on a master check the key with 'brine key -f ${ctx.id}', delete a key that is not this minion's ('brine key -d ${ctx.id}') and accept this one.`,
          ),
        };
      }
      return { kind: 'refused', error: new BrineError(code, `the master refused this minion (${answer.status}): ${why}`), retry: ctx.rejectedRetry && answer.status !== 'invalid_id' };
    }
  }
}
