// Issue 25 point 4: state.orchestrate on a real master with two real minions, called through the
// API's runner client. Three steps across both minions with a salt.wait_for_event between them
// run in order (timestamps written by the minions); a failing step stops what requires it (never
// run: its file is absent) with Salt's requisite comment; test=True changes nothing; failhard
// stops the run; the orchestration and each step's job are in the job cache under their jids.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ApiClient } from '../helpers/api-client.js';
import { Cluster, freePort, waitUntil } from '../helpers/cluster.js';

// bcrypt of s3cret (libxcrypt vector, as api.test.ts)
const HTPASSWD = 'admin:$2y$04$abcdefghijklmnopqrstuuLZYjhNQAOdpbzt4WxWlUHjv1wsyH5DG\n';
const MASTER_ID = `${os.hostname()}_master`;

interface Step {
  name: string;
  result: boolean | null;
  changes: Record<string, unknown> & { out?: string; ret?: Record<string, unknown>; minions_seen?: string[] };
  comment: string;
  __id__: string;
  __sls__: string;
  __run_num__: number;
  __jid__?: string;
}

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

function stepsOf(ret: { data: Record<string, Record<string, Step>> }): Record<string, Step> {
  const highstate = ret.data[MASTER_ID];
  assert.ok(highstate && !Array.isArray(highstate), `no highstate of ${MASTER_ID}: ${JSON.stringify(ret).slice(0, 2000)}`);
  return Object.fromEntries(Object.values(highstate).map((s) => [s.__id__, s]));
}

describe('state.orchestrate: salt.* steps across two real minions', () => {
  let cluster: Cluster;
  let api: ApiClient;
  let token: string;
  let out: string;

  const orchestrate = async (kwarg: Record<string, unknown>) => {
    const res = await api.post('/', token, [{ client: 'runner', fun: 'state.orchestrate', kwarg }]);
    assert.equal(res.status, 200, res.text);
    return res.json.return[0];
  };
  const stamp = (name: string): bigint => BigInt(fs.readFileSync(path.join(out, name), 'utf8').trim());

  before(async () => {
    cluster = await Cluster.create();
    const srv = path.join(cluster.root, 'master', 'srv', 'salt');
    out = path.join(cluster.root, 'out');
    fs.mkdirSync(out, { recursive: true });
    for (const name of ['one', 'three', 'never']) write(path.join(srv, `stamp_${name}.sls`), `stamp_${name}:\n  cmd.run:\n    - name: date +%s%N > ${out}/${name}\n`);
    write(path.join(srv, 'stamp_fail.sls'), 'this_fails:\n  cmd.run:\n    - name: "false"\n');
    write(
      path.join(srv, 'orch', 'deploy.sls'),
      `step_one:
  salt.state:
    - tgt: m1
    - sls: stamp_one

wait_for_m2:
  salt.wait_for_event:
    - name: salt/job/*/ret/m2
    - id_list:
      - m2
    - timeout: 30
    - require:
      - salt: step_one

step_three:
  salt.state:
    - tgt: m2
    - sls:
      - stamp_three
    - require:
      - salt: wait_for_m2

step_fails:
  salt.state:
    - tgt: m1
    - sls: stamp_fail
    - require:
      - salt: step_three

never_runs:
  salt.state:
    - tgt: m2
    - sls: stamp_never
    - require:
      - salt: step_fails
`,
    );
    write(
      path.join(srv, 'orch', 'failhard.sls'),
      `first_fails:
  salt.state:
    - tgt: m1
    - sls: stamp_fail
    - failhard: True

after_failhard:
  salt.function:
    - name: cmd.run
    - tgt: m2
    - arg:
      - touch ${out}/after_failhard
`,
    );
    write(
      path.join(srv, 'orch', 'master.sls'),
      `nothing_comes:
  salt.wait_for_event:
    - name: never/fired
    - id_list:
      - m1
    - timeout: 1

after_wait:
  salt.function:
    - name: test.ping
    - tgt: m1
    - require:
      - salt: nothing_comes

keys:
  salt.wheel:
    - name: key.list_all

active:
  salt.runner:
    - name: jobs.active

no_such_runner:
  salt.runner:
    - name: nosuch.runner
`,
    );
    write(path.join(srv, 'stamp_batch.sls'), `batch_stamp:\n  cmd.run:\n    - name: date +%s%N > ${out}/start_{{ grains['id'] }}; sleep 0.5; date +%s%N > ${out}/end_{{ grains['id'] }}\n`);
    write(path.join(srv, 'orch', 'batch.sls'), 'one_at_a_time:\n  salt.state:\n    - tgt: "m*"\n    - sls: stamp_batch\n    - batch: 1\n');
    write(path.join(srv, 'orch', 'ping.sls'), 'ping_all:\n  salt.function:\n    - name: test.ping\n    - tgt: "m*"\n    - arg: []\n');
    const htpasswd = path.join(cluster.root, 'htpasswd');
    fs.writeFileSync(htpasswd, HTPASSWD, { mode: 0o600 });
    const port = await freePort();
    const master = await cluster.startMaster({
      auto_accept: true,
      api: { port },
      external_auth: { file: { '^filename': htpasswd, '^filetype': 'htpasswd', admin: ['.*', '@runner', '@wheel', '@jobs'] } },
    });
    await master.waitForOutput(/serving the REST API on https:\/\/127\.0\.0\.1:\d+/);
    api = new ApiClient(port, fs.readFileSync(path.join(cluster.root, 'master', 'etc', 'brine', 'pki', 'master', 'api.crt'), 'utf8'));
    cluster.startMinion('m1');
    cluster.startMinion('m2');
    token = await api.login('admin', 's3cret');
    await waitUntil(
      async () => {
        const r = await api.post('/', token, [{ client: 'local', tgt: 'm*', fun: 'test.ping' }]);
        return r.json?.return?.[0]?.m1 === true && r.json.return[0].m2 === true;
      },
      30_000,
      'm1 and m2 answering test.ping',
    );
  });
  after(() => cluster.cleanup());

  it('test=True: every step says what it would do, nothing changes on the minions', async () => {
    const ret = await orchestrate({ mods: 'orch.deploy', test: true });
    const steps = stepsOf(ret);
    assert.equal(steps.step_one!.result, null, JSON.stringify(steps.step_one));
    assert.equal(steps.wait_for_m2!.result, null);
    assert.equal(steps.wait_for_m2!.comment, "Orchestration would wait for event 'salt/job/*/ret/m2'");
    // the minion ran its states with test=True: the cmd.run would have run
    const m1 = Object.values(steps.step_one!.changes.ret!.m1 as Record<string, { result: unknown; comment: string }>)[0]!;
    assert.equal(m1.result, null);
    assert.deepEqual(fs.readdirSync(out), []);
  });

  it('runs three steps across two minions in order with a wait_for_event; a failed step stops what requires it', async () => {
    // the wait is for an m2 return event that comes after it started: ping m2 until the run ends
    let done = false;
    let pings = 0;
    const run = orchestrate({ mods: 'orch.deploy' }).finally(() => {
      done = true;
    });
    const pinger = (async () => {
      while (!done) {
        await api.post('/', token, [{ client: 'local', tgt: 'm2', fun: 'test.ping' }]);
        pings++;
      }
    })();
    const ret = await run;
    await pinger;
    assert.equal(ret.outputter, 'highstate');
    assert.equal(ret.retcode, 1, 'a failed step fails the orchestration');
    const steps = stepsOf(ret);
    assert.deepEqual(
      Object.values(steps)
        .sort((a, b) => a.__run_num__ - b.__run_num__)
        .map((s) => s.__id__),
      ['step_one', 'wait_for_m2', 'step_three', 'step_fails', 'never_runs'],
    );
    assert.equal(steps.step_one!.result, true);
    assert.equal(steps.step_one!.comment, 'States ran successfully. Updating m1.');
    assert.equal(steps.step_one!.changes.out, 'highstate');
    assert.match(steps.step_one!.__jid__ ?? '', /^\d{20}$/);
    assert.equal(steps.wait_for_m2!.result, true, steps.wait_for_m2!.comment);
    assert.deepEqual(steps.wait_for_m2!.changes.minions_seen, ['m2']);
    assert.match(steps.wait_for_m2!.comment, /^All events seen in [\d.]+ seconds\.$/);
    assert.ok(pings >= 1);
    assert.equal(steps.step_three!.result, true);
    assert.equal(steps.step_fails!.result, false);
    assert.equal(steps.step_fails!.comment, 'Run failed on minions: m1');
    assert.equal(steps.never_runs!.result, false);
    assert.equal(steps.never_runs!.comment, 'One or more requisite failed: orch.deploy.step_fails');
    assert.equal(steps.never_runs!.__jid__, undefined, 'the step published no job');
    // real effects, in order: m1's stamp before m2's; the step after the failure never ran
    assert.ok(stamp('one') < stamp('three'), 'step_one ran before step_three');
    assert.equal(fs.existsSync(path.join(out, 'never')), false);

    // the job cache: the orchestration once, under its runner jid, returned by <master>_master as
    // Salt's RunnerClient stores it (the ret event's data); each step's job under its own jid
    const jobs = (await api.post('/', token, [{ client: 'runner', fun: 'jobs.list_jobs', kwarg: { search_function: 'runner.state.orchestrate' } }])).json.return[0];
    // issue 25 (orch point 1): one runner job per orchestration (the test=True run and this one)
    assert.equal(Object.keys(jobs).length, 2, JSON.stringify(jobs));
    const runnerJid = Object.keys(jobs).sort().at(-1)!;
    assert.equal(jobs[runnerJid].Target, MASTER_ID);
    const stored = (await api.post('/', token, [{ client: 'runner', fun: 'jobs.lookup_jid', kwarg: { jid: runnerJid } }])).json.return[0];
    assert.deepEqual(Object.keys(stored), [MASTER_ID]);
    assert.equal(stored[MASTER_ID].fun, 'runner.state.orchestrate');
    assert.equal(stored[MASTER_ID].jid, runnerJid);
    assert.equal(stored[MASTER_ID].success, false, 'a failed step fails the runner job (check_result of its data)');
    assert.equal(stored[MASTER_ID].return.retcode, 1);
    assert.deepEqual(Object.keys(stored[MASTER_ID].return.data[MASTER_ID]).length, 5);
    // the steps' jobs carry the orchestration's user, under jids of their own
    const stepJobs = Object.values(steps).flatMap((s) => (s.__jid__ ? [s.__jid__] : []));
    assert.equal(new Set(stepJobs).size, 3);
    assert.ok(!stepJobs.includes(runnerJid));
    const stepJob = (await api.post('/', token, [{ client: 'runner', fun: 'jobs.lookup_jid', kwarg: { jid: steps.step_three!.__jid__ } }])).json.return[0];
    assert.ok(stepJob.m2, JSON.stringify(stepJob));
    assert.notEqual(steps.step_three!.__jid__, runnerJid);
  });

  it('failhard stops the orchestration at the failed step', async () => {
    const ret = await orchestrate({ mods: 'orch.failhard' });
    assert.equal(ret.retcode, 1);
    const steps = stepsOf(ret);
    assert.equal(steps.first_fails!.result, false);
    assert.equal(steps.after_failhard, undefined, 'no step runs after a failhard failure');
    assert.equal(fs.existsSync(path.join(out, 'after_failhard')), false);
  });

  it('salt.function reports each minion return; a clean run has retcode 0; each step announces its job on salt/run/<jid>/args', async () => {
    const stream = await api.events('/events', { 'x-auth-token': token });
    let ret: { retcode: number; data: Record<string, Record<string, Step>> };
    try {
      assert.equal(stream.status, 200);
      ret = await orchestrate({ mods: 'orch.ping' });
      const args = await waitUntil(() => stream.events.find((e) => /^salt\/run\/\d{20}\/args$/.test(e.tag) && e.data.data?.name === 'test.ping'), 10_000, 'the step args event');
      // salt-api's stream carries {tag, data} in each data line
      assert.equal(args.data.data.type, 'function');
      assert.equal(args.data.data.tgt, 'm*');
      assert.equal(args.data.data.args.tgt_type, 'glob');
      assert.match(args.data.data._stamp, /^\d{4}-\d\d-\d\dT/);
      // the orchestration's runner jid, as the job cache has it
      const jobs = (await api.post('/', token, [{ client: 'runner', fun: 'jobs.list_jobs', kwarg: { search_function: 'runner.state.orchestrate' } }])).json.return[0];
      assert.equal(args.tag, `salt/run/${Object.keys(jobs).sort().at(-1)}/args`);
    } finally {
      stream.close();
    }
    assert.equal(ret.retcode, 0, JSON.stringify(ret));
    const step = stepsOf(ret).ping_all!;
    assert.deepEqual(step.changes, { ret: { m1: true, m2: true } });
    // minions in the order they returned, as Salt lists them
    assert.match(step.comment, /^Function ran successfully\. Function test\.ping ran on (m1, m2|m2, m1)\.$/);
  });

  it('a wait_for_event that sees nothing times out and fails what requires it; salt.runner and salt.wheel call the master functions', async () => {
    const steps = stepsOf(await orchestrate({ mods: 'orch.master' }));
    assert.equal(steps.nothing_comes!.result, false);
    assert.equal(steps.nothing_comes!.comment, 'Timeout value reached.');
    assert.equal(steps.after_wait!.comment, 'One or more requisite failed: orch.master.nothing_comes');
    assert.equal(steps.keys!.result, true, steps.keys!.comment);
    assert.equal(steps.keys!.comment, "Wheel function 'key.list_all' executed.");
    assert.deepEqual(((steps.keys!.changes.return as { minions: string[] }).minions ?? []).sort(), ['m1', 'm2']);
    assert.equal(steps.active!.comment, "Runner function 'jobs.active' executed.");
    // each runner or wheel step is a job of its own (Salt's __jid__ of the step); the runner's is in the job cache
    assert.match(steps.active!.__jid__ ?? '', /^\d{20}$/);
    assert.match(steps.keys!.__jid__ ?? '', /^\d{20}$/);
    const activeJob = (await api.post('/', token, [{ client: 'runner', fun: 'jobs.list_job', kwarg: { jid: steps.active!.__jid__ } }])).json.return[0];
    assert.equal(activeJob.Function, 'runner.jobs.active');
    assert.equal(activeJob.User, 'admin');
    assert.equal(steps.no_such_runner!.result, false);
    assert.equal(steps.no_such_runner!.comment, "Runner function 'nosuch.runner' failed.");
    assert.match(String((steps.no_such_runner!.changes.return as { Error: string }).Error), /nosuch\.runner/);
  });

  it('salt.state with batch: 1 runs the minions one after the other', async () => {
    const ret = await orchestrate({ mods: 'orch.batch' });
    assert.equal(ret.retcode, 0, JSON.stringify(ret));
    const step = stepsOf(ret).one_at_a_time!;
    assert.deepEqual(Object.keys(step.changes.ret ?? {}).sort(), ['m1', 'm2']);
    const [first, second] = stamp('start_m1') < stamp('start_m2') ? ['m1', 'm2'] : ['m2', 'm1'];
    assert.ok(stamp(`start_${second}`) >= stamp(`end_${first}`), 'the second batch started after the first ended');
  });

  it('state.orchestrate_show_sls renders the steps and runs nothing', async () => {
    // runner calls are jobs themselves (runner.<fun>, as Salt stores them): only the others count
    const minionJobs = async () =>
      Object.values((await api.post('/', token, [{ client: 'runner', fun: 'jobs.list_jobs' }])).json.return[0] as Record<string, { Function: string }>).filter((j) => !j.Function.startsWith('runner.'))
        .length;
    const before = await minionJobs();
    const res = await api.post('/', token, [{ client: 'runner', fun: 'state.orchestrate_show_sls', mods: 'orch.ping' }]);
    assert.equal(res.status, 200, res.text);
    const high = res.json.return[0][MASTER_ID];
    assert.ok(high?.ping_all, res.text);
    assert.match(JSON.stringify(high.ping_all.salt), /"function"/);
    assert.equal(await minionJobs(), before);
  });

  it('bad input: no SLS is a coded error; an unknown SLS is a failed orchestration with the message', async () => {
    const res = await api.post('/', token, [{ client: 'runner', fun: 'state.orchestrate', kwarg: {} }]);
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json.error.code, 'BAD_ARGUMENTS');
    const ret = await orchestrate({ mods: 'orch.nosuch' });
    assert.equal(ret.retcode, 1);
    assert.ok(Array.isArray(ret.data[MASTER_ID]), JSON.stringify(ret));
    assert.match(ret.data[MASTER_ID].join('\n'), /orch\.nosuch/);
  });
});
