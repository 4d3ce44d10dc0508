// Publishing when the job cache cannot record whom a job was sent to (disk full, damaged file): the
// job has left already, so the CLI still gets its jid and the failure is logged for the operator.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { JidGenerator, JobCache } from '../../../src/jobs/index.js';
import { JobTracker } from '../../../src/master/job-tracker.js';
import { FakeClock } from '../../../src/util/clock.js';
import { createLogger } from '../../../src/util/logger.js';

test('a job whose sent-to list cannot be stored is still published, and the failure is logged', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-tracker-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'jobs.sqlite');
  const clock = new FakeClock(Date.UTC(2024, 0, 1));
  const cache = JobCache.open(file);
  t.after(() => cache.close());
  // the storage fails under the cache, as a full disk would: the table it writes is gone
  const other = new Database(file);
  other.exec('DROP TABLE job_sent');
  other.close();
  const lines: string[] = [];
  const logger = createLogger({ name: 'test', level: 'warning', format: 'json', write: (l) => lines.push(l) });
  const tracker = new JobTracker({ clock, logger, cache, jids: new JidGenerator(clock), acceptedIds: () => ['web1'], session: () => undefined, defaultTimeoutS: 5 });
  let done = false;
  const published = tracker.publish(
    { t: 'publish', tgt: '*', tgtType: 'glob', fun: 'test.ping', arg: [], kwarg: {} },
    {
      onReturn: () => {},
      onDone: () => (done = true),
    },
  );
  assert.equal(published.t, 'published');
  assert.deepEqual(published.notConnected, ['web1']);
  assert.equal(cache.getJob(published.jid)?.fun, 'test.ping', 'the job itself is stored');
  assert.ok(
    lines.some((l) => l.includes(`job ${published.jid} was sent, but the minions it was sent to could not be stored`)),
    lines.join(''),
  );
  assert.equal(done, false, 'done comes later, asynchronously');
});

test('`within` evaluates the target among those minions alone: others are neither targeted nor reported missing (threats.md #43)', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-tracker-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const clock = new FakeClock(Date.UTC(2024, 0, 1));
  const cache = JobCache.open(path.join(dir, 'jobs.sqlite'));
  t.after(() => cache.close());
  const logger = createLogger({ name: 'test', level: 'error', format: 'json', write: () => {} });
  const pillar: Record<string, Record<string, unknown>> = { db1: { dbpass: 'hunter2' } };
  const tracker = new JobTracker({
    clock,
    logger,
    cache,
    jids: new JidGenerator(clock),
    acceptedIds: () => ['web1', 'web2', 'db1'],
    session: () => undefined,
    defaultTimeoutS: 5,
    targeting: { pillar: (id) => pillar[id] ?? {} },
  });
  const sink = { onReturn: () => {}, onDone: () => {} };
  const pub = (tgt: string, tgtType: 'compound' | 'glob', within?: string[]) =>
    tracker.publish({ t: 'publish', tgt, tgtType, fun: 'test.ping', arg: [], kwarg: {}, ...(within ? { within } : {}) }, sink);
  // without `within` the pillar term selects db1 (root's view)
  assert.deepEqual(pub('web1 or ( db1 and J@dbpass:^h )', 'compound').minions, ['web1', 'db1']);
  assert.deepEqual(pub('web1 or ( db1 and J@dbpass:^h )', 'compound', ['web1', 'web2']).minions, ['web1']);
  assert.deepEqual(pub('not web2', 'compound', ['web1', 'web2']).minions, ['web1'], '`not` is taken within the list too');
  assert.deepEqual(pub('*', 'glob', ['web2', 'gone']).minions, ['web2'], 'an ID no longer accepted is ignored');
  assert.throws(() => pub('db1', 'glob', ['web1', 'web2']), /No minions matched/);
});
