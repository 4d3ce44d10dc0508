// Tests that need root or host tools (ip, iptables, unshare) skip with a one-line reason on a
// machine that lacks them, so `npm ci && npm test` passes on a fresh laptop; CI sets
// BRINE_REQUIRE_PRIVILEGED=1 (.ci/run does) and then each such skip is a failure instead.

import { test } from 'node:test';

export const REQUIRE_PRIVILEGED_ENV = 'BRINE_REQUIRE_PRIVILEGED';

/** True when the environment demands that privileged tests run (CI). */
export function privilegedRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env[REQUIRE_PRIVILEGED_ENV];
  return v !== undefined && v !== '' && v !== '0';
}

/**
 * What a test or suite passes as `skip`, given why its prerequisites are missing (`false` or
 * undefined when they are all there). Under BRINE_REQUIRE_PRIVILEGED it still skips the real
 * test (which would only fail with a less clear error), and registers a failing test at the
 * same place that names the suite, the reason and the fix.
 */
export function privilegedSkip(what: string, reason: string | false | undefined, env: NodeJS.ProcessEnv = process.env): string | false {
  if (reason === false || reason === undefined) return false;
  if (privilegedRequired(env)) {
    test(`${what}: prerequisites (${REQUIRE_PRIVILEGED_ENV} is set)`, () => {
      throw new Error(
        `${what} cannot run: ${reason}. ${REQUIRE_PRIVILEGED_ENV} is set, so this skip is a failure: run as root with iproute2 and iptables installed (bash .ci/run installs them), or unset ${REQUIRE_PRIVILEGED_ENV}`,
      );
    });
  }
  return reason;
}
