// The minion's job runner: worker-thread isolation (a busy loop blocks neither the event loop nor
// other jobs), max_concurrent_jobs, job timeouts, saltutil kill/signal on a real process tree,
// and the return-size cap with its visible marker.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { JobRunner, capReturn, type JobRunnerDeps } from '../../../src/minion/index.js';
import { createDefaultRegistry } from '../../../src/modules/index.js';
import { silentLogger } from '../../../src/util/logger.js';
import type { Job } from '../../../src/protocol/index.js';
import { alive } from '../../helpers/processes.js';

let seq = 0;
function job(fun: string, arg: unknown[] = [], kwarg: Record<string, unknown> = {}): Job {
  seq++;
  return { t: 'job', jid: `2025010100000000${String(seq).padStart(4, '0')}`, fun, arg, kwarg, tgt: '*', tgtType: 'glob' };
}

function runner(extra: Partial<JobRunnerDeps> = {}): JobRunner {
  return new JobRunner({ registry: createDefaultRegistry(), minionId: 'm1', grains: () => ({ id: 'm1' }), config: {}, logger: silentLogger(), ...extra });
}

async function waitFor<T>(fn: () => T | undefined | false, ms: number, what: string): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('JobRunner', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-'));
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('runs a busy loop in a worker: the event loop keeps ticking and another job answers meanwhile', async () => {
    const r = runner();
    let maxGap = 0;
    let last = Date.now();
    const ticker = setInterval(() => {
      const now = Date.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
    }, 20);
    const busyStart = Date.now();
    const busy = r.run(job('test.busy_wait', [2]));
    await new Promise((res) => setTimeout(res, 300));
    const ping = await r.run(job('test.ping'));
    const pingDoneAt = Date.now();
    const busyRet = await busy;
    clearInterval(ticker);
    assert.equal(ping.ret, true);
    assert.ok(pingDoneAt - busyStart < 1800, `test.ping answered after ${pingDoneAt - busyStart} ms, while the busy loop ran`);
    assert.equal(busyRet.ret, true);
    assert.ok(Date.now() - busyStart >= 2000);
    assert.ok(maxGap < 400, `the event loop stalled for ${maxGap} ms`);
  });

  it('runs at most max_concurrent_jobs at once; the rest are queued, in order, and shown as queued', async () => {
    const r = runner({ maxConcurrent: 2 });
    const jobs = [job('test.sleep', [0.6]), job('test.sleep', [0.6]), job('test.sleep', [0.6])];
    const started = Date.now();
    const done = jobs.map((j) => r.run(j).then(() => Date.now() - started));
    await new Promise((res) => setTimeout(res, 100));
    const listed = r.list();
    assert.deepEqual(listed.map((j) => [j.jid, j.queued]), [[jobs[0]!.jid, false], [jobs[1]!.jid, false], [jobs[2]!.jid, true]]);
    assert.ok(r.isRunning(jobs[2]!.jid), 'a queued job counts as running for find_job');
    const times = await Promise.all(done);
    assert.ok(times[0]! < 1100 && times[1]! < 1100, `first two in parallel: ${times.join(', ')}`);
    assert.ok(times[2]! >= 1150, `third waited for a slot: ${times[2]} ms`);
    assert.equal(r.active, 0);
  });

  it('stops a job at job_timeout, even a busy loop that never yields, with JOB_TIMEOUT', async () => {
    const r = runner({ jobTimeoutS: 0.5 });
    const started = Date.now();
    const ret = await r.run(job('test.busy_wait', [30]));
    assert.ok(Date.now() - started < 3000, `took ${Date.now() - started} ms`);
    assert.equal(ret.success, false);
    assert.equal(ret.error?.code, 'JOB_TIMEOUT');
    assert.match(String(ret.ret), /0\.5 s timeout/);
    // the slot is free again
    assert.equal((await r.run(job('test.ping'))).ret, true);
  });

  it('a timeout sent with the job wins when shorter than job_timeout', async () => {
    const r = runner({ jobTimeoutS: 60 });
    const j = { ...job('test.sleep', [30]), timeout: 0.3 };
    const ret = await r.run(j);
    assert.equal(ret.error?.code, 'JOB_TIMEOUT');
  });

  it('saltutil.kill_job ends the whole process tree of a cmd.run (the grandchild too)', async () => {
    const r = runner();
    const pidFile = path.join(tmp, 'grandchild.pid');
    const long = job('cmd.run', [`sleep 300 & echo $! > ${pidFile}; wait`]);
    const pending = r.run(long);
    const grandchild = Number(await waitFor(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim(), 5000, 'the grandchild pid'));
    assert.ok(alive(grandchild));
    const running = await r.run(job('saltutil.running'));
    const listed = running.ret as Array<{ jid: string; fun: string; pid: number }>;
    assert.deepEqual(listed.map((j) => [j.jid, j.fun]), [[long.jid, 'cmd.run']]);
    assert.notEqual(listed[0]!.pid, process.pid, 'the pid is the command process group');
    const found = await r.run(job('saltutil.find_job', [long.jid]));
    assert.equal((found.ret as { jid: string }).jid, long.jid);

    const kill = await r.run(job('saltutil.kill_job', [long.jid]));
    assert.equal(kill.success, true);
    assert.match(String(kill.ret), new RegExp(`Signal 9 sent to job ${long.jid} at pid \\d+`));
    const ret = await pending;
    assert.equal(ret.success, false);
    assert.equal(ret.error?.code, 'EXEC_FAILED');
    assert.match(String(ret.ret), /killed by saltutil\.kill_job/);
    await waitFor(() => !alive(grandchild), 3000, `grandchild ${grandchild} to be gone`);
    assert.deepEqual((await r.run(job('saltutil.find_job', [long.jid]))).ret, {});
  });

  it('saltutil.signal_job sends the signal to the process group', async () => {
    const r = runner();
    const marker = path.join(tmp, 'ready');
    const long = job('cmd.run', [`trap 'echo got-usr1; exit 3' USR1; touch ${marker}; while true; do sleep 0.05; done`]);
    const pending = r.run(long);
    await waitFor(() => fs.existsSync(marker), 5000, 'the command to start');
    const sig = await r.run(job('saltutil.signal_job', [long.jid, 'USR1']));
    assert.match(String(sig.ret), /^Signal 10 sent to job/);
    const ret = await pending;
    // the whole group got it: the sleeping child died of it (the shell reports that) and the trap ran
    assert.match(String(ret.ret), /got-usr1$/);
    assert.equal(ret.retcode, 3);
  });

  it('kill_job and signal_job refuse a jid that is not a jid, with INVALID_JID; an unknown job is reported', async () => {
    const r = runner();
    const bad = await r.run(job('saltutil.kill_job', ['../../etc']));
    assert.equal(bad.error?.code, 'INVALID_JID');
    const badSig = await r.run(job('saltutil.signal_job', ['20250101000000000000', 'NOPE']));
    assert.equal(badSig.error?.code, 'BAD_ARGUMENTS');
    const none = await r.run(job('saltutil.kill_job', ['20250101000000000000']));
    assert.equal(none.ret, 'Job 20250101000000000000 is not running on this minion');
  });

  it('kills a queued job without ever starting it', async () => {
    const r = runner({ maxConcurrent: 1 });
    const first = job('test.sleep', [0.5]);
    const queued = job('test.echo', ['never']);
    const p1 = r.run(first);
    const p2 = r.run(queued);
    assert.equal(r.get(queued.jid)?.queued, true);
    assert.equal(r.kill(queued.jid), true);
    const ret = await p2;
    assert.equal(ret.error?.code, 'EXEC_FAILED');
    assert.equal((await p1).ret, true);
    assert.equal(r.active, 0);
  });

  it('saltutil.refresh_grains is a coded error when the runner cannot refresh, and calls the hook when it can', async () => {
    const without = await runner().run(job('saltutil.refresh_grains'));
    assert.equal(without.error?.code, 'EXEC_FAILED');
    let called = 0;
    const withHook = await runner({ refreshGrains: async () => void called++ }).run(job('saltutil.refresh_grains'));
    assert.equal(withHook.ret, true);
    assert.equal(called, 1);
  });

  it('truncates a return over max_return_size with a visible marker', async () => {
    const r = runner({ maxReturnBytes: 2048 });
    const ret = await r.run(job('test.echo', ['x'.repeat(10_000)]));
    const text = ret.ret as string;
    assert.ok(Buffer.byteLength(JSON.stringify(text)) <= 2048);
    assert.match(text, /\n\[return truncated: \d+ bytes dropped\]$/);
    assert.ok(text.startsWith('xxxx'));
  });

  it('reports bad arguments and unknown functions as coded returns', async () => {
    const r = runner();
    assert.equal((await r.run(job('test.sleep', [], { length: 1, bogus: 2 }))).error?.code, 'BAD_ARGUMENTS');
    assert.equal((await r.run(job('nope.nothing'))).error?.code, 'UNKNOWN_FUNCTION');
  });
});

describe('capReturn', () => {
  it('keeps a return that fits and cuts structured data to a marked JSON prefix', () => {
    assert.deepEqual(capReturn({ a: 1 }, 1024), { value: { a: 1 }, dropped: 0 });
    const big = { list: Array.from({ length: 500 }, (_, i) => `item-${i}`) };
    const capped = capReturn(big, 1024);
    assert.equal(typeof capped.value, 'string');
    assert.ok((capped.value as string).startsWith('{"list":["item-0"'));
    assert.match(capped.value as string, /\[return truncated: \d+ bytes dropped\]$/);
    assert.ok(Buffer.byteLength(JSON.stringify(capped.value)) <= 1024);
  });

  it('stays under the limit when escapes make the JSON longer than the text, and never splits a character', () => {
    const capped = capReturn('\n'.repeat(5000) + 'é'.repeat(5000), 1500);
    assert.ok(Buffer.byteLength(JSON.stringify(capped.value)) <= 1500);
    const utf = capReturn('é'.repeat(5000), 1001);
    assert.ok(!(utf.value as string).includes('\ufffd'));
  });
});
