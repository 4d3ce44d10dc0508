// The scheduler end to end with real processes: jobs from the minion config run through the job
// runner and land in the master's job cache with their schedule's name; bad entries are coded
// errors in the log and in schedule.list while the others run; schedule.add/delete survive a
// restart (minion.d/_schedule.conf); maxrunning holds; and with the master down a scheduled
// state.apply (file_client: local) still runs and its return arrives once the master is back.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, runCli, waitUntil, type Proc } from '../helpers/cluster.js';

interface ListedJob {
  jid: string;
  fun: string;
  returned: string;
  schedule: string | undefined;
}

async function listJobs(cluster: Cluster): Promise<ListedJob[]> {
  const r = await cluster.brine(['jobs', 'list', '--limit', '500']);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const m = /^(\d{20}) {2}\S+ {2}(\S+) {2}\S+ {2}returned (\d+\/\d+)(?: {2}schedule (\S+))?$/.exec(line);
      assert.ok(m, `unexpected jobs list line: ${line}`);
      return { jid: m[1]!, fun: m[2]!, returned: m[3]!, schedule: m[4] };
    });
}

/** `brine run ... --out json`; a return of false or {result: false} exits 1, as Salt's retcode rule says. */
async function runJson(cluster: Cluster, args: string[], code = 0): Promise<unknown> {
  const r = await cluster.brine(['run', ...args, '--out', 'json']);
  assert.equal(r.code, code, `${args.join(' ')}: ${r.stdout} ${r.stderr}`);
  return JSON.parse(r.stdout);
}

describe('scheduler: schedule option, schedule.*, returns in the job cache', () => {
  let cluster: Cluster;
  let s1: Proc;
  const schedule = {
    ping: { function: 'test.ping', seconds: 1 },
    echo: { function: 'cmd.run', args: ['echo scheduled-hi'], seconds: 2 },
    slow: { function: 'test.sleep', args: [3], seconds: 1 },
    zero: { function: 'test.ping', seconds: 0 },
    typo: { function: 'test.ping', seconds: 2, splya: 1 },
  };

  before(async () => {
    cluster = await Cluster.create();
    await cluster.startMaster({ auto_accept: true });
    s1 = cluster.startMinion('s1', { schedule });
    await s1.waitForOutput(/ready to receive requests/);
  });
  after(async () => {
    await cluster.cleanup();
  });

  it('runs config jobs and stores their returns with the schedule name (brine jobs)', async () => {
    const jobs = await waitUntil(
      async () => {
        const all = await listJobs(cluster);
        return all.some((j) => j.schedule === 'ping') && all.some((j) => j.schedule === 'echo') ? all : undefined;
      },
      20_000,
      'scheduled returns in the job cache',
    );
    const echo = jobs.find((j) => j.schedule === 'echo')!;
    assert.equal(echo.fun, 'cmd.run');
    assert.equal(echo.returned, '1/1');
    const show = await cluster.brine(['jobs', 'show', echo.jid, '--out', 'json']);
    assert.equal(show.code, 0, show.stderr);
    assert.deepEqual(JSON.parse(show.stdout), { s1: 'scheduled-hi' });
    // each scheduled run is its own job
    const pings = jobs.filter((j) => j.schedule === 'ping');
    assert.equal(new Set(pings.map((j) => j.jid)).size, pings.length);
  });

  it('reports a bad interval and an unknown field by job and field, and the others still run', async () => {
    await s1.waitForOutput(/schedule job 'zero', field 'seconds': the interval \(seconds\) is 0 seconds; it must be more than 0/);
    await s1.waitForOutput(/schedule job 'typo', field 'splya': is not a schedule field; did you mean 'splay'\?/);
    const listed = (await runJson(cluster, ['s1', 'schedule.list'])) as { s1: { schedule: Record<string, unknown>; _errors: Record<string, string> } };
    assert.deepEqual(Object.keys(listed.s1.schedule).sort(), ['echo', 'ping', 'slow']);
    assert.deepEqual(Object.keys(listed.s1._errors).sort(), ['typo', 'zero']);
    assert.match(listed.s1._errors.zero!, /^SCHEDULE_INVALID: /);
    const next = (await runJson(cluster, ['s1', 'schedule.show_next_fire_time', 'zero'], 1)) as { s1: { result: boolean; comment: string } };
    assert.equal(next.s1.result, false);
    assert.match(next.s1.comment, /SCHEDULE_INVALID/);
    // brine doctor on the minion's host names both jobs
    const doctor = await runCli(['doctor', 'minion', '-c', cluster.minionConfigDir('s1')], { timeoutMs: 30_000 });
    assert.match(doctor.stdout, /schedule job zero.*SCHEDULE_INVALID: schedule job 'zero', field 'seconds'/);
    assert.match(doctor.stdout, /schedule job typo.*did you mean 'splay'/);
    const good = (await runJson(cluster, ['s1', 'schedule.show_next_fire_time', 'ping'])) as { s1: { result: boolean; next_fire_time: string } };
    assert.equal(good.s1.result, true);
    assert.match(good.s1.next_fire_time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
  });

  it('maxrunning: a 3 s job due every second never runs twice at once', async () => {
    const state = await waitUntil(
      async () => {
        const r = (await runJson(cluster, ['s1', 'schedule.list', 'show_all=True'])) as { s1: { schedule: Record<string, { _running: number; _skip_reason?: string }> } };
        const slow = r.s1.schedule.slow!;
        return slow._running === 1 && slow._skip_reason !== undefined && /maxrunning \(1\)/.test(slow._skip_reason) ? slow : undefined;
      },
      15_000,
      'a skipped run of slow',
    );
    assert.match(state._skip_reason!, /maxrunning \(1\) runs are still in progress/);
    const running = (await runJson(cluster, ['s1', 'saltutil.running'])) as { s1: Array<{ fun: string }> };
    assert.ok(running.s1.filter((j) => j.fun === 'test.sleep').length <= 1, JSON.stringify(running));
  });

  it('schedule.add and delete via brine run, kept across a minion restart', async () => {
    const added = (await runJson(cluster, ['s1', 'schedule.add', 'added', 'function=test.echo', 'job_args=["from-add"]', 'seconds=1'])) as { s1: { result: boolean; changes: unknown } };
    assert.deepEqual(added.s1, { comment: 'Added job: added to schedule.', result: true, changes: { added: 'added' } });
    const refused = await cluster.brine(['run', 's1', 'schedule.add', 'bad2', 'function=test.ping', 'minutes=-5']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stdout + refused.stderr, /SCHEDULE_INVALID|schedule job 'bad2', field 'minutes': must not be negative/);
    await waitUntil(async () => (await listJobs(cluster)).some((j) => j.schedule === 'added'), 15_000, 'a return of the added job');
    const file = path.join(cluster.minionConfigDir('s1'), 'minion.d', '_schedule.conf');
    assert.match(fs.readFileSync(file, 'utf8'), /added:\n\s+function: test\.echo/);

    // restart the minion: the added job is still there, the refused one never was
    await s1.kill('SIGTERM');
    s1 = cluster.startMinion('s1', { schedule });
    await s1.waitForOutput(/ready to receive requests/);
    let listed = (await runJson(cluster, ['s1', 'schedule.list'])) as { s1: { schedule: Record<string, unknown> } };
    assert.ok('added' in listed.s1.schedule, JSON.stringify(listed));
    assert.ok(!('bad2' in listed.s1.schedule));

    const deleted = (await runJson(cluster, ['s1', 'schedule.delete', 'added'])) as { s1: { result: boolean } };
    assert.equal(deleted.s1.result, true);
    await s1.kill('SIGTERM');
    s1 = cluster.startMinion('s1', { schedule });
    await s1.waitForOutput(/ready to receive requests/);
    listed = (await runJson(cluster, ['s1', 'schedule.list'])) as { s1: { schedule: Record<string, unknown> } };
    assert.deepEqual(Object.keys(listed.s1.schedule).sort(), ['echo', 'ping', 'slow']);
  });

  it('disable stops every job until enable; is_enabled says which', async () => {
    assert.deepEqual(await runJson(cluster, ['s1', 'schedule.disable']), { s1: { comment: 'Disabled schedule on minion.', result: true, changes: {} } });
    assert.deepEqual(await runJson(cluster, ['s1', 'schedule.is_enabled'], 1), { s1: false });
    const before = (await listJobs(cluster)).filter((j) => j.schedule === 'ping').length;
    // a run forced while disabled still goes through
    const forced = (await runJson(cluster, ['s1', 'schedule.run_job', 'ping', 'force=True'])) as { s1: { result: boolean } };
    assert.equal(forced.s1.result, true);
    await waitUntil(async () => (await listJobs(cluster)).filter((j) => j.schedule === 'ping').length === before + 1, 10_000, 'the forced run');
    const notForced = (await runJson(cluster, ['s1', 'schedule.run_job', 'ping'], 1)) as { s1: { result: boolean; comment: string } };
    assert.equal(notForced.s1.result, false);
    assert.match(notForced.s1.comment, /scheduler is disabled/);
    await runJson(cluster, ['s1', 'schedule.enable']);
    assert.deepEqual(await runJson(cluster, ['s1', 'schedule.is_enabled']), { s1: true });
    await waitUntil(async () => (await listJobs(cluster)).filter((j) => j.schedule === 'ping').length > before + 1, 10_000, 'ping running again');
  });
});

describe('scheduler: master down', () => {
  let cluster: Cluster;
  let master: Proc;
  let m2: Proc;

  before(async () => {
    cluster = await Cluster.create();
    master = await cluster.startMaster({ auto_accept: true });
  });
  after(async () => {
    await cluster.cleanup();
  });

  it('a scheduled state.apply runs with the master down (file_client: local) and its return arrives after the master restarts', async () => {
    const minionRoot = path.join(cluster.root, 'minions', 'm2');
    const stateDir = path.join(minionRoot, 'srv', 'salt');
    const marker = path.join(cluster.root, 'runs.log');
    fs.mkdirSync(stateDir, { recursive: true });
    fs.writeFileSync(path.join(stateDir, 'mark.sls'), `mark:\n  cmd.run:\n    - name: echo run >> ${marker}\n`);
    m2 = cluster.startMinion('m2', { file_client: 'local', schedule: { mark: { function: 'state.apply', args: ['mark'], seconds: 2 } } });
    await m2.waitForOutput(/ready to receive requests/);
    await waitUntil(async () => (await listJobs(cluster)).some((j) => j.schedule === 'mark' && j.returned === '1/1'), 20_000, 'a first scheduled state.apply return');

    await master.kill('SIGTERM');
    const queueDir = path.join(minionRoot, 'var', 'cache', 'brine', 'minion', 'returns');
    const linesAtStop = fs.readFileSync(marker, 'utf8').split('\n').filter(Boolean).length;
    // the state keeps running with no master, and its returns wait in the queue
    await waitUntil(() => fs.readFileSync(marker, 'utf8').split('\n').filter(Boolean).length >= linesAtStop + 2, 15_000, 'state runs while the master is down');
    const queued = await waitUntil(
      () => {
        const files = fs.existsSync(queueDir) ? fs.readdirSync(queueDir).filter((f) => f.endsWith('.json')) : [];
        return files.length >= 2 ? files : undefined;
      },
      10_000,
      'queued returns',
    );
    const storedBefore = (await listJobs(cluster)).filter((j) => j.schedule === 'mark').length;

    master = await cluster.startMaster({ auto_accept: true });
    // every return queued while the master was down is acknowledged (its file removed) and stored
    await waitUntil(() => queued.every((f) => !fs.existsSync(path.join(queueDir, f))), 20_000, 'the queued returns acknowledged');
    const after = (await listJobs(cluster)).filter((j) => j.schedule === 'mark');
    assert.ok(after.length >= storedBefore + queued.length, `${after.length} stored, expected at least ${storedBefore} + ${queued.length}`);
    const last = after[0]!;
    const show = await cluster.brine(['jobs', 'show', last.jid, '--out', 'json']);
    assert.equal(show.code, 0, show.stderr);
    const ret = JSON.parse(show.stdout) as { m2: Record<string, { result: boolean }> };
    assert.ok(
      Object.values(ret.m2).every((s) => s.result === true),
      show.stdout,
    );
  });
});

describe('scheduler: schedule from pillar', () => {
  let cluster: Cluster;

  before(async () => {
    cluster = await Cluster.create();
    const pillarRoot = path.join(cluster.root, 'master', 'srv', 'pillar');
    fs.mkdirSync(pillarRoot, { recursive: true });
    fs.writeFileSync(path.join(pillarRoot, 'top.sls'), "base:\n  'p1':\n    - sched\n");
    fs.writeFileSync(
      path.join(pillarRoot, 'sched.sls'),
      'schedule:\n  frompillar:\n    function: test.echo\n    args: [pillar-run]\n    seconds: 1\n  clash:\n    function: test.echo\n    args: [from-pillar]\n    seconds: 1\n',
    );
    await cluster.startMaster({ auto_accept: true });
  });
  after(async () => {
    await cluster.cleanup();
  });

  it("runs pillar jobs (the minion's own wins a name clash) and follows saltutil.refresh_pillar", async () => {
    const p1 = cluster.startMinion('p1', { schedule: { clash: { function: 'test.echo', args: ['from-config'], seconds: 1 } } });
    await p1.waitForOutput(/ready to receive requests/);
    const jobs = await waitUntil(
      async () => {
        const all = await listJobs(cluster);
        return all.some((j) => j.schedule === 'frompillar') && all.some((j) => j.schedule === 'clash') ? all : undefined;
      },
      20_000,
      'returns of the pillar job',
    );
    const fromPillar = await cluster.brine(['jobs', 'show', jobs.find((j) => j.schedule === 'frompillar')!.jid, '--out', 'json']);
    assert.deepEqual(JSON.parse(fromPillar.stdout), { p1: 'pillar-run' });
    const clash = await cluster.brine(['jobs', 'show', jobs.find((j) => j.schedule === 'clash')!.jid, '--out', 'json']);
    assert.deepEqual(JSON.parse(clash.stdout), { p1: 'from-config' });
    const listed = (await runJson(cluster, ['p1', 'schedule.list', 'show_all=True'])) as { p1: { schedule: Record<string, { _source: string }> } };
    assert.equal(listed.p1.schedule.frompillar?._source, 'pillar');
    assert.equal(listed.p1.schedule.clash?._source, 'config');
    const refused = await cluster.brine(['run', 'p1', 'schedule.delete', 'frompillar']);
    assert.match(refused.stdout + refused.stderr, /it comes from pillar/);

    // the pillar drops the job: after a refresh it is gone from the schedule
    fs.writeFileSync(path.join(cluster.root, 'master', 'srv', 'pillar', 'sched.sls'), 'schedule: {}\n');
    await runJson(cluster, ['p1', 'saltutil.refresh_pillar']);
    await waitUntil(
      async () => {
        const r = (await runJson(cluster, ['p1', 'schedule.list'])) as { p1: { schedule: Record<string, unknown> } };
        return !('frompillar' in r.p1.schedule) && 'clash' in r.p1.schedule;
      },
      15_000,
      'the pillar job removed',
    );
  });
});
