// The minion's scheduler wiring with a fake clock: pillar's schedule is followed through the
// PillarStore, each run goes through the given job runner with a fresh jid the minion claims,
// and its return carries the schedule name (none with return_job: false).

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { asMinionOptions, loadConfig } from '../../../../src/config/index.js';
import { MinionScheduler } from '../../../../src/minion/schedule/minion-scheduler.js';
import { PillarStore } from '../../../../src/minion/pillar-store.js';
import type { Job, Return } from '../../../../src/protocol/index.js';
import { FakeClock } from '../../../../src/util/clock.js';
import { silentLogger } from '../../../../src/util/logger.js';
import { isJid } from '../../../../src/jobs/index.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-msched-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

test('pillar schedule jobs start and stop with the pillar; returns carry the schedule name', async () => {
  const opts = asMinionOptions(loadConfig('minion', { configDir: root, env: {}, overrides: { schedule: { quiet: { function: 'test.ping', seconds: 2, return_job: false } } } }));
  const clock = new FakeClock();
  const pillar = new PillarStore();
  const ran: Job[] = [];
  const delivered: Return[] = [];
  const claimed = new Set<string>();
  const ms = new MinionScheduler({
    opts,
    id: 'm1',
    logger: silentLogger(),
    clock,
    pillar,
    run: (job) => {
      ran.push(job);
      return Promise.resolve({ t: 'return', jid: job.jid, fun: job.fun, ret: true, retcode: 0, success: true });
    },
    claimJid: (jid) => !claimed.has(jid) && claimed.add(jid) !== undefined,
    deliver: (ret) => delivered.push(ret),
    afterRun: () => assert.fail('no entry names a returner'),
  });
  // one tick at a time, letting each finished run settle (maxrunning counts it until then)
  const advance = async (ms: number) => {
    for (let t = 0; t < ms; t += 1000) {
      clock.advance(1000);
      await new Promise((r) => setImmediate(r));
    }
  };
  ms.start();
  pillar.set({ schedule: { fromPillar: { function: 'test.echo', args: ['hi'], seconds: 3 } }, other: 'x' });
  await advance(6_000);
  assert.deepEqual(
    ran.map((j) => j.fun),
    ['test.ping', 'test.echo', 'test.ping', 'test.ping', 'test.echo'],
  );
  assert.ok(ran.every((j) => isJid(j.jid) && claimed.has(j.jid) && j.tgt === 'm1'));
  assert.equal(new Set(ran.map((j) => j.jid)).size, ran.length, 'a fresh jid per run');
  // return_job: false -> nothing for the master; the pillar job's returns name it
  assert.deepEqual(
    delivered.map((r) => r.schedule),
    [
      { name: 'fromPillar', arg: ['hi'], kwarg: {} },
      { name: 'fromPillar', arg: ['hi'], kwarg: {} },
    ],
  );
  pillar.set({});
  await advance(6_000);
  assert.equal(ran.filter((j) => j.fun === 'test.echo').length, 2, 'a job removed from pillar stops');
  ms.stop();
  pillar.set({ schedule: { again: { function: 'test.ping', seconds: 1 } } });
  assert.equal(ms.scheduler.entry('again'), undefined, 'no pillar listener after stop');
});
