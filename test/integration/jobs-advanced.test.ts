// Issue 5 (waiting, job features, job runner), end to end with real processes: five minions m1..m5
// plus one accepted but stopped (x-gone); batches and their order, --async then jobs show,
// jobs active, kill_job on a long cmd.run (its grandchild gone), a 10 s busy loop that leaves its
// minion connected (heartbeat 0.5/1.5 s) and answering, the find_job wait extension, --static,
// --summary, --out-file, and each bad input (exit 2, nothing sent). A second cluster freezes a
// minion with SIGSTOP to show [No response] after timeout + gather_job_timeout.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, waitUntil, type Proc } from '../helpers/cluster.js';
import { alive } from '../helpers/processes.js';

const MINIONS = ['m1', 'm2', 'm3', 'm4', 'm5'];
const FAST_HEARTBEAT = { heartbeat_interval: 0.5, heartbeat_timeout: 1.5 };

function jsonDocs(stdout: string): Record<string, unknown> {
  return Object.assign(
    {},
    ...stdout
      .trim()
      .split(/\n(?=\{)/)
      .map((s) => JSON.parse(s) as Record<string, unknown>),
  );
}

describe('jobs: waiting, batches, async, saltutil, isolation', () => {
  let cluster: Cluster;
  let master: Proc;
  const procs = new Map<string, Proc>();

  async function jobCount(): Promise<number> {
    const r = await cluster.brine(['jobs', 'list', '--limit', '1000']);
    return r.stdout.split('\n').filter(Boolean).length;
  }

  before(async () => {
    cluster = await Cluster.create();
    master = await cluster.startMaster({ auto_accept: true, gather_job_timeout: 1, ...FAST_HEARTBEAT });
    for (const id of [...MINIONS, 'x-gone']) procs.set(id, cluster.startMinion(id, FAST_HEARTBEAT));
    for (const p of procs.values()) await p.waitForOutput(/ready to receive requests/, 30_000);
    await procs.get('x-gone')!.kill('SIGKILL');
  });
  after(() => cluster.cleanup());

  it('-b 2: pings first, skips the minion that is down, runs at most 2 at a time in ID order', async () => {
    const r = await cluster.brine(['run', '*', 'test.ping', '-b', '2']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^Minion x-gone did not respond\. No job will be sent\.$/m);
    const groups = [...r.stdout.matchAll(/^Executing run on \[(.*)\]$/gm)].map((m) => m[1]!.split(', ').map((s) => s.replace(/'/g, '')));
    assert.deepEqual(groups[0], ['m1', 'm2'], r.stdout);
    assert.ok(
      groups.every((g) => g.length >= 1 && g.length <= 2),
      r.stdout,
    );
    assert.deepEqual(groups.flat(), MINIONS, 'each responder exactly once, in order');
    for (const id of MINIONS) assert.match(r.stdout, new RegExp(`^${id}:\\n    True$`, 'm'));
  });

  it('-b 40% is floor(0.4 x 5) = 2; exit code is the highest retcode; --failhard stops after the first failure', async () => {
    const pct = await cluster.brine(['run', 'm*', 'test.ping', '-b', '40%']);
    assert.equal(pct.code, 0, pct.stdout + pct.stderr);
    assert.match(pct.stdout, /^Executing run on \['m1', 'm2'\]$/m);

    const failing = await cluster.brine(['run', 'm*', 'cmd.run', 'exit 3', '-b', '2']);
    assert.equal(failing.code, 3, failing.stdout + failing.stderr);
    assert.ok([...failing.stdout.matchAll(/^Executing run on/gm)].length >= 3, 'every minion ran despite the failures');
    assert.equal(failing.stdout.match(/^ {4}exit 3$/gm), null);

    const hard = await cluster.brine(['run', 'm*', 'cmd.run', 'exit 4', '-b', '1', '--failhard']);
    assert.equal(hard.code, 4, hard.stdout + hard.stderr);
    assert.deepEqual(
      [...hard.stdout.matchAll(/^Executing run on (.*)$/gm)].map((m) => m[1]),
      ["['m1']"],
    );
    assert.match(hard.stderr, /ERROR: Minion m1 returned with non-zero exit code\. Batch run stopped due to failhard/);
  });

  it('--async prints the jid at once and exits 0; the return shows in jobs show', async () => {
    const r = await cluster.brine(['run', '--async', 'm3', 'test.echo', 'later']);
    assert.equal(r.code, 0, r.stderr);
    const jid = /^Executed command with job ID: (\d{20})$/m.exec(r.stdout)?.[1];
    assert.ok(jid, r.stdout);
    const shown = await waitUntil(
      async () => {
        const s = await cluster.brine(['jobs', 'show', jid, '--out', 'json']);
        return s.code === 0 ? s : undefined;
      },
      10_000,
      'the async return in the job cache',
    );
    assert.deepEqual(JSON.parse(shown.stdout), { m3: 'later' });
  });

  it('kill_job ends a long cmd.run with its whole process tree; jobs active lists it while it runs', async () => {
    const pidFile = path.join(cluster.root, 'grandchild.pid');
    const r = await cluster.brine(['run', '--async', 'm2', 'cmd.run', `sleep 300 & echo $! > ${pidFile}; wait`]);
    const jid = /job ID: (\d{20})/.exec(r.stdout)![1]!;
    const grandchild = Number(await waitUntil(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim(), 10_000, 'the grandchild pid'));
    assert.ok(alive(grandchild));

    const active = await cluster.brine(['jobs', 'active', '--out', 'json']);
    assert.equal(active.code, 0, active.stderr);
    const listed = jsonDocs(active.stdout)[jid] as { Function: string; Running: Array<Record<string, number>>; Target: string };
    assert.equal(listed.Function, 'cmd.run');
    assert.deepEqual(Object.keys(listed.Running[0]!), ['m2']);
    assert.equal(listed.Target, 'm2');

    const kill = await cluster.brine(['run', 'm2', 'saltutil.kill_job', jid]);
    assert.equal(kill.code, 0, kill.stdout + kill.stderr);
    assert.match(kill.stdout, new RegExp(`Signal 9 sent to job ${jid} at pid \\d+`));
    await waitUntil(() => !alive(grandchild), 5000, `grandchild ${grandchild} to be gone`);
    const shown = await waitUntil(
      async () => {
        const s = await cluster.brine(['jobs', 'show', jid, '--out', 'json']);
        return s.stdout.includes('m2') && !s.stdout.includes('No response') ? s : undefined;
      },
      10_000,
      'the killed job return',
    );
    assert.match(shown.stdout, /killed by saltutil\.kill_job/);
    const after = await cluster.brine(['jobs', 'active', '--out', 'json']);
    assert.ok(!after.stdout.includes(jid), after.stdout);
  });

  it('a 10 s busy loop does not disconnect its minion (heartbeat 0.5/1.5 s) and other jobs on it still answer', async () => {
    let finished = false;
    const busy = cluster.brine(['run', 'm1', 'test.busy_wait', '10', '-t', '20'], { timeoutMs: 60_000 }).finally(() => (finished = true));
    // the loop is running on m1 once `jobs active` (asked of the minions) lists it
    await waitUntil(async () => (await cluster.brine(['jobs', 'active', '--out', 'json'])).stdout.includes('test.busy_wait'), 10_000, 'the busy loop to be running on m1');
    // ping back to back for as long as the loop runs: every one answers promptly
    let pings = 0;
    while (!finished) {
      const started = Date.now();
      const ping = await cluster.brine(['run', 'm1', 'test.ping']);
      assert.equal(ping.code, 0, ping.stdout + ping.stderr);
      assert.ok(Date.now() - started < 4000, `test.ping took ${Date.now() - started} ms during the busy loop`);
      pings++;
    }
    assert.ok(pings >= 3, `only ${pings} pings ran during the 10 s busy loop`);
    const done = await busy;
    assert.equal(done.code, 0, done.stdout + done.stderr);
    assert.equal(done.stdout, 'm1:\n    True\n');
    assert.doesNotMatch(master.output, /minion m1 disconnected/);
    assert.doesNotMatch(procs.get('m1')!.output, /heartbeat_timeout/);
  });

  it('find_job extends the wait: test.sleep 4 with -t 1 returns True, not [No response]', async () => {
    const started = Date.now();
    const r = await cluster.brine(['run', 'm4', 'test.sleep', '4', '-t', '1']);
    const took = Date.now() - started;
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(r.stdout, 'm4:\n    True\n');
    assert.ok(took >= 3800 && took < 9000, `took ${took} ms`);
  });

  it('--static prints one document at the end; --summary adds the Salt block; newline_values_only prints bare values', async () => {
    const st = await cluster.brine(['run', 'm*', 'test.echo', 'hi', '--static', '--out', 'json']);
    assert.equal(st.code, 0, st.stderr);
    assert.deepEqual(JSON.parse(st.stdout), Object.fromEntries(MINIONS.map((id) => [id, 'hi'])));

    const sum = await cluster.brine(['run', '*', 'test.ping', '--summary', '-v']);
    assert.equal(sum.code, 1);
    assert.match(
      sum.stdout,
      /-------------------------------------------\nSummary\n-------------------------------------------\n# of minions targeted: 6\n# of minions returned: 5\n# of minions that did not return: 1\n# of minions with errors: 0\nMinions not connected: x-gone\n-------------------------------------------\n$/,
    );

    const nv = await cluster.brine(['run', 'm1', 'test.echo', 'bare', '--out', 'newline_values_only']);
    assert.equal(nv.stdout, 'bare\n');
  });

  it('--out-file writes the returns to a file (truncating), --out-file-append appends', async () => {
    const file = path.join(cluster.root, 'out.txt');
    fs.writeFileSync(file, 'old\n');
    const r = await cluster.brine(['run', 'm1', 'test.echo', 'one', '--out', 'txt', '--out-file', file]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(fs.readFileSync(file, 'utf8'), 'm1: one\n');
    await cluster.brine(['run', 'm2', 'test.echo', 'two', '--out', 'txt', '--out-file', file, '--out-file-append']);
    assert.equal(fs.readFileSync(file, 'utf8'), 'm1: one\nm2: two\n');
  });

  it('bad input: -b 0, -b 150%, a jid that is not a jid exit 2 with a clear error and send nothing', async () => {
    const before = await jobCount();
    for (const args of [
      ['-b', '0'],
      ['-b', '150%'],
      ['--batch-size', '0%'],
    ]) {
      const r = await cluster.brine(['run', 'm*', 'test.ping', ...args]);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /^INVALID_BATCH: -b\/--batch '[^']+': .*percentage/);
    }
    const kill = await cluster.brine(['run', 'm1', 'saltutil.kill_job', '../../etc/passwd']);
    assert.equal(kill.code, 2);
    assert.match(kill.stderr, /^INVALID_JID: saltutil\.kill_job: '\.\.\/\.\.\/etc\/passwd' is not a jid.*nothing was sent/);
    const show = await cluster.brine(['jobs', 'show', '2025']);
    assert.equal(show.code, 2);
    assert.match(show.stderr, /^INVALID_JID/);
    assert.equal(await jobCount(), before, 'no job was published');
  });

  it('kwargs that do not fit the function: a coded BAD_ARGUMENTS error in that minion’s return', async () => {
    const r = await cluster.brine(['run', 'm1', 'test.sleep', 'length=1', 'bogus=2', '--out', 'json']);
    assert.equal(r.code, 1);
    assert.match(String(JSON.parse(r.stdout).m1), /^test\.sleep: unexpected keyword argument 'bogus'\. Signature: test\.sleep\(length: number\)$/);
  });
});

describe('jobs: a connected but frozen minion', () => {
  let cluster: Cluster;
  let frozen: Proc;

  before(async () => {
    cluster = await Cluster.create();
    // a long master heartbeat_timeout keeps the frozen minion's session up, so it is "connected"
    await cluster.startMaster({ auto_accept: true, heartbeat_timeout: 120, heartbeat_interval: 10, gather_job_timeout: 2 });
    frozen = cluster.startMinion('ice');
    const fine = cluster.startMinion('fine');
    await frozen.waitForOutput(/ready to receive requests/, 30_000);
    await fine.waitForOutput(/ready to receive requests/, 30_000);
  });
  after(async () => {
    if (frozen.child.pid) process.kill(frozen.child.pid, 'SIGCONT');
    await cluster.cleanup();
  });

  it('is reported [No response] after timeout + gather_job_timeout, while the others return', async () => {
    process.kill(frozen.child.pid!, 'SIGSTOP');
    const started = Date.now();
    const r = await cluster.brine(['run', '*', 'test.ping', '-t', '1', '-v']);
    const took = Date.now() - started;
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /^fine:\n {4}True$/m);
    assert.match(r.stdout, /^ice:\n {4}Minion did not return\. \[No response\]/m);
    assert.doesNotMatch(r.stdout, /Not connected/);
    assert.ok(took >= 2800 && took < 8000, `took ${took} ms (timeout 1 s + gather_job_timeout 2 s)`);
    const jid = /jid (\d{20})/.exec(r.stdout)![1]!;

    // thawed, it runs the job it was sent and the late return lands in the cache
    process.kill(frozen.child.pid!, 'SIGCONT');
    const late = await waitUntil(
      async () => {
        const s = await cluster.brine(['jobs', 'show', jid, '--out', 'json']);
        return s.code === 0 ? s : undefined;
      },
      15_000,
      'the late return of the thawed minion',
    );
    assert.deepEqual(jsonDocs(late.stdout), { fine: true, ice: true });
  });
});
