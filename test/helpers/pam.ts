// Whether the PAM eauth test can run here: it needs root (it creates a local account) and the
// authenticate-pam binding, which `npm ci` builds only where libpam0g-dev and a C++ compiler are
// installed (it is an optional dependency, so a machine without them installs without it). On
// such a machine the test skips with the reason; under BRINE_REQUIRE_PRIVILEGED (CI) the skip
// is a failure instead (privileged.ts).

import { createRequire } from 'node:module';
import { privilegedSkip } from './privileged.js';

/**
 * The module the probe loads, for the skip tests only: BRINE_TEST_PAM_BINDING names another
 * (e.g. a path that does not exist) to act as a machine without the binding. The master under
 * test always loads authenticate-pam itself.
 */
export const PAM_BINDING_ENV = 'BRINE_TEST_PAM_BINDING';

/** Why the binding cannot be used here, or false when it loads. */
export function pamBindingProblem(env: NodeJS.ProcessEnv = process.env): string | false {
  const name = env[PAM_BINDING_ENV] || 'authenticate-pam';
  try {
    const m = createRequire(import.meta.url)(name) as { authenticate?: unknown };
    if (typeof m?.authenticate !== 'function') return `the PAM binding ${name} has no authenticate() function`;
    return false;
  } catch (err) {
    const first = (err as Error).message.split('\n')[0];
    return `the PAM binding ${name} cannot be loaded (${first}): install libpam0g-dev and build-essential, then npm ci (bash .ci/run does)`;
  }
}

/** The `skip` of the PAM suite: root and the binding, or the reason (a failure under CI). */
export function pamSkip(what: string, env: NodeJS.ProcessEnv = process.env): string | false {
  const reason = process.getuid?.() !== 0 ? 'needs root to create and delete a local account (useradd, chpasswd, userdel)' : pamBindingProblem(env);
  return privilegedSkip(what, reason, env);
}
