import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { JobCache, JidGenerator, type JobRecord } from '../../../src/jobs/index.js';
import { FakeClock } from '../../../src/util/clock.js';
import { isBrineError } from '../../../src/util/errors.js';
import { freshPaths } from '../../helpers/paths.js';

const freshPath = freshPaths('jobs', 'cache.sqlite');

function job(jid: string, startedAt: number, extra: Partial<JobRecord> = {}): JobRecord {
  return {
    jid,
    fun: 'cmd.run',
    arg: ['echo hi', 1, true, null, { nested: [1, 'x'] }],
    kwarg: { timeout: 5, env: { A: 'b' } },
    tgt: 'web*',
    tgtType: 'glob',
    user: 'root',
    minions: ['web1', 'web2'],
    startedAt,
    ...extra,
  };
}

test('open creates the parent directory, WAL mode and a schema version', () => {
  const file = freshPath();
  const cache = JobCache.open(file);
  cache.close();
  cache.close(); // idempotent
  assert.ok(fs.existsSync(file));
  assert.equal(fs.statSync(file).mode & 0o077, 0, 'job cache must not be readable by others');
  const db = new Database(file, { readonly: true });
  try {
    assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
    assert.deepEqual(db.prepare('SELECT version FROM schema_version').all(), [{ version: 1 }]);
  } finally {
    db.close();
  }
});

test('a job and its returns round-trip through the file, and survive reopening', () => {
  const file = freshPath();
  const clock = new FakeClock(Date.UTC(2024, 0, 1));
  const jid = new JidGenerator(clock).next();
  const cache = JobCache.open(file, { clock });
  cache.saveJob(job(jid, clock.now(), { tgt: ['web1', 'web2'], tgtType: 'list' }));
  assert.equal(cache.saveReturn({ jid, minion: 'web2', fun: 'cmd.run', return: 'hi\nthere', retcode: 0, success: true, receivedAt: clock.now() + 20 }), true);
  assert.equal(
    cache.saveReturn({
      jid,
      minion: 'web1',
      fun: 'cmd.run',
      return: { a: [1, null, false] },
      retcode: 2,
      success: false,
      error: { code: 'EXEC_FAILED', message: 'boom' },
      receivedAt: clock.now() + 10,
    }),
    true,
  );
  cache.close();

  const again = JobCache.open(file, { clock });
  try {
    assert.deepEqual(again.getJob(jid), job(jid, clock.now(), { tgt: ['web1', 'web2'], tgtType: 'list' }));
    const rets = again.getReturns(jid);
    assert.deepEqual(
      rets.map((r) => r.minion),
      ['web1', 'web2'],
      'ordered by arrival',
    );
    assert.deepEqual(rets[0], {
      jid,
      minion: 'web1',
      fun: 'cmd.run',
      return: { a: [1, null, false] },
      retcode: 2,
      success: false,
      error: { code: 'EXEC_FAILED', message: 'boom' },
      receivedAt: clock.now() + 10,
    });
    assert.deepEqual(rets[1], { jid, minion: 'web2', fun: 'cmd.run', return: 'hi\nthere', retcode: 0, success: true, receivedAt: clock.now() + 20 });
    assert.equal(again.getJob('20000101000000000000'), undefined);
    assert.deepEqual(again.getReturns('20000101000000000000'), []);
  } finally {
    again.close();
  }
});

test('a second return from the same minion for the same jid is refused and not stored', () => {
  const file = freshPath();
  const cache = JobCache.open(file);
  try {
    const jid = '20240101000000000001';
    cache.saveJob(job(jid, 1));
    const first = { jid, minion: 'web1', fun: 'test.ping', return: true, retcode: 0, success: true, receivedAt: 5 };
    assert.equal(cache.saveReturn(first), true);
    assert.equal(cache.saveReturn({ ...first, return: false, retcode: 1, receivedAt: 9 }), false);
    const rets = cache.getReturns(jid);
    assert.equal(rets.length, 1);
    assert.equal(rets[0]!.return, true, 'the first return wins');
    // A different minion for the same jid is not a duplicate.
    assert.equal(cache.saveReturn({ ...first, minion: 'web2' }), true);
    assert.equal(cache.getReturns(jid).length, 2);
  } finally {
    cache.close();
  }
});

test('saving a job twice is an error, not a silent overwrite', () => {
  const cache = JobCache.open(freshPath());
  try {
    const jid = '20240101000000000002';
    cache.saveJob(job(jid, 1));
    assert.throws(() => cache.saveJob(job(jid, 2, { fun: 'other.fun' })), /already stored/);
    assert.equal(cache.getJob(jid)!.fun, 'cmd.run');
  } finally {
    cache.close();
  }
});

test('bad jids and minion ids are refused before touching the database', () => {
  const cache = JobCache.open(freshPath());
  try {
    assert.throws(
      () => cache.getJob('../../proc/self/fd/0'),
      (e: unknown) => isBrineError(e, 'INVALID_JID'),
    );
    assert.throws(
      () => cache.saveJob(job('1234', 1)),
      (e: unknown) => isBrineError(e, 'INVALID_JID'),
    );
    assert.throws(
      () => cache.saveReturn({ jid: '20240101000000000003', minion: '../etc', fun: 'f', return: 1, retcode: 0, success: true, receivedAt: 1 }),
      (e: unknown) => isBrineError(e, 'INVALID_ID'),
    );
  } finally {
    cache.close();
  }
});

test('saveReturns checks every jid and minion ID of a batch, not only the first: a bad one stores nothing', () => {
  const clock = new FakeClock(Date.UTC(2024, 0, 1));
  const jids = new JidGenerator(clock);
  const a = jids.next();
  const b = jids.next();
  const cache = JobCache.open(freshPath(), { clock });
  try {
    const ret = (jid: string, minion: string) => ({ jid, minion, fun: 'test.ping', return: true, retcode: 0, success: true, receivedAt: clock.now() });
    assert.throws(
      () => cache.saveReturns([ret(a, 'web1'), ret(a, 'web2'), ret('2024010100000000000x', 'web3'), ret(a, 'web4')]),
      (e: unknown) => isBrineError(e, 'INVALID_JID'),
    );
    assert.throws(
      () => cache.saveReturns([ret(a, 'web1'), ret(b, 'web1'), ret(a, '../etc')]),
      (e: unknown) => isBrineError(e, 'INVALID_ID'),
    );
    assert.equal(cache.countReturns(a), 0, 'nothing of a refused batch is stored');
    assert.deepEqual(cache.saveReturns([ret(a, 'web1'), ret(b, 'web1'), ret(a, 'web1'), ret(a, 'web2')]), [true, true, false, true]);
    assert.equal(cache.countReturns(a), 2);
  } finally {
    cache.close();
  }
});

test('a fleet round of small commits is not checkpointed every 1,000 WAL pages (wal_autocheckpoint)', () => {
  const file = freshPath();
  const clock = new FakeClock(Date.UTC(2024, 0, 1));
  const jid = new JidGenerator(clock).next();
  const cache = JobCache.open(file, { clock });
  try {
    // 10,000 minions' returns in arrival order (scattered over the (jid, minion) index), 128 per commit
    const rets = Array.from({ length: 10_000 }, (_, i) => ({
      jid,
      minion: `emu-${String((i * 7919) % 10_000).padStart(5, '0')}`,
      fun: 'test.ping',
      return: true,
      retcode: 0,
      success: true,
      receivedAt: clock.now(),
    }));
    for (let i = 0; i < rets.length; i += 128) cache.saveReturns(rets.slice(i, i + 128));
    const pageSize = 4096;
    const walPages = fs.statSync(`${file}-wal`).size / (pageSize + 24);
    // SQLite's default (1,000) would have checkpointed and restarted the WAL at ~1,000 pages
    assert.ok(walPages > 1500, `the WAL holds the round's ${Math.round(walPages)} pages`);
    assert.equal(cache.countReturns(jid), 10_000);
  } finally {
    cache.close();
  }
});

test('listJobs is newest first, honours limit and since', () => {
  const cache = JobCache.open(freshPath());
  try {
    const gen = new JidGenerator({ now: () => Date.UTC(2024, 0, 1) });
    const jids = [gen.next(), gen.next(), gen.next()];
    jids.forEach((jid, i) => {
      cache.saveJob(job(jid, 1000 * (i + 1)));
    });
    assert.deepEqual(
      cache.listJobs().map((j) => j.jid),
      [...jids].reverse(),
    );
    assert.deepEqual(
      cache.listJobs({ limit: 2 }).map((j) => j.jid),
      [jids[2], jids[1]],
    );
    assert.deepEqual(
      cache.listJobs({ since: 2000 }).map((j) => j.jid),
      [jids[2], jids[1]],
    );
  } finally {
    cache.close();
  }
});

test('purgeExpired drops jobs older than keep_jobs_seconds with their returns', () => {
  const clock = new FakeClock(Date.UTC(2024, 0, 1));
  const cache = JobCache.open(freshPath(), { keepJobsSeconds: 3600, clock });
  try {
    const old = '20240101000000000000';
    const recent = '20240101005000000000';
    const orphan = '20231231000000000000'; // a late return whose job was never stored
    cache.saveJob(job(old, clock.now()));
    cache.saveReturn({ jid: old, minion: 'web1', fun: 'f', return: 1, retcode: 0, success: true, receivedAt: clock.now() });
    cache.saveReturn({ jid: orphan, minion: 'web1', fun: 'f', return: 1, retcode: 0, success: true, receivedAt: clock.now() });
    clock.advance(50 * 60 * 1000);
    cache.saveJob(job(recent, clock.now()));
    cache.saveReturn({ jid: recent, minion: 'web1', fun: 'f', return: 1, retcode: 0, success: true, receivedAt: clock.now() });

    assert.equal(cache.purgeExpired(), 0, 'nothing is an hour old yet');
    clock.advance(11 * 60 * 1000); // old job is now 61 minutes old, recent one 11
    assert.equal(cache.purgeExpired(), 3, 'old job, its return and the orphan return');
    assert.equal(cache.getJob(old), undefined);
    assert.deepEqual(cache.getReturns(old), []);
    assert.deepEqual(cache.getReturns(orphan), []);
    assert.equal(cache.getJob(recent)!.jid, recent);
    assert.equal(cache.getReturns(recent).length, 1);
    assert.equal(cache.purgeExpired(), 0);
  } finally {
    cache.close();
  }
});

test('purgeExpiredInBatches deletes what purgeExpired would, in steps of at most batchRows rows that yield to the event loop', async () => {
  const clock = new FakeClock(Date.UTC(2024, 0, 1));
  const file = freshPath();
  const cache = JobCache.open(file, { keepJobsSeconds: 3600, clock });
  try {
    const gen = new JidGenerator(clock);
    const old: string[] = [];
    for (let j = 0; j < 6; j++) {
      const jid = gen.next();
      old.push(jid);
      cache.saveJob(job(jid, clock.now()));
      cache.saveSentTo(jid, ['web1']);
      for (let m = 0; m < 7; m++) cache.saveReturn({ jid, minion: `web${m}`, fun: 'cmd.run', return: m, retcode: 0, success: true, receivedAt: clock.now() });
    }
    cache.saveScheduledReturn('web1', {
      jid: gen.next(),
      minionJid: '20231231000000000001',
      name: 'drift',
      arg: [],
      kwarg: {},
      ret: { minion: 'web1', fun: 'state.apply', return: {}, retcode: 0, success: true, receivedAt: clock.now() },
    });
    cache.saveReturn({ jid: '20231231000000000000', minion: 'web1', fun: 'f', return: 1, retcode: 0, success: true, receivedAt: clock.now() }); // orphan
    clock.advance(2 * 3_600_000);
    const recent = gen.next();
    cache.saveJob(job(recent, clock.now()));
    cache.saveReturn({ jid: recent, minion: 'web1', fun: 'cmd.run', return: 1, retcode: 0, success: true, receivedAt: clock.now() });
    assert.equal(cache.countReturns(old[0]!), 7);

    // count the event-loop turns the purge leaves to others
    let turns = 0;
    let spinning = true;
    const spin = () => {
      turns++;
      if (spinning) setImmediate(spin);
    };
    setImmediate(spin);
    // 6 jobs x 7 returns + 1 scheduled return = 43 returns; 7 jobs; 1 orphan
    const purged = await cache.purgeExpiredInBatches(5);
    spinning = false;
    assert.equal(purged, 43 + 7 + 1);
    assert.ok(turns >= Math.ceil(43 / 5), `the purge yielded between its steps (${turns} turns)`);
    for (const jid of old) {
      assert.equal(cache.getJob(jid), undefined);
      assert.equal(cache.countReturns(jid), 0);
      assert.equal(cache.getSentTo(jid), undefined, 'job_sent rows go with their job');
    }
    assert.deepEqual(cache.getReturns('20231231000000000000'), []);
    assert.equal(cache.getJob(recent)?.jid, recent);
    assert.equal(cache.countReturns(recent), 1);
    const db = new Database(file, { readonly: true });
    try {
      assert.equal((db.prepare('SELECT COUNT(*) AS n FROM job_schedule').get() as { n: number }).n, 0, 'job_schedule rows go with their job');
    } finally {
      db.close();
    }
    assert.equal(await cache.purgeExpiredInBatches(5), 0);
  } finally {
    cache.close();
  }
});

test('purgeExpiredInBatches stops quietly when the cache is closed between steps', async () => {
  const clock = new FakeClock(Date.UTC(2024, 0, 1));
  const cache = JobCache.open(freshPath(), { keepJobsSeconds: 60, clock });
  const jid = '20240101000000000000';
  cache.saveJob(job(jid, clock.now()));
  for (let m = 0; m < 20; m++) cache.saveReturn({ jid, minion: `web${m}`, fun: 'f', return: m, retcode: 0, success: true, receivedAt: clock.now() });
  clock.advance(120_000);
  const purging = cache.purgeExpiredInBatches(2);
  cache.close();
  const n = await purging;
  assert.equal(n, 2, 'one step ran, then the purge saw the cache closed');
});

test('keep_jobs_seconds 0 keeps jobs forever, as in Salt', () => {
  const clock = new FakeClock(Date.UTC(2024, 0, 1));
  const cache = JobCache.open(freshPath(), { keepJobsSeconds: 0, clock });
  try {
    cache.saveJob(job('20240101000000000000', clock.now()));
    clock.advance(365 * 86_400_000);
    assert.equal(cache.purgeExpired(), 0);
    assert.ok(cache.getJob('20240101000000000000'));
  } finally {
    cache.close();
  }
});

test('a damaged cache file surfaces as a BrineError that says what to do', () => {
  const file = freshPath();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, 'this is not a sqlite database, just some bytes'.repeat(100));
  assert.throws(
    () => JobCache.open(file),
    (err: unknown) => {
      assert.ok(isBrineError(err));
      assert.match(err.message, /damaged|move the file aside/);
      assert.ok(err.cause !== undefined);
      return true;
    },
  );
});

test('using a closed cache is a clear error', () => {
  const cache = JobCache.open(freshPath());
  cache.close();
  assert.throws(() => cache.listJobs(), /closed/);
});
