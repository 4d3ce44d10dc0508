// One state run per minion (issue 9): the job runner refuses a second state run with
// STATE_RUN_IN_PROGRESS naming the running jid, or queues it with queue=True; show_* and other
// functions never wait. Jobs run on an executor the test releases by hand, so nothing races.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { JobRunner, type JobExecutor } from '../../../src/minion/index.js';
import type { Job } from '../../../src/protocol/index.js';
import { createMinionRegistry } from '../../../src/state/index.js';
import { silentLogger } from '../../../src/util/logger.js';
import { manualExecutor } from '../../helpers/manual-executor.js';
import { waitUntil } from '../../helpers/wait.js';

let seq = 0;
function job(fun: string, kwarg: Record<string, unknown> = {}): Job {
  seq++;
  return { t: 'job', jid: `2026120313441700${String(seq).padStart(4, '0')}`, fun, arg: [], kwarg, tgt: '*', tgtType: 'glob' };
}

function runner(executor: JobExecutor): JobRunner {
  return new JobRunner({ registry: createMinionRegistry(), minionId: 'm1', grains: () => ({ id: 'm1' }), config: {}, logger: silentLogger(), executor });
}

describe('one state run per minion', () => {
  it('a second state run is refused with STATE_RUN_IN_PROGRESS naming the running jid and pid, in Salt words', async () => {
    const m = manualExecutor();
    const r = runner(m.executor);
    const first = job('state.apply');
    const p1 = r.run(first);
    await waitUntil(() => m.started.length === 1, 10_000, 'the first state run to start');
    for (const fun of ['state.sls', 'state.highstate', 'state.single', 'state.sls_id', 'state.apply', 'state.test']) {
      const second = await r.run(job(fun, { test: true }));
      assert.equal(second.success, false);
      assert.equal(second.retcode, 1);
      assert.equal(second.error?.code, 'STATE_RUN_IN_PROGRESS');
      assert.ok(Array.isArray(second.ret));
      assert.match(
        String((second.ret as string[])[0]),
        new RegExp(`^The function "state.apply" is running as PID \\d+ and was started at \\d{4}, \\w{3} \\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{6} with jid ${first.jid}$`),
      );
      assert.match(String(second.error?.message), /queue=True/);
    }
    // concurrent=True (Salt's opt-out) neither waits nor is refused
    const conc = r.run(job('state.single', { concurrent: true }));
    await waitUntil(() => m.started.length === 2, 10_000, 'the concurrent run to start');
    m.finish(m.started[1]!);
    assert.equal((await conc).success, true);
    // state.running (inline, on the main thread) names the running state run
    const running = await r.run(job('state.running'));
    assert.equal((running.ret as string[]).length, 1);
    assert.match((running.ret as string[])[0]!, new RegExp(`with jid ${first.jid}$`));
    // show_* functions and other modules run meanwhile
    const show = r.run(job('state.show_top'));
    const other = r.run(job('test.ping'));
    await waitUntil(() => m.started.length === 4, 10_000, 'show_top and test.ping to start');
    assert.deepEqual(m.startedFuns.slice(2), ['state.show_top', 'test.ping']);
    for (const jid of m.started.slice(2)) m.finish(jid);
    assert.equal((await show).success, true);
    assert.equal((await other).success, true);
    m.finish(first.jid);
    assert.equal((await p1).success, true);
    // the lock is free again
    const third = r.run(job('state.sls'));
    await waitUntil(() => m.started.length === 5, 10_000, 'a new state run to start');
    m.finish(m.started[4]!);
    assert.equal((await third).success, true);
  });

  it('queue=True waits for the running state run and then runs, in arrival order', async () => {
    const m = manualExecutor();
    const r = runner(m.executor);
    const a = job('state.apply');
    const b = job('state.sls', { queue: true });
    const c = job('state.highstate', { queue: true });
    const pa = r.run(a);
    await waitUntil(() => m.started.length === 1, 10_000, 'a to start');
    const pb = r.run(b);
    const pc = r.run(c);
    // both wait: listed as queued jobs, not started
    await waitUntil(() => r.list().filter((j) => j.queued).length === 2, 10_000, 'b and c to queue');
    assert.equal(m.started.length, 1);
    m.finish(a.jid);
    await pa;
    await waitUntil(() => m.started.length === 2, 10_000, 'b to start');
    assert.equal(m.started[1], b.jid);
    assert.equal(m.startedFuns[1], 'state.sls');
    m.finish(b.jid);
    await pb;
    await waitUntil(() => m.started.length === 3, 10_000, 'c to start');
    m.finish(c.jid);
    assert.equal((await pc).success, true);
  });

  it('a queued state run that is killed ends at once and never starts', async () => {
    const m = manualExecutor();
    const r = runner(m.executor);
    const a = job('state.apply');
    const b = job('state.apply', { queue: true });
    const pa = r.run(a);
    await waitUntil(() => m.started.length === 1, 10_000, 'a to start');
    const pb = r.run(b);
    await waitUntil(() => r.get(b.jid) !== undefined, 10_000, 'b to queue');
    assert.equal(r.kill(b.jid), true);
    const rb = await pb;
    assert.equal(rb.success, false);
    m.finish(a.jid);
    await pa;
    assert.equal(m.started.length, 1);
  });
});
