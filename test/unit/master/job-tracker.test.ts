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
