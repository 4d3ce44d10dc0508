// src/reactor/loop-guard.ts and work-queue.ts with a fake clock: the causation chain limit, the
// per-SLS-per-tag rate, and the bounded queue (reactor_worker_threads / reactor_worker_hwm).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LoopGuard, WorkQueue } from '../../../src/reactor/index.js';
import { FakeClock } from '../../../src/util/clock.js';

test("an SLS may appear in an event's causal chain maxRepeats times; others in the chain do not count", () => {
  const g = new LoopGuard(new FakeClock(), { maxRepeats: 3, perSecond: 100, maxJobs: 10 });
  assert.deepEqual(g.admit('/a.sls', 't', ['/a.sls', '/b.sls', '/a.sls']), { ok: true });
  const v = g.admit('/a.sls', 't', ['/a.sls', '/a.sls', '/a.sls']);
  assert.equal(v.ok, false);
  assert.equal(v.ok === false && v.rule, 'chain');
  assert.deepEqual(g.admit('/b.sls', 't', ['/a.sls', '/a.sls', '/a.sls']), { ok: true });
});

test('a job published by a reaction passes its chain to events naming its jid; the oldest jobs are forgotten past maxJobs', () => {
  const g = new LoopGuard(new FakeClock(), { maxRepeats: 3, perSecond: 100, maxJobs: 2 });
  g.noteJob('1', ['/a.sls']);
  g.noteJob('2', ['/a.sls', '/a.sls']);
  assert.deepEqual(g.chainOf({ jid: '2', id: 'web1' }), ['/a.sls', '/a.sls']);
  assert.deepEqual(g.chainOf({ id: 'web1' }), []);
  g.noteJob('3', ['/b.sls']);
  assert.deepEqual(g.chainOf({ jid: '1' }), [], 'forgotten');
  assert.deepEqual(g.chainOf({ jid: '3' }), ['/b.sls']);
});

test('rate: one SLS reacts to one exact tag perSecond times per second; another tag or the next second is admitted', () => {
  const clock = new FakeClock();
  const g = new LoopGuard(clock, { maxRepeats: 3, perSecond: 2, maxJobs: 10 });
  assert.equal(g.admit('/a.sls', 'my/tag', []).ok, true);
  assert.equal(g.admit('/a.sls', 'my/tag', []).ok, true);
  const third = g.admit('/a.sls', 'my/tag', []);
  assert.equal(third.ok === false && third.rule, 'rate');
  // a thousand minions starting at once: each its own tag
  assert.equal(g.admit('/a.sls', 'salt/minion/web2/start', []).ok, true);
  assert.equal(g.admit('/b.sls', 'my/tag', []).ok, true);
  clock.advance(1000);
  assert.equal(g.admit('/a.sls', 'my/tag', []).ok, true);
});

test('the work queue runs `workers` at once, holds `hwm`, drops and counts past it, and is idle once all finished', async () => {
  const q = new WorkQueue(2, 1);
  const releases: Array<() => void> = [];
  const started: number[] = [];
  const work = (n: number) => () =>
    new Promise<void>((resolve) => {
      started.push(n);
      releases.push(resolve);
    });
  assert.equal(q.push(work(1)), true);
  assert.equal(q.push(work(2)), true);
  assert.equal(q.push(work(3)), true, 'waits');
  assert.equal(q.push(work(4)), false, 'past the high-water mark');
  assert.equal(q.dropped, 1);
  assert.deepEqual(started, [1, 2]);
  assert.deepEqual(q.size, { running: 2, waiting: 1 });
  releases[0]!();
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(started, [1, 2, 3]);
  let idle = false;
  const done = q.idle().then(() => (idle = true));
  releases[1]!();
  releases[2]!();
  await done;
  assert.equal(idle, true);
  assert.deepEqual(q.size, { running: 0, waiting: 0 });
});

test('a failing work item does not stop the queue', async () => {
  const q = new WorkQueue(1, 10);
  const ran: string[] = [];
  q.push(() => Promise.reject(new Error('boom')));
  q.push(async () => {
    ran.push('next');
  });
  await q.idle();
  assert.deepEqual(ran, ['next']);
});
