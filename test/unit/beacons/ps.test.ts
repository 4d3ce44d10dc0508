// The ps beacon against real processes (issue 25 point 6): a sleep we start is Running, a name no
// process has is Stopped, and neither fires the other way round.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { psBeacon } from '../../../src/beacons/ps.js';
import { FakeClock } from '../../../src/util/clock.js';
import { silentLogger } from '../../../src/util/logger.js';

test('ps: running and stopped as Salt reports them', async (t) => {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  t.after(() => child.kill('SIGKILL'));
  await new Promise((r) => child.once('spawn', r));
  const inst = psBeacon.create({ id: 'm1', clock: new FakeClock(), logger: silentLogger(), call: async () => undefined });
  const config = { processes: { sleep: 'running', 'no-such-proc-xyz': 'stopped', init_never: 'running', 'also-missing': 'other' } };
  assert.equal(psBeacon.validate(config), undefined);
  assert.deepEqual(await inst.poll(config), [{ sleep: 'Running' }, { 'no-such-proc-xyz': 'Stopped' }, { 'also-missing': false }]);
  assert.match(String(psBeacon.validate({ processes: ['sleep'] })), /must be a dictionary/);
});
