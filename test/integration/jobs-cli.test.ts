// The job cache from the CLI: `brine run -v` prints the jid, `brine jobs show` prints the
// returns (including one that arrived after the CLI stopped waiting), `brine jobs list` lists it.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { BRINE_BIN, Cluster, waitUntil, type Proc } from '../helpers/cluster.js';

describe('jobs in the cache', () => {
  let cluster: Cluster;
  let j1: Proc;

  before(async () => {
    cluster = await Cluster.create();
    // gather_job_timeout 1: a minion that cannot answer find_job is given up on after -t + 1 s
    await cluster.startMaster({ auto_accept: true, gather_job_timeout: 1 });
    j1 = cluster.startMinion('j1');
    await j1.waitForOutput(/ready to receive requests/);
  });
  after(async () => {
    if (j1.child.pid) process.kill(j1.child.pid, 'SIGCONT');
    await cluster.cleanup();
  });

  it('shows a job by jid and lists it', async () => {
    const r = await cluster.brine(['run', '-v', 'j1', 'test.echo', 'cached']);
    assert.equal(r.code, 0, r.stderr);
    const jid = r.stdout.match(/Executing job with jid (\d{20})/)![1]!;
    const show = await cluster.brine(['jobs', 'show', jid, '--out', 'json']);
    assert.equal(show.code, 0, show.stderr);
    assert.deepEqual(JSON.parse(show.stdout), { j1: 'cached' });
    const list = await cluster.brine(['jobs', 'list']);
    assert.match(list.stdout, new RegExp(`^${jid}  \\S+  test\\.echo  glob:j1  returned 1/1$`, 'm'));
  });

  it('reports [No response] with the jid, and the late return shows in jobs show', async () => {
    // a minion that still runs the job extends the wait (find_job), so freeze it: connected, silent
    process.kill(j1.child.pid!, 'SIGSTOP');
    const r = await cluster.brine(['run', '-v', 'j1', 'test.sleep', '2', '-t', '1']);
    process.kill(j1.child.pid!, 'SIGCONT');
    assert.equal(r.code, 1);
    const jid = r.stdout.match(/Executing job with jid (\d{20})/)![1]!;
    assert.match(r.stdout, /j1:\n {4}Minion did not return\. \[No response\]/);
    assert.ok(r.stdout.includes(`brine jobs show ${jid}`), r.stdout);
    const late = await waitUntil(
      async () => {
        const s = await cluster.brine(['jobs', 'show', jid, '--out', 'json']);
        return s.code === 0 ? s : undefined;
      },
      10_000,
      'the late return',
    );
    assert.deepEqual(JSON.parse(late.stdout), { j1: true });
  });

  it('refuses a jid that is not a jid before touching anything', async () => {
    const r = await cluster.brine(['jobs', 'show', '../../etc/passwd']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^INVALID_JID: /);
  });

  it('Ctrl-C while waiting prints the jid and how to look the job up', async () => {
    const child = spawn(process.execPath, [BRINE_BIN, 'run', '-v', 'j1', 'test.sleep', '3', '-c', cluster.masterConfigDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', r));
    const jid = await waitUntil(() => out.match(/Executing job with jid (\d{20})/)?.[1], 15_000, 'the jid');
    child.kill('SIGINT');
    assert.equal(await exited, 1);
    assert.match(err, new RegExp(`This job's jid is: ${jid}\nExiting gracefully on Ctrl-c`));
    assert.ok(err.includes(`brine jobs show ${jid}`), err);
  });
});
