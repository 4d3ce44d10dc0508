// Issue 25 (orchestration, what it still lacked), on a real master WITHOUT `api:` and two real
// minions, run with `brine runner state.orchestrate` (salt-run): salt.runner and salt.wheel steps
// call the master's functions as jobs of their own (they needed the API before); each
// orchestration is one runner job in the job cache; salt.function's fail_function judges each
// return on the master; salt.state's ret (a returner, here syslog over a test socket), subset and
// top (state.top on the minion) do what Salt's saltmod.py does.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Cluster, waitUntil } from '../helpers/cluster.js';

const MASTER_ID = 'orchmaster';

interface Step {
  result: boolean | null;
  comment: string;
  changes: Record<string, unknown> & { ret?: Record<string, unknown>; return?: unknown };
  __id__: string;
  __jid__?: string;
}

/** jobs.list_job's answer, the parts read here. */
interface ListedJob {
  Function: string;
  Arguments: unknown[];
  Result: Record<string, { return: { success?: boolean } }>;
}

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

describe('orchestration on a master without api: runner, wheel, fail_function, ret, subset, top', () => {
  let cluster: Cluster;
  let out: string;
  let syslogDir = '';
  let syslog: net.Server | undefined;
  let syslogText = '';

  /** `brine runner FUN ARGS --out json`, its JSON and exit status. */
  const runner = async (args: string[]): Promise<{ code: number | null; json: Record<string, unknown> }> => {
    const r = await cluster.brine(['runner', ...args, '--out', 'json']);
    try {
      return { code: r.code, json: JSON.parse(r.stdout) };
    } catch {
      throw new Error(`brine runner ${args.join(' ')} printed no JSON (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
    }
  };
  /** The steps by ID: salt-run --out json prints the orchestration's highstate, {<master id>: {...}}. */
  const steps = (ret: Record<string, unknown>): Record<string, Step> => {
    const high = ret[MASTER_ID] as Record<string, Step> | undefined;
    assert.ok(high && !Array.isArray(high), JSON.stringify(ret).slice(0, 3000));
    return Object.fromEntries(Object.values(high).map((s) => [s.__id__, s]));
  };

  before(async () => {
    syslogDir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-orch-syslog-'));
    syslog = net.createServer((c) => c.setEncoding('utf8').on('data', (d: string) => (syslogText += d)));
    await new Promise<void>((resolve) => syslog?.listen(path.join(syslogDir, 'log.sock'), resolve));
    cluster = await Cluster.create();
    out = path.join(cluster.root, 'out');
    fs.mkdirSync(out, { recursive: true });
    const srv = path.join(cluster.root, 'master', 'srv', 'salt');
    write(path.join(srv, 'stamp_top.sls'), `stamp_top:\n  cmd.run:\n    - name: touch ${out}/top_{{ grains['id'] }}\n`);
    write(path.join(srv, 'tops', 'm1.sls'), "base:\n  'm1':\n    - stamp_top\n");
    write(path.join(srv, 'inner.sls'), 'inner_ping:\n  salt.function:\n    - name: test.ping\n    - tgt: m2\n');
    write(
      path.join(srv, 'orch', 'calls.sls'),
      `keys:
  salt.wheel:
    - name: key.list_all

bad_wheel:
  salt.wheel:
    - name: key.accept

pings:
  salt.runner:
    - name: jobs.list_jobs
    - search_function: test.ping

nested:
  salt.runner:
    - name: state.orchestrate
    - mods: inner
`,
    );
    write(
      path.join(srv, 'orch', 'judged.sls'),
      `role_judged:
  salt.function:
    - name: grains.get
    - tgt: 'm*'
    - arg:
      - role
    - fail_function: test.echo

role_unjudged:
  salt.function:
    - name: grains.get
    - tgt: 'm*'
    - arg:
      - role
`,
    );
    write(
      path.join(srv, 'orch', 'targets.sls'),
      `returned:
  salt.function:
    - name: test.echo
    - tgt: m1
    - arg:
      - to-syslog
    - ret: syslog

one_of_two:
  salt.function:
    - name: test.ping
    - tgt: 'm*'
    - subset: 1

by_top:
  salt.state:
    - tgt: m1
    - top: salt://tops/m1.sls
`,
    );
    await cluster.startMaster({ id: MASTER_ID, auto_accept: true });
    const m1 = cluster.startMinion('m1', { grains: { role: 'web' }, 'syslog.socket': path.join(syslogDir, 'log.sock') });
    const m2 = cluster.startMinion('m2');
    await m1.waitForOutput(/ready to receive requests/);
    await m2.waitForOutput(/ready to receive requests/);
    await waitUntil(
      async () => {
        const r = await cluster.brine(['run', 'm*', 'test.ping', '--out', 'json']);
        return r.code === 0 && r.stdout.includes('"m1"') && r.stdout.includes('"m2"');
      },
      30_000,
      'm1 and m2 answering test.ping',
    );
  });
  after(async () => {
    await cluster?.cleanup();
    await new Promise((r) => (syslog ? syslog.close(r) : r(undefined)));
    fs.rmSync(syslogDir, { recursive: true, force: true });
  });

  it('salt.runner and salt.wheel steps run without api:, each a job of its own; the orchestration is one runner job', async () => {
    const { code, json } = await runner(['state.orchestrate', 'orch.calls']);
    const s = steps(json);
    assert.equal(s.keys!.result, true, s.keys!.comment);
    assert.equal(s.keys!.comment, "Wheel function 'key.list_all' executed.");
    assert.deepEqual((s.keys!.changes.return as { minions: string[] }).minions, ['m1', 'm2']);
    assert.match(s.keys!.__jid__ ?? '', /^\d{20}$/);
    // a wheel function that raises: Salt's "Exception occurred" return, the step fails
    assert.equal(s.bad_wheel!.result, false);
    assert.equal(s.bad_wheel!.comment, "Wheel function 'key.accept' failed.");
    assert.match(String(s.bad_wheel!.changes.return), /^Exception occurred in wheel key\.accept: BAD_ARGUMENTS: /);
    assert.equal(s.pings!.result, true, s.pings!.comment);
    assert.equal(s.pings!.comment, "Runner function 'jobs.list_jobs' executed.");
    // a nested orchestration is a runner job too; its own highstate is its return
    assert.equal(s.nested!.result, true, JSON.stringify(s.nested));
    const inner = (s.nested!.changes.return as { data: Record<string, Record<string, Step>>; retcode: number }).data[MASTER_ID]!;
    assert.deepEqual((Object.values(inner)[0] as Step).changes.ret, { m2: true });
    assert.equal(code, 1, 'bad_wheel failed, so salt-run exits 1');

    // the job cache: one runner.state.orchestrate job per orchestration (this one and the nested one)
    const jobs = (await runner(['jobs.list_jobs', 'search_function=runner.state.orchestrate'])).json;
    assert.equal(Object.keys(jobs).length, 2, JSON.stringify(jobs));
    assert.ok(Object.hasOwn(jobs, s.nested!.__jid__!), 'the nested orchestration under the step jid');
    for (const j of Object.values(jobs) as Array<{ Target: string }>) assert.equal(j.Target, MASTER_ID);
    const runnerStep = (await runner(['jobs.list_job', s.pings!.__jid__!])).json as unknown as ListedJob;
    assert.equal(runnerStep.Function, 'runner.jobs.list_jobs');
    assert.equal(runnerStep.Result[MASTER_ID]?.return.success, true);
  });

  it("salt.function's fail_function judges each minion's return on the master", async () => {
    const { json } = await runner(['state.orchestrate', 'orch.judged']);
    const s = steps(json);
    // m2 has no role grain: '' is false to test.echo's answer, so m2 fails; without fail_function it does not
    assert.equal(s.role_judged!.result, false, s.role_judged!.comment);
    // Salt's comment, its missing full stop included
    assert.match(s.role_judged!.comment, /^Running function grains\.get failed on minions: m2 Function grains\.get ran on (m1, m2|m2, m1)\.$/);
    assert.deepEqual(s.role_judged!.changes.ret, { m1: 'web', m2: '' });
    assert.equal(s.role_unjudged!.result, true, s.role_unjudged!.comment);
    assert.match(s.role_unjudged!.comment, /^Function ran successfully\./);
  });

  it("ret sends the minions' returns to a returner; subset runs on that many minions; top runs state.top", async () => {
    const { json } = await runner(['state.orchestrate', 'orch.targets']);
    const s = steps(json);
    assert.equal(s.returned!.result, true, s.returned!.comment);
    const jid = s.returned!.__jid__!;
    const line = await waitUntil(() => syslogText.split('\n').find((l) => l.includes(jid)), 20_000, 'the return on the syslog socket');
    assert.match(line, /to-syslog/);
    assert.equal(s.one_of_two!.result, true, s.one_of_two!.comment);
    assert.equal(Object.keys(s.one_of_two!.changes.ret ?? {}).length, 1, JSON.stringify(s.one_of_two!.changes));
    assert.equal(s.by_top!.result, true, JSON.stringify(s.by_top));
    assert.ok(fs.existsSync(path.join(out, 'top_m1')), 'm1 ran the states tops/m1.sls gives it');
    const topJob = (await runner(['jobs.list_job', s.by_top!.__jid__!])).json as unknown as ListedJob;
    assert.equal(topJob.Function, 'state.top');
    assert.equal(topJob.Arguments[0], 'salt://tops/m1.sls');
  });
});
