// The minion's job runner: worker-thread isolation (a busy loop blocks neither the event loop nor
// other jobs), max_concurrent_jobs, job timeouts, saltutil kill/signal on a real process tree,
// and the return-size cap with its visible marker. Timeouts and start times run on a fake clock, so
// no assertion depends on how fast this machine is.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { JobRunner, capReturn, type JobExecutor, type JobRunnerDeps } from '../../../src/minion/index.js';
import type { ExecResult } from '../../../src/modules/index.js';
import { createDefaultRegistry } from '../../../src/modules/index.js';
import { silentLogger } from '../../../src/util/logger.js';
import { FakeClock } from '../../../src/util/clock.js';
import type { Job } from '../../../src/protocol/index.js';
import { alive } from '../../helpers/processes.js';
import { waitUntil } from '../../helpers/wait.js';

let seq = 0;
function job(fun: string, arg: unknown[] = [], kwarg: Record<string, unknown> = {}): Job {
  seq++;
  return { t: 'job', jid: `2025010100000000${String(seq).padStart(4, '0')}`, fun, arg, kwarg, tgt: '*', tgtType: 'glob' };
}

function runner(extra: Partial<JobRunnerDeps> = {}): JobRunner {
  return new JobRunner({ registry: createDefaultRegistry(), minionId: 'm1', grains: () => ({ id: 'm1' }), config: {}, logger: silentLogger(), ...extra });
}

describe('JobRunner', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-'));
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('runs a busy loop in a worker: the event loop keeps ticking and another job answers meanwhile', async (t) => {
    const r = runner();
    t.after(() => r.abortAll());
    const cpuBefore = process.cpuUsage().user;
    let settled = false;
    const busy = job('test.busy_wait', [600]);
    const pending = r.run(busy).finally(() => (settled = true));
    // the loop is spinning once this process has burnt CPU that its (idle, awaiting) main thread did not
    let ticks = 0;
    await waitUntil(
      () => {
        ticks++;
        return process.cpuUsage().user - cpuBefore > 300_000;
      },
      10_000,
      'the busy loop to spin in its worker',
    );
    assert.ok(ticks > 1, 'the main thread kept running timers while the loop spun');
    const ping = await r.run(job('test.ping'));
    assert.equal(ping.ret, true);
    assert.equal(settled, false, 'test.ping answered while the busy loop still ran');
    assert.ok(r.isRunning(busy.jid));
    assert.equal(r.kill(busy.jid), true);
    assert.equal((await pending).error?.code, 'EXEC_FAILED');
  });

  it('runs at most max_concurrent_jobs at once; the rest are queued, in order, and shown as queued', async (t) => {
    const clock = new FakeClock();
    const r = runner({ maxConcurrent: 2, clock });
    t.after(() => r.abortAll());
    const jobs = [job('test.sleep', [3000]), job('test.sleep', [3000]), job('test.sleep', [3000]), job('test.sleep', [3000])];
    const done = jobs.map((j) => r.run(j));
    const queued = () => r.list().map((j) => [j.jid, j.queued]);
    assert.deepEqual(queued(), [
      [jobs[0]!.jid, false],
      [jobs[1]!.jid, false],
      [jobs[2]!.jid, true],
      [jobs[3]!.jid, true],
    ]);
    assert.ok(r.isRunning(jobs[2]!.jid), 'a queued job counts as running for find_job');
    assert.equal(r.get(jobs[0]!.jid)?.started, new Date(clock.now()).toISOString(), 'start times come from the injected clock');

    // a slot frees: the oldest queued job takes it, the next one keeps waiting
    clock.advance(5000);
    r.kill(jobs[0]!.jid);
    await done[0];
    await waitUntil(() => r.get(jobs[2]!.jid)?.queued === false, 20_000, 'the third job to start');
    assert.deepEqual(queued(), [
      [jobs[1]!.jid, false],
      [jobs[2]!.jid, false],
      [jobs[3]!.jid, true],
    ]);
    assert.equal(r.get(jobs[2]!.jid)?.started, new Date(clock.now()).toISOString(), 'started when it left the queue');
    for (const j of jobs.slice(1)) r.kill(j.jid);
    await Promise.all(done);
    assert.equal(r.active, 0);
  });

  it('stops a job at job_timeout, even a busy loop that never yields, with JOB_TIMEOUT', async (t) => {
    const clock = new FakeClock();
    const r = runner({ jobTimeoutS: 900, clock });
    t.after(() => r.abortAll());
    const busy = job('test.busy_wait', [600]);
    let settled = false;
    const pending = r.run(busy).finally(() => (settled = true));
    clock.advance(899_999);
    await new Promise((res) => setImmediate(res));
    assert.equal(settled, false, 'not before the timeout');
    assert.ok(r.isRunning(busy.jid));
    clock.advance(1);
    const ret = await pending;
    assert.equal(ret.success, false);
    assert.equal(ret.error?.code, 'JOB_TIMEOUT');
    assert.match(String(ret.ret), /900 s timeout/);
    // the slot is free again
    assert.equal((await r.run(job('test.ping'))).ret, true);
  });

  it('a timeout sent with the job wins when shorter than job_timeout', async () => {
    const clock = new FakeClock();
    const r = runner({ jobTimeoutS: 3600, clock });
    const pending = r.run({ ...job('test.sleep', [3000]), timeout: 300 });
    clock.advance(300_000);
    const ret = await pending;
    assert.equal(ret.error?.code, 'JOB_TIMEOUT');
    assert.match(String(ret.ret), /300 s timeout/);
  });

  it('runFunction (the mine) runs in a worker outside the job table, with its own timeout, and is stopped at shutdown', async (t) => {
    const clock = new FakeClock();
    const r = runner({ clock });
    t.after(() => r.abortAll());
    assert.deepEqual(await r.runFunction('test.echo', ['hi'], {}, '20250101000000009999'), { return: 'hi', retcode: 0, success: true });
    let settled = false;
    const slow = r.runFunction('test.sleep', [3000], {}, '20250101000000009998', 600).finally(() => (settled = true));
    await new Promise((res) => setImmediate(res));
    assert.deepEqual(r.list(), [], 'not listed by saltutil.running');
    assert.equal(r.active, 0);
    clock.advance(599_999);
    await new Promise((res) => setImmediate(res));
    assert.equal(settled, false);
    clock.advance(1);
    const timedOut = await slow;
    assert.equal(timedOut.error?.code, 'JOB_TIMEOUT');
    const stopped = r.runFunction('test.sleep', [3000], {}, '20250101000000009997');
    await new Promise((res) => setImmediate(res));
    r.abortAll();
    assert.match(String((await stopped).return), /shutting down/);
  });

  it('a timed-out command gets SIGTERM, and SIGKILL only after the grace period if it ignores that', async (t) => {
    const clock = new FakeClock();
    const r = runner({ jobTimeoutS: 600, clock });
    t.after(() => r.abortAll());
    const marker = path.join(tmp, 'ignores-term');
    const long = job('cmd.run', [`trap '' TERM; touch ${marker}; while true; do sleep 0.05; done`]);
    const pending = r.run(long);
    await waitUntil(() => fs.existsSync(marker), 20_000, 'the command to start');
    // the command's pid message may still be in flight behind the marker (a loaded machine)
    await waitUntil(() => r.get(long.jid)?.pid !== process.pid, 20_000, "the command's pid to reach the job table");
    const pgid = r.get(long.jid)!.pid;
    clock.advance(600_000);
    assert.equal((await pending).error?.code, 'JOB_TIMEOUT');
    // SIGTERM is ignored: the group lives on until the grace period has passed on the clock
    assert.ok(alive(pgid), 'a command that ignores SIGTERM survives it');
    clock.advance(1999);
    assert.ok(alive(pgid), 'no SIGKILL before the 2 s grace');
    clock.advance(1);
    await waitUntil(() => !alive(pgid), 20_000, `process group ${pgid} to be killed`);
  });

  it('kill_job right after the start ends the command even before its pid message arrived (read from shared memory)', async (t) => {
    // an executor whose thread has started a real command and recorded it, but whose `pid`
    // message is still in flight: only pids() knows the group
    const child = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
    const pgid = child.pid!;
    t.after(() => {
      if (alive(pgid)) process.kill(-pgid, 'SIGKILL');
    });
    let settle!: (r: ExecResult) => void;
    const executor: JobExecutor = {
      start: () => ({
        result: new Promise<ExecResult>((resolve) => (settle = resolve)),
        abort: () => undefined,
        terminate: () => settle({ return: 'stopped', retcode: 1, success: false }),
        pids: () => [pgid],
      }),
      close: () => undefined,
    };
    const r = runner({ executor });
    const long = job('cmd.run', ['sleep 300']);
    const pending = r.run(long);
    assert.equal(r.get(long.jid)?.pid, pgid, 'saltutil.running shows the command, not the minion');
    assert.equal(r.kill(long.jid), true);
    assert.match(String((await pending).ret), /killed by saltutil\.kill_job/);
    await waitUntil(() => !alive(pgid), 20_000, `process group ${pgid} to be killed`);
  });

  it('saltutil.kill_job ends the whole process tree of a cmd.run (the grandchild too)', async () => {
    const r = runner();
    const pidFile = path.join(tmp, 'grandchild.pid');
    const long = job('cmd.run', [`sleep 300 & echo $! > ${pidFile}; wait`]);
    const pending = r.run(long);
    const grandchild = Number(await waitUntil(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim(), 20_000, 'the grandchild pid'));
    assert.ok(alive(grandchild));
    // the shell can write the pid file before the worker's word of its process group reaches the
    // runner (a loaded machine): look once saltutil.running shows more than the minion's own pid
    const listed = await waitUntil(
      async () => {
        const running = (await r.run(job('saltutil.running'))).ret as Array<{ jid: string; fun: string; pid: number }>;
        return running.some((j) => j.jid === long.jid && j.pid !== process.pid) && running;
      },
      20_000,
      'saltutil.running to show the command process group',
    );
    assert.deepEqual(
      listed.map((j) => [j.jid, j.fun]),
      [[long.jid, 'cmd.run']],
    );
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
    await waitUntil(() => !alive(grandchild), 20_000, `grandchild ${grandchild} to be gone`);
    assert.deepEqual((await r.run(job('saltutil.find_job', [long.jid]))).ret, {});
  });

  it('saltutil.signal_job sends the signal to the process group', async () => {
    const r = runner();
    const marker = path.join(tmp, 'ready');
    const long = job('cmd.run', [`trap 'echo got-usr1; exit 3' USR1; touch ${marker}; while true; do sleep 0.05; done`]);
    const pending = r.run(long);
    await waitUntil(() => fs.existsSync(marker), 20_000, 'the command to start');
    // the shell can touch the marker before the worker's word of its process group reaches the
    // runner (a loaded machine): signal once saltutil.running shows the group, as an operator would
    await waitUntil(
      async () => ((await r.run(job('saltutil.running'))).ret as Array<{ jid: string; pid: number }>).some((j) => j.jid === long.jid && j.pid !== process.pid),
      20_000,
      'the job to show its process group',
    );
    const sig = await r.run(job('saltutil.signal_job', [long.jid, 'USR1']));
    assert.match(String(sig.ret), /^Signal 10 sent to job/);
    const ret = await pending;
    // the whole group got it: the sleeping child died of it (the shell reports that on stderr) and
    // the trap ran; stdout and stderr arrive through separate pipes, so their order is not fixed
    assert.match(String(ret.ret), /^got-usr1$/m);
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
    const calls: Array<{ refreshPillar?: boolean } | undefined> = [];
    const r = runner({ refreshGrains: async (o) => void calls.push(o) });
    const withHook = await r.run(job('saltutil.refresh_grains'));
    assert.equal(withHook.ret, true);
    // Salt's refresh_grains gets the pillar again unless refresh_pillar=False
    assert.deepEqual(calls, [{ refreshPillar: true }]);
    await r.run(job('saltutil.refresh_grains', [], { refresh_pillar: false }));
    assert.deepEqual(calls[1], { refreshPillar: false });
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
