// Scheduled runs in the job cache: stored under the master's fresh jid with the schedule name,
// once per (minion, minion jid) however often the minion resends, and purged with their job.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { JobCache, JidGenerator, type ScheduledReturn } from '../../../src/jobs/index.js';
import { FakeClock } from '../../../src/util/clock.js';

const root = fs.mkdtempSync(`${os.tmpdir()}/brine-sched-`);
after(() => fs.rmSync(root, { recursive: true, force: true }));

function run(jid: string, minionJid: string, name = 'hs'): ScheduledReturn {
  return { jid, minionJid, name, arg: ['web'], kwarg: { test: true }, ret: { minion: 'ignored', fun: 'state.apply', return: { ok: 1 }, retcode: 0, success: true, receivedAt: 1_700_000_000_000 } };
}

test('a scheduled return becomes a job of that minion with the schedule name, stored once', () => {
  const clock = new FakeClock(1_700_000_000_000);
  const cache = JobCache.open(path.join(root, 'a', 'jobs.sqlite'), { clock, keepJobsSeconds: 60 });
  const jids = new JidGenerator(clock);
  const minionJid = '20231114221320000001';
  const first = cache.saveScheduledReturn('web1', run(jids.next(), minionJid));
  assert.equal(first.fresh, true);
  // the resend after a reconnect: same master jid, nothing new
  const again = cache.saveScheduledReturn('web1', run(jids.next(), minionJid));
  assert.deepEqual(again, { jid: first.jid, fresh: false });
  // the same minion jid from another minion is another run
  const other = cache.saveScheduledReturn('web2', run(jids.next(), minionJid, 'other'));
  assert.equal(other.fresh, true);
  assert.notEqual(other.jid, first.jid);

  const job = cache.getJob(first.jid)!;
  assert.deepEqual(
    { fun: job.fun, tgt: job.tgt, tgtType: job.tgtType, minions: job.minions, arg: job.arg, kwarg: job.kwarg, schedule: job.schedule },
    { fun: 'state.apply', tgt: 'web1', tgtType: 'glob', minions: ['web1'], arg: ['web'], kwarg: { test: true }, schedule: 'hs' },
  );
  const returns = cache.getReturns(first.jid);
  assert.deepEqual(
    returns.map((r) => [r.minion, r.return]),
    [['web1', { ok: 1 }]],
  );
  assert.deepEqual(cache.getSentTo(first.jid), ['web1']);
  assert.deepEqual(
    cache
      .listJobs()
      .map((j) => j.schedule)
      .sort(),
    ['hs', 'other'],
  );

  // purged with its job after keep_jobs_seconds; a later resend is then a new run (nothing to match)
  clock.advance(61_000);
  assert.ok(cache.purgeExpired() > 0);
  assert.equal(cache.getJob(first.jid), undefined);
  assert.equal(cache.saveScheduledReturn('web1', run(jids.next(), minionJid)).fresh, true);
  cache.close();
});

test('a published job has no schedule', () => {
  const clock = new FakeClock(1_700_000_000_000);
  const cache = JobCache.open(path.join(root, 'b', 'jobs.sqlite'), { clock });
  const jid = new JidGenerator(clock).next();
  cache.saveJob({ jid, fun: 'test.ping', arg: [], kwarg: {}, tgt: '*', tgtType: 'glob', user: 'root', minions: ['a'], startedAt: clock.now() });
  assert.equal('schedule' in cache.getJob(jid)!, false);
  cache.close();
});
