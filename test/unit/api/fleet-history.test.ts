// The web view's one-day chart data (src/api/fleet-history.ts) and the connected-minion samples it
// reads from the job cache (src/jobs/presence-samples.ts): 24 hour-aligned buckets of jobs by
// status, the samples of the last day plus the count now, samples older than a day pruned.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fleetHistory, HISTORY_BUCKET_MS } from '../../../src/api/fleet-history.js';
import { JobCache, PRESENCE_SAMPLE_WINDOW_MS } from '../../../src/jobs/index.js';
import { freshPaths } from '../../helpers/paths.js';

const freshPath = freshPaths('jobs.sqlite');
const HOUR = HISTORY_BUCKET_MS;
// 10:30 on some day
const NOW = Date.UTC(2026, 11, 7, 10, 30);

describe('fleet history', () => {
  it('puts each job in its hour, the current hour last; jobs older than a day are left out', () => {
    const h = fleetHistory(NOW, [], { at: NOW, connected: 3, known: 4 }, [
      { startedAt: NOW - 60_000, status: 'failed' },
      { startedAt: NOW - 20 * 60_000, status: 'ok' },
      { startedAt: NOW - 31 * 60_000, status: 'partial' },
      { startedAt: NOW - 23 * HOUR, status: 'running' },
      { startedAt: NOW - 25 * HOUR, status: 'ok' },
    ]);
    assert.equal(h.jobs.length, 24);
    assert.equal(h.bucketMs, HOUR);
    const last = h.jobs[23]!;
    assert.equal(last.at, Date.UTC(2026, 11, 7, 10));
    assert.deepEqual([last.ok, last.failed, last.partial, last.running], [1, 1, 0, 0]);
    assert.equal(h.jobs[22]!.partial, 1, '09:59 is the hour before');
    assert.equal(h.jobs[0]!.running, 1, '23 h ago is the first bucket');
    assert.equal(
      h.jobs.reduce((n, b) => n + b.ok + b.failed + b.partial + b.running, 0),
      4,
      'the job of 25 h ago is not counted',
    );
  });

  it('ends the connected line with the count now and drops samples outside the day', () => {
    const h = fleetHistory(
      NOW,
      [
        { at: NOW - 25 * HOUR, connected: 9, known: 9 },
        { at: NOW - 2 * HOUR, connected: 1, known: 4 },
      ],
      { at: NOW, connected: 3, known: 4 },
      [],
    );
    assert.deepEqual(h.connected, [
      { at: NOW - 2 * HOUR, connected: 1, known: 4 },
      { at: NOW, connected: 3, known: 4 },
    ]);
    assert.equal(h.since, NOW - 24 * HOUR);
  });

  it('the job cache keeps the samples of the last day across reopening, oldest first', () => {
    const file = freshPath();
    let cache = JobCache.open(file);
    cache.recordPresenceSample({ at: NOW - PRESENCE_SAMPLE_WINDOW_MS - 1, connected: 7, known: 7 });
    cache.recordPresenceSample({ at: NOW - HOUR, connected: 2, known: 3 });
    cache.recordPresenceSample({ at: NOW, connected: 3, known: 3 });
    cache.close();
    cache = JobCache.open(file);
    try {
      // the first is pruned by the later writes (older than a day before them)
      assert.deepEqual(cache.presenceSamples(0), [
        { at: NOW - HOUR, connected: 2, known: 3 },
        { at: NOW, connected: 3, known: 3 },
      ]);
      assert.deepEqual(cache.presenceSamples(NOW), [{ at: NOW, connected: 3, known: 3 }]);
    } finally {
      cache.close();
    }
  });
});
