// A job's lifecycle in the minion's job runner (issue 24): the transition table with its guard,
// the first result winning, max_concurrent_jobs slots handed over in order; and, on a fake clock,
// the runner moving a real job through the phases (a job_timeout counts from running, not from
// the wait for a slot; a queued state run that is killed ends without ever running).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { JOB_PHASES, JobLifecycle, JobRunner, JobSlots, canMove, type JobPhase } from '../../../src/minion/index.js';
import type { ExecResult } from '../../../src/modules/index.js';
import type { Job } from '../../../src/protocol/index.js';
import { createMinionRegistry } from '../../../src/state/index.js';
import { FakeClock } from '../../../src/util/clock.js';
import { isBrineError } from '../../../src/util/errors.js';
import { silentLogger } from '../../../src/util/logger.js';
import { manualExecutor } from '../../helpers/manual-executor.js';
import { settle } from '../../helpers/wait.js';

const OK: ExecResult = { return: true, retcode: 0, success: true };
const KILLED: ExecResult = { return: 'killed', retcode: 1, success: false };

describe('JobLifecycle', () => {
  it('allows exactly the table: waits lead to running or ending, ending only to done, done nowhere', () => {
    // the legal walks; every step of one is allowed, and nothing else is
    const walks: JobPhase[][] = [
      ['admitting', 'awaiting-state-lock', 'awaiting-slot', 'running', 'ending', 'done'],
      ['admitting', 'awaiting-state-lock', 'running'],
      ['admitting', 'awaiting-state-lock', 'ending'],
      ['admitting', 'awaiting-slot', 'ending'],
      ['admitting', 'running'],
      ['admitting', 'ending'],
    ];
    const allowed = new Set(walks.flatMap((w) => w.slice(1).map((to, i) => `${w[i]}>${to}`)));
    for (const from of JOB_PHASES) for (const to of JOB_PHASES) assert.equal(canMove(from, to), allowed.has(`${from}>${to}`), `${from} -> ${to}`);
  });

  it('walks a job through its phases; the first result wins and is what close() returns', async () => {
    const l = new JobLifecycle();
    const seen: JobPhase[] = [l.phase];
    for (const p of ['awaiting-state-lock', 'awaiting-slot', 'running'] as const) {
      l.enter(p);
      seen.push(l.phase);
    }
    assert.deepEqual(seen, ['admitting', 'awaiting-state-lock', 'awaiting-slot', 'running']);
    assert.equal(l.hasRun, true);
    assert.equal(l.result, undefined);
    assert.equal(l.end(KILLED), true);
    assert.equal(l.end(OK), false, 'a later result is ignored');
    assert.equal(l.phase, 'ending');
    assert.equal(await l.outcome, KILLED);
    assert.equal(l.close(), KILLED);
    assert.equal(l.phase, 'done');
    assert.equal(l.end(OK), false, 'done is terminal');
  });

  it('refuses an illegal move with INTERNAL and changes nothing', () => {
    const illegal = (l: JobLifecycle, move: () => unknown, from: JobPhase): void => {
      assert.throws(move, (e: unknown) => isBrineError(e) && e.code === 'INTERNAL' && e.message.includes(`illegal job transition ${from}`));
      assert.equal(l.phase, from);
    };
    const fresh = new JobLifecycle();
    illegal(fresh, () => fresh.close(), 'admitting');
    const running = new JobLifecycle();
    running.enter('running');
    illegal(running, () => running.enter('awaiting-slot'), 'running');
    illegal(running, () => running.enter('running'), 'running');
    const ended = new JobLifecycle();
    ended.enter('awaiting-slot');
    ended.end(KILLED);
    assert.equal(ended.hasRun, false, 'ended in the line: it never held a slot');
    illegal(ended, () => ended.enter('running'), 'ending');
    ended.close();
    illegal(ended, () => ended.close(), 'done');
  });
});

describe('JobSlots', () => {
  it('never counts more than max; a released slot goes to the oldest waiter; a cancelled waiter is skipped', () => {
    const slots = new JobSlots<string>(2);
    assert.equal(slots.tryTake(), true);
    assert.equal(slots.tryTake(), true);
    assert.equal(slots.tryTake(), false);
    const admitted: string[] = [];
    for (const k of ['a', 'b', 'c']) slots.enqueue(k, () => admitted.push(k));
    assert.equal(slots.cancel('b'), true);
    assert.equal(slots.cancel('b'), false);
    slots.release();
    assert.deepEqual(admitted, ['a']);
    assert.equal(slots.inUse, 2);
    slots.release();
    slots.release();
    assert.deepEqual(admitted, ['a', 'c']);
    assert.equal(slots.inUse, 1);
    assert.equal(slots.waiting, 0);
    assert.equal(new JobSlots(0).max, 1, 'max_concurrent_jobs below 1 still runs jobs, one at a time');
  });
});

let seq = 0;
function job(fun: string, kwarg: Record<string, unknown> = {}, timeout?: number): Job {
  seq++;
  return { t: 'job', jid: `2026120700000000${String(seq).padStart(4, '0')}`, fun, arg: fun === 'test.sleep' ? [1] : [], kwarg, tgt: '*', tgtType: 'glob', ...(timeout ? { timeout } : {}) };
}

describe('JobRunner phases on a fake clock', () => {
  it('a job_timeout counts from running: ten minutes waiting for a slot do not time a job out', async () => {
    const clock = new FakeClock();
    const m = manualExecutor();
    const r = new JobRunner({ registry: createMinionRegistry(), minionId: 'm1', grains: () => ({ id: 'm1' }), config: {}, logger: silentLogger(), executor: m.executor, maxConcurrent: 1, clock });
    const a = job('test.sleep');
    const b = job('test.sleep', {}, 300);
    const pa = r.run(a);
    const pb = r.run(b);
    await settle();
    assert.deepEqual(m.started, [a.jid]);
    clock.advance(600_000);
    await settle();
    assert.equal(r.get(b.jid)?.queued, true, 'still waiting for the slot, not timed out');
    m.finish(a.jid);
    assert.equal((await pa).success, true);
    await settle();
    assert.deepEqual(m.started, [a.jid, b.jid]);
    assert.equal(r.get(b.jid)?.started, new Date(clock.now()).toISOString());
    clock.advance(299_999);
    await settle();
    assert.ok(r.isRunning(b.jid));
    clock.advance(1);
    assert.equal((await pb).error?.code, 'JOB_TIMEOUT');
    assert.equal(r.active, 0);
  });

  it('a state run waiting for the lock (queue=True) that is killed ends at once; the lock then goes to the next in line', async () => {
    const m = manualExecutor();
    const r = new JobRunner({ registry: createMinionRegistry(), minionId: 'm1', grains: () => ({ id: 'm1' }), config: {}, logger: silentLogger(), executor: m.executor, clock: new FakeClock() });
    const [a, b, c] = [job('state.apply'), job('state.sls', { queue: true }), job('state.highstate', { queue: true })];
    const [pa, pb, pc] = [r.run(a), r.run(b), r.run(c)];
    await settle();
    assert.deepEqual(
      r.list().map((j) => [j.jid, j.queued]),
      [
        [a.jid, false],
        [b.jid, true],
        [c.jid, true],
      ],
    );
    assert.equal(r.kill(b.jid), true);
    assert.match(String((await pb).ret), /killed by saltutil\.kill_job/);
    m.finish(a.jid);
    await pa;
    await settle();
    assert.deepEqual(m.started, [a.jid, c.jid], 'b never ran; c got the lock');
    m.finish(c.jid);
    assert.equal((await pc).success, true);
    assert.equal(r.active, 0);
  });
});
