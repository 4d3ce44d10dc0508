// The PAM eauth suite on a machine where the authenticate-pam binding cannot load (npm ci
// without libpam0g-dev; issue 21, point 12): skipped with the reason, and with
// BRINE_REQUIRE_PRIVILEGED set (CI, where .ci/run installs libpam0g-dev) a failure naming the
// fix. Runs the real compiled suite with BRINE_TEST_PAM_BINDING naming a module that is not there.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { runSuites } from '../../helpers/run-suites.js';

const here = path.dirname(new URL(import.meta.url).pathname);
const suite = path.join(here, '..', '..', 'integration', `api-pam.test${path.extname(new URL(import.meta.url).pathname)}`);
const MISSING = '/nonexistent/authenticate-pam';

function runWithout(extraEnv: NodeJS.ProcessEnv): ReturnType<typeof runSuites> {
  return runSuites([suite], { BRINE_TEST_PAM_BINDING: MISSING, ...extraEnv });
}

test('without the PAM binding the pam eauth suite skips with the reason', { skip: process.getuid?.() !== 0 && 'the suite skips for not being root first' }, async () => {
  const r = await runWithout({});
  assert.equal(r.code, 0, r.output);
  assert.equal(r.failed, 0, r.output);
  assert.equal(r.passed, 0, r.output);
  assert.ok(r.skipped >= 1, r.output);
  assert.match(r.output, /the PAM binding \/nonexistent\/authenticate-pam cannot be loaded \(Cannot find module.*\): install libpam0g-dev and build-essential, then npm ci/);
});

test('with BRINE_REQUIRE_PRIVILEGED=1 a missing PAM binding fails the run', async () => {
  const r = await runWithout({ BRINE_REQUIRE_PRIVILEGED: '1' });
  assert.notEqual(r.code, 0, r.output);
  assert.ok(r.failed >= 1, r.output);
  assert.match(r.output, /PAM eauth cannot run: (the PAM binding \/nonexistent\/authenticate-pam cannot be loaded|needs root)/);
});
