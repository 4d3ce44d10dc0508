// The NATS suites on a machine without nats-server: skipped with the reason, and with
// BRINE_REQUIRE_PRIVILEGED set (CI, where .ci/run installs nats-server) a failure naming the fix.
// Runs the real compiled suite with BRINE_NATS_SERVER pointing at a file that does not exist.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { runSuites } from '../../helpers/run-suites.js';

const here = path.dirname(new URL(import.meta.url).pathname);
const suite = path.join(here, '..', '..', 'integration', `nats-identity.test${path.extname(new URL(import.meta.url).pathname)}`);

function runWithout(extraEnv: NodeJS.ProcessEnv): ReturnType<typeof runSuites> {
  return runSuites([suite], { BRINE_NATS_SERVER: '/nonexistent/nats-server', ...extraEnv });
}

test('without nats-server the NATS suites skip with the reason', async () => {
  const r = await runWithout({});
  assert.equal(r.code, 0, r.output);
  assert.equal(r.failed, 0, r.output);
  assert.equal(r.passed, 0, r.output);
  assert.ok(r.skipped >= 3, r.output);
  assert.match(r.output, /# \/nonexistent\/nats-server is missing \(apt-get install nats-server; \.ci\/run does\)/);
});

test('with BRINE_REQUIRE_PRIVILEGED=1 a missing nats-server fails the run', async () => {
  const r = await runWithout({ BRINE_REQUIRE_PRIVILEGED: '1' });
  assert.notEqual(r.code, 0, r.output);
  assert.ok(r.failed >= 1, r.output);
  assert.match(r.output, /NATS identity and permissions cannot run: \/nonexistent\/nats-server is missing/);
});
