// `brine runner` (Salt's salt-run) against a real master and real minions (issue 25 point 3):
// every runner with a real effect (jobs after a real job, manage.down after a minion is killed,
// event.send seen on `brine events`, fileserver.file_list of a real file_roots tree, the cache),
// salt/run/<jid>/new|ret events, runner jobs in the job cache, exit codes and bad input; and
// the API's runner, runner_async and wheel clients over the same registry.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ApiClient, expectError } from '../helpers/api-client.js';
import { Cluster, freePort, waitUntil, type Proc } from '../helpers/cluster.js';

const MASTER_ID = 'mastr';

/** The JSON of `brine runner ... --out json`, after checking its exit status. */
function json(r: { code: number | null; stdout: string; stderr: string }, code = 0): unknown {
  assert.equal(r.code, code, `exit ${r.code}: ${r.stdout}${r.stderr}`);
  return JSON.parse(r.stdout);
}

describe('brine runner and the API runner/wheel clients', () => {
  let cluster: Cluster;
  let events: Proc;
  let api: ApiClient;
  let token: string;
  const minions = new Map<string, Proc>();

  /** The data of the first event with this tag `brine events` printed. */
  const eventData = async (tag: string): Promise<Record<string, unknown>> => {
    const line = await events.waitForOutput(new RegExp(`^${tag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\t(.*)$`, 'm'), 15_000);
    return JSON.parse(line[1] as string) as Record<string, unknown>;
  };

  before(async () => {
    cluster = await Cluster.create();
    const salt = path.join(cluster.root, 'master', 'srv', 'salt');
    const pillarRoot = path.join(cluster.root, 'master', 'srv', 'pillar');
    for (const f of ['top.sls', 'web/init.sls', 'web/files/index.html', '_runners/mine.py']) {
      fs.mkdirSync(path.dirname(path.join(salt, f)), { recursive: true });
      fs.writeFileSync(path.join(salt, f), 'x: {}\n');
    }
    fs.mkdirSync(pillarRoot, { recursive: true });
    fs.writeFileSync(path.join(pillarRoot, 'top.sls'), "base:\n  '*':\n    - common\n");
    fs.writeFileSync(path.join(pillarRoot, 'common.sls'), 'colour: blue\n');
    const htpasswd = path.join(cluster.root, 'htpasswd');
    fs.writeFileSync(htpasswd, 'admin:{SHA}/vNB+F2HQ559kaLUZbmHHvZrXpg=\n', { mode: 0o600 });
    const port = await freePort();
    const master = await cluster.startMaster({
      id: MASTER_ID,
      auto_accept: true,
      nodegroups: { web: 'L@r1' },
      api: { port },
      external_auth: { file: { '^filename': htpasswd, '^filetype': 'htpasswd', admin: ['.*', '@runner', '@wheel'] } },
    });
    await master.waitForOutput(/serving the REST API on https:\/\/127\.0\.0\.1:\d+/);
    events = cluster.spawnBrine('events', ['events', '-c', cluster.masterConfigDir]);
    for (const id of ['r1', 'r2']) {
      const p = cluster.startMinion(id, { mine_functions: { 'test.ping': [] } });
      minions.set(id, p);
    }
    for (const p of minions.values()) await p.waitForOutput(/ready to receive requests/);
    // `brine events` is following the bus once it prints an event sent after it started
    await waitUntil(
      async () => {
        await cluster.brine(['runner', 'event.send', 'probe/ready']);
        return events.output.includes('probe/ready\t');
      },
      30_000,
      'brine events to follow the bus',
    );
    const ca = fs.readFileSync(path.join(cluster.masterConfigDir, 'brine', 'pki', 'master', 'api.crt'), 'utf8');
    api = new ApiClient(port, ca);
    token = await api.login('admin', 's3cret');
  });
  after(() => cluster.cleanup());

  it('test.arg prints the return as salt-run does and fires salt/run/<jid>/new and ret', async () => {
    assert.deepEqual(json(await cluster.brine(['runner', 'test.arg', '1', 'two', 'a=b', '--out', 'json'])), { args: [1, 'two'], kwargs: { a: 'b' } });
    // the first runner job after the event.send probes
    const m = await events.waitForOutput(/^salt\/run\/(\d{20})\/new\t(.*"runner\.test\.arg".*)$/m, 15_000);
    const created = JSON.parse(m[2] as string) as Record<string, unknown>;
    const jid = created.jid as string;
    assert.equal(jid, m[1]);
    assert.deepEqual({ ...created, _stamp: undefined }, { fun: 'runner.test.arg', fun_args: [1, 'two', { a: 'b' }], jid, user: process.env.USER ?? 'root', _stamp: undefined });
    const ret = await eventData(`salt/run/${jid}/ret`);
    assert.deepEqual({ ...ret, _stamp: undefined }, { ...created, _stamp: undefined, return: { args: [1, 'two'], kwargs: { a: 'b' } }, success: true });
    // the runner job is in the job cache as the master's return, as Salt's job cache keeps it
    const lookup = json(await cluster.brine(['runner', 'jobs.lookup_jid', jid, '--out', 'json'])) as Record<string, Record<string, unknown>>;
    assert.deepEqual(Object.keys(lookup), [MASTER_ID]);
    assert.equal(lookup[MASTER_ID]!.fun, 'runner.test.arg');
    assert.deepEqual(lookup[MASTER_ID]!.return, { args: [1, 'two'], kwargs: { a: 'b' } });
    // nested (the default) prints the value itself, no ID above it
    const nested = await cluster.brine(['runner', 'test.arg', 'x']);
    assert.equal(nested.code, 0, nested.stderr);
    assert.equal(nested.stdout, 'args:\n    - x\nkwargs:\n    ----------\n');
  });

  it('jobs.lookup_jid, list_job, print_job and list_jobs after a real job', async () => {
    const run = await cluster.brine(['run', '-v', 'r1', 'test.echo', 'hello']);
    assert.equal(run.code, 0, run.stderr);
    const jid = run.stdout.match(/Executing job with jid (\d{20})/)![1]!;
    assert.deepEqual(json(await cluster.brine(['runner', 'jobs.lookup_jid', jid, '--out', 'json'])), { r1: 'hello' });
    const job = json(await cluster.brine(['runner', 'jobs.list_job', jid, '--out', 'json'])) as Record<string, unknown>;
    assert.equal(job.jid, jid);
    assert.equal(job.Function, 'test.echo');
    assert.deepEqual(job.Minions, ['r1']);
    assert.deepEqual(job.Result, { r1: { return: 'hello', retcode: 0, success: true } });
    const printed = json(await cluster.brine(['runner', 'jobs.print_job', jid, '--out', 'json'])) as Record<string, Record<string, unknown>>;
    assert.deepEqual(Object.keys(printed), [jid]);
    assert.deepEqual(printed[jid]!.Result, job.Result);
    // a list of patterns, as Salt's search_function takes it
    const listed = json(await cluster.brine(['runner', 'jobs.list_jobs', 'search_function=["test.echo", "nothing.*"]', '--out', 'json'])) as Record<string, Record<string, unknown>>;
    assert.ok(Object.hasOwn(listed, jid), JSON.stringify(listed));
    assert.ok(Object.values(listed).every((j) => j.Function === 'test.echo'));
    const byTarget = json(await cluster.brine(['runner', 'jobs.list_jobs', 'search_target=r2', '--out', 'json'])) as Record<string, unknown>;
    assert.ok(!Object.hasOwn(byTarget, jid));
    // a jid that is no job: Salt's answer, not an error
    const missing = json(await cluster.brine(['runner', 'jobs.list_job', '20200101000000000000', '--out', 'json'])) as Record<string, unknown>;
    assert.equal(missing.Error, 'Cannot contact returner or no job with this jid');
  });

  it('event.send fires on the bus; fileserver.file_list lists the real tree; cache.* read the master caches', async () => {
    assert.deepEqual(json(await cluster.brine(['runner', 'event.send', 'my/custom/event', 'data={"foo": 1}', '--out', 'json'])), true);
    const sent = await eventData('my/custom/event');
    assert.equal(sent.foo, 1);
    assert.equal(typeof sent._stamp, 'string');
    assert.deepEqual(json(await cluster.brine(['runner', 'fileserver.file_list', '--out', 'json'])), ['_runners/mine.py', 'top.sls', 'web/files/index.html', 'web/init.sls']);
    assert.deepEqual(json(await cluster.brine(['runner', 'fileserver.file_list', 'saltenv=prod', '--out', 'json'])), []);
    assert.deepEqual(json(await cluster.brine(['runner', 'fileserver.update', '--out', 'json'])), true);
    const grains = json(await cluster.brine(['runner', 'cache.grains', 'tgt=r1', '--out', 'json'])) as Record<string, Record<string, unknown>>;
    assert.deepEqual(Object.keys(grains), ['r1']);
    assert.equal(grains.r1!.id, 'r1');
    const pillar = await waitUntil(
      async () => {
        const p = json(await cluster.brine(['runner', 'cache.pillar', '--out', 'json'])) as Record<string, Record<string, unknown>>;
        return p.r1 && p.r2 ? p : undefined;
      },
      15_000,
      'the pillar of r1 and r2 in the master cache',
    );
    assert.equal(pillar.r1!.colour, 'blue');
    const mine = await waitUntil(
      async () => {
        const m = json(await cluster.brine(['runner', 'cache.mine', 'tgt=r1', '--out', 'json'])) as Record<string, Record<string, unknown>>;
        return m.r1 ? m : undefined;
      },
      15_000,
      "r1's mine data",
    );
    assert.deepEqual(mine, { r1: { 'test.ping': true } });
    // the master loads no extension modules: Salt's shape, nothing synced
    const synced = json(await cluster.brine(['runner', 'saltutil.sync_all', '--out', 'json'])) as Record<string, unknown>;
    assert.deepEqual(synced.runners, []);
    assert.equal(Object.keys(synced).length, 23);
    assert.deepEqual(json(await cluster.brine(['runner', 'saltutil.sync_runners', '--out', 'json'])), []);
  });

  it('salt.cmd runs an execution function on the master, with its ID', async () => {
    assert.deepEqual(json(await cluster.brine(['runner', 'salt.cmd', 'test.ping', '--out', 'json'])), true);
    assert.deepEqual(json(await cluster.brine(['runner', 'salt.cmd', 'grains.get', 'id', '--out', 'json'])), MASTER_ID);
    assert.deepEqual(json(await cluster.brine(['runner', 'salt.cmd', 'fun=test.echo', 'text=hi', '--out', 'json'])), 'hi');
  });

  it('manage.versions, --async, -t and test.sleep', async () => {
    const versions = json(await cluster.brine(['runner', 'manage.versions', '--out', 'json'])) as Record<string, unknown>;
    const master = versions.Master as string;
    assert.match(master, /^\d+\.\d+\.\d+/);
    assert.deepEqual(versions['Up to date'], { r1: master, r2: master });
    const started = await cluster.brine(['runner', 'test.sleep', '1', '--async']);
    assert.equal(started.code, 0, started.stderr);
    const jid = started.stdout.trim();
    assert.match(jid, /^\d{20}$/);
    const ret = await eventData(`salt/run/${jid}/ret`);
    assert.equal(ret.return, true);
    assert.equal(ret.fun, 'runner.test.sleep');
  });

  it('unknown runner and bad arguments: a clear message and exit 1', async () => {
    const unknown = await cluster.brine(['runner', 'nope.nothing']);
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stdout, "'nope.nothing' is not available.\n");
    assert.match(unknown.stderr, /^RUNNER_UNKNOWN: .*docs\/runners\.md/m);
    const bad = await cluster.brine(['runner', 'jobs.lookup_jid', 'notajid']);
    assert.equal(bad.code, 1);
    assert.match(bad.stdout, /Exception occurred in runner jobs\.lookup_jid: INVALID_JID: /);
    assert.match(bad.stderr, /^INVALID_JID: /m);
    // an execution function the master does not have fails the runner job
    const cmd = await cluster.brine(['runner', 'salt.cmd', 'nope.nothing']);
    assert.equal(cmd.code, 1);
    assert.match(cmd.stderr, /^UNKNOWN_FUNCTION: /m);
    const badTimeout = await cluster.brine(['runner', 'manage.up', '-t', 'soon']);
    assert.equal(badTimeout.code, 64);
    assert.match(badTimeout.stderr, /USAGE: -t\/--timeout must be a number/);
  });

  it('the API runner, runner_async and wheel clients reach the same functions', async () => {
    const r = await api.post('/', token, [
      { client: 'runner', fun: 'test.arg', arg: ['a'], kwarg: { k: 1 } },
      { client: 'runner_async', fun: 'test.arg' },
      { client: 'wheel', fun: 'minions.connected' },
      { client: 'wheel', fun: 'config.values' },
    ]);
    assert.equal(r.status, 200, r.text);
    const [arg, started, connected, config] = r.json.return;
    assert.deepEqual(arg, { args: ['a'], kwargs: { k: 1 } });
    assert.match(started.jid, /^\d{20}$/);
    assert.equal(started.tag, `salt/run/${started.jid}`);
    assert.equal((await eventData(`salt/run/${started.jid}/ret`)).user, 'admin');
    assert.deepEqual(connected.data.return, ['r1', 'r2']);
    assert.equal(connected.data.success, true);
    assert.deepEqual(config.data.return.nodegroups, { web: 'L@r1' });
    assert.equal(config.data.return.id, MASTER_ID);
    const wheelRet = await eventData(`salt/wheel/${connected.data.jid}/ret`);
    assert.deepEqual(wheelRet.return, ['r1', 'r2']);
    assert.equal(wheelRet.fun, 'wheel.minions.connected');
    expectError(await api.post('/', token, [{ client: 'runner', fun: 'nope.nothing' }]), 400, 'API_BAD_REQUEST');
    expectError(await api.post('/', token, [{ client: 'runner', fun: 'jobs.lookup_jid', jid: 'x' }]), 400, 'INVALID_JID');
  });

  it('manage.status/up/down/present/not_present after a minion is killed', async () => {
    assert.deepEqual(json(await cluster.brine(['runner', 'manage.status', '--out', 'json'])), { up: ['r1', 'r2'], down: [] });
    assert.deepEqual(json(await cluster.brine(['runner', 'manage.up', 'tgt=web', 'tgt_type=nodegroup', '--out', 'json'])), ['r1']);
    await minions.get('r2')!.kill('SIGKILL');
    await waitUntil(
      async () => {
        const p = json(await cluster.brine(['runner', 'manage.not_present', '--out', 'json'])) as string[];
        return p.length === 1 && p[0] === 'r2';
      },
      30_000,
      'r2 no longer present',
    );
    assert.deepEqual(json(await cluster.brine(['runner', 'manage.present', '--out', 'json'])), ['r1']);
    assert.deepEqual(json(await cluster.brine(['runner', 'manage.alived', 'show_ip=True', '--out', 'json'])), { r1: '127.0.0.1' });
    assert.deepEqual(json(await cluster.brine(['runner', 'manage.down', '-t', '2', '--out', 'json'])), ['r2']);
    assert.deepEqual(json(await cluster.brine(['runner', 'manage.up', '--out', 'json'])), ['r1']);
  });
});
