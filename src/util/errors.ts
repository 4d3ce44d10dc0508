// The error catalogue: every failure brine reports has a stable code, a one-line meaning and
// what the operator should do next. Each area keeps its codes in src/util/error-codes/<area>.ts
// (add a new code there); docs/errors.md is kept in sync with ERROR_GROUPS by a test.

import { CONFIG_ERRORS } from './error-codes/config.js';
import { KEY_ERRORS } from './error-codes/keys.js';
import { AUTH_ERRORS } from './error-codes/auth.js';
import { WIRE_ERRORS } from './error-codes/wire.js';
import { DAEMON_ERRORS } from './error-codes/daemon.js';
import { STATE_ERRORS } from './error-codes/states.js';
import { SCHEDULE_ERRORS } from './error-codes/schedule.js';
import { JOB_ERRORS } from './error-codes/jobs.js';
import { MINE_ERRORS } from './error-codes/mine.js';
import { RETURNER_ERRORS } from './error-codes/returners.js';
import { EVENT_ERRORS } from './error-codes/events.js';
import { API_ERRORS } from './error-codes/api.js';
import { NATS_ERRORS } from './error-codes/nats.js';
import { REACTOR_ERRORS } from './error-codes/reactor.js';
import { RUNNER_ERRORS } from './error-codes/runners.js';
import type { ErrorSpec } from './error-codes/spec.js';

export type { ErrorSpec } from './error-codes/spec.js';

/** The catalogue's areas in the order docs/errors.md lists them (a test keeps the two in sync). */
export const ERROR_GROUPS: ReadonlyArray<{ readonly title: string; readonly codes: Readonly<Record<string, ErrorSpec>> }> = [
  { title: 'configuration', codes: CONFIG_ERRORS },
  { title: 'identity and keys', codes: KEY_ERRORS },
  { title: 'authentication, as the minion sees it', codes: AUTH_ERRORS },
  { title: 'wire', codes: WIRE_ERRORS },
  { title: 'daemons and control', codes: DAEMON_ERRORS },
  { title: 'states, templates and the file server', codes: STATE_ERRORS },
  { title: 'the scheduler', codes: SCHEDULE_ERRORS },
  { title: 'jobs and modules', codes: JOB_ERRORS },
  { title: 'the mine', codes: MINE_ERRORS },
  { title: 'returners', codes: RETURNER_ERRORS },
  { title: 'events from minions and beacons', codes: EVENT_ERRORS },
  { title: 'the REST API and access control', codes: API_ERRORS },
  { title: 'NATS (issue 13: brine on a nats-server cluster)', codes: NATS_ERRORS },
  { title: 'the reactor', codes: REACTOR_ERRORS },
  { title: 'runners', codes: RUNNER_ERRORS },
];

export const ERRORS = {
  ...CONFIG_ERRORS,
  ...KEY_ERRORS,
  ...AUTH_ERRORS,
  ...WIRE_ERRORS,
  ...DAEMON_ERRORS,
  ...STATE_ERRORS,
  ...SCHEDULE_ERRORS,
  ...JOB_ERRORS,
  ...MINE_ERRORS,
  ...RETURNER_ERRORS,
  ...EVENT_ERRORS,
  ...API_ERRORS,
  ...NATS_ERRORS,
  ...REACTOR_ERRORS,
  ...RUNNER_ERRORS,
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERRORS;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERRORS, value);
}

/** The one error class: a stable code, a message and an optional cause. */
export class BrineError extends Error {
  readonly code: ErrorCode;
  readonly details: Readonly<Record<string, unknown>>;
  /** A fix for this case when the catalogue's, written for the code, would mislead (a -C target's fix is not -E's). */
  private readonly specificFix: string | undefined;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; details?: Record<string, unknown>; fix?: string } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'BrineError';
    this.code = code;
    this.details = options.details ?? {};
    this.specificFix = options.fix;
  }

  /**
   * An outcome that is expected and can come thousands of times a second (a busy master's door
   * answer, an attempt abandoned on purpose): made without capturing a stack trace, which would
   * cost more than everything else the minion does with it.
   */
  static expected(code: ErrorCode, message: string, options: { cause?: unknown; details?: Record<string, unknown> } = {}): BrineError {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      return new BrineError(code, message, options);
    } finally {
      Error.stackTraceLimit = limit;
    }
  }

  get fix(): string {
    return this.specificFix ?? ERRORS[this.code].fix;
  }

  get exitCode(): number {
    return ERRORS[this.code].exit;
  }

  /** The form that travels on the wire: a code plus a message, never a thrown object. */
  toWire(): { code: ErrorCode; message: string } {
    return { code: this.code, message: this.message };
  }
}

export function isBrineError(err: unknown, code?: ErrorCode): err is BrineError {
  return err instanceof BrineError && (code === undefined || err.code === code);
}

/** Wraps anything thrown into a BrineError, keeping the original as the cause. */
export function toBrineError(err: unknown, fallback: ErrorCode = 'INTERNAL'): BrineError {
  if (err instanceof BrineError) return err;
  return new BrineError(fallback, errorMessage(err), { cause: err });
}

/**
 * The one way to read a caught value's message (issue 24): an Error's message, anything else as
 * text. Code that needs a code, a fix or an exit status uses toBrineError instead.
 */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The errno code of a failed system call (`ENOENT`, `EACCES`...), undefined for anything else. */
export function errnoCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

/** One line for a terminal: `CODE: message (fix)`. */
export function formatError(err: BrineError): string {
  return `${err.code}: ${err.message}\n  fix: ${err.fix}`;
}
