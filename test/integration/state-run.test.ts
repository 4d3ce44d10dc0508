// Issue 9 (the state system) end to end with real processes, in what needs no file server:
// `brine call state.single` (the state return, retcode 2 on failure, test=True) and, through a
// real master and minion, one state run per minion: a second run is refused naming the running
// jid, and queue=True waits for it. The state run is held open by a real `sleep` in onlyif.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, runCli, waitUntil, type CliResult, type Proc } from '../helpers/cluster.js';

describe('state runs end to end', () => {
  let cluster: Cluster;
  let call: (args: string[]) => Promise<CliResult>;
  let minion: Proc;

  before(async () => {
    cluster = await Cluster.create();
    cluster.writeMinionConfig('callhost-dir', { id: 'callhost' });
    call = (args) => runCli(['call', '--local', ...args, '-c', cluster.minionConfigDir('callhost-dir')]);
    await cluster.startMaster({ auto_accept: true });
    minion = cluster.startMinion('s1');
    await minion.waitForOutput(/ready to receive requests/, 30_000);
  });
  after(() => cluster.cleanup());

  /** Starts (--async) a state run on s1 that holds the lock for ~4 s; resolves with its jid once it runs. */
  async function startHeldStateRun(name: string): Promise<string> {
    const first = await cluster.brine(['run', '--async', 's1', 'state.single', 'test.nop', `name=${name}`, 'onlyif=sleep 4']);
    assert.equal(first.code, 0, first.stderr);
    const jid = /job ID: (\d{20})/.exec(first.stdout)?.[1];
    assert.ok(jid, first.stdout);
    await waitUntil(
      async () => {
        const r = await cluster.brine(['run', 's1', 'saltutil.running', '--out', 'json']);
        return r.stdout.includes(jid);
      },
      15_000,
      `state run ${name} to be running on the minion`,
    );
    return jid;
  }

  it('brine call state.single returns the state keyed state_|-id_|-name_|-fun; a failed state exits 1, or 2 with --retcode-passthrough', async () => {
    const ok = await call(['state.single', 'test.succeed_with_changes', 'name=demo', '--out', 'json']);
    assert.equal(ok.code, 0, ok.stderr);
    const ret = (JSON.parse(ok.stdout) as { local: Record<string, { result: boolean; changes: object; __run_num__: number }> }).local;
    const entry = ret['test_|-demo_|-demo_|-succeed_with_changes'];
    assert.ok(entry, ok.stdout);
    assert.equal(entry.result, true);
    assert.deepEqual(entry.changes, { testing: { old: 'Unchanged', new: 'Something pretended to change' } });
    assert.equal(entry.__run_num__, 0);

    const failed = await call(['state.single', 'test.fail_without_changes', 'name=demo', '--out', 'json']);
    assert.equal(failed.code, 1, failed.stdout + failed.stderr);
    const passthrough = await call(['state.single', 'test.fail_without_changes', 'name=demo', '--out', 'json', '--retcode-passthrough']);
    assert.equal(passthrough.code, 2, passthrough.stdout + passthrough.stderr);

    const dry = await call(['state.single', 'test.succeed_with_changes', 'name=demo', 'test=True', '--out', 'json']);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /"result": null/);
  });

  it('a bad state argument is STATE_COMPILE_FAILED with Salt list of errors, exit 1', async () => {
    const r = await call(['state.single', 'test.nop', 'name=demo', 'creates=5', '--out', 'json']);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /^STATE_COMPILE_FAILED: /m);
    const ret = (JSON.parse(r.stdout) as { local: string[] }).local;
    assert.ok(Array.isArray(ret));
    assert.match(ret[0]!, /'creates' must be a path or a list of paths/);
  });

  it('brine call and the minion daemon on one machine share the state lock, both ways', async () => {
    // --local: a brine call process of its own (without it the call runs inside the daemon)
    const s1Call = (args: string[]) => runCli(['call', '--local', ...args, '-c', cluster.minionConfigDir('s1')]);
    // the daemon runs a state; brine call with the same config is refused, naming its jid
    const jid = await startHeldStateRun('daemon-held');
    const refused = await s1Call(['state.single', 'test.nop', 'name=from-call', '--out', 'json']);
    assert.equal(refused.code, 1, refused.stdout + refused.stderr);
    assert.match(refused.stderr, /^STATE_RUN_IN_PROGRESS: /m);
    assert.match(refused.stdout, new RegExp(`with jid ${jid}`));
    const queued = await s1Call(['state.single', 'test.nop', 'name=from-call', 'queue=True', '--out', 'json']);
    assert.equal(queued.code, 0, queued.stdout + queued.stderr);

    // brine call runs a state; the daemon refuses one from the master, naming brine call's jid
    const holder = s1Call(['state.single', 'test.nop', 'name=call-held', 'onlyif=sleep 4', '--out', 'json']);
    const lockFile = path.join(cluster.root, 'minions', 's1', 'var', 'cache', 'brine', 'minion', 'state-run.lock');
    const held = await waitUntil(() => (fs.existsSync(lockFile) ? (JSON.parse(fs.readFileSync(lockFile, 'utf8')) as { jid: string; fun: string }) : undefined), 15_000, 'brine call to take the lock');
    const second = await cluster.brine(['run', 's1', 'state.single', 'test.nop', 'name=from-master', '--out', 'json']);
    assert.notEqual(second.code, 0);
    assert.match(second.stdout, new RegExp(`with jid ${held.jid}`));
    assert.equal((await holder).code, 0);
    assert.equal(fs.existsSync(lockFile), false, 'brine call left its lock behind');
  });

  it('one state run per minion: a second gets STATE_RUN_IN_PROGRESS naming the jid; queue=True waits; show_* never waits', async () => {
    const jid = await startHeldStateRun('slow');
    const second = await cluster.brine(['run', 's1', 'state.single', 'test.nop', 'name=fast', '--out', 'json']);
    assert.notEqual(second.code, 0);
    assert.match(second.stdout, new RegExp(`The function \\\\?"state.single\\\\?" is running as PID \\d+ and was started at .* with jid ${jid}`));

    const show = await cluster.brine(['run', 's1', 'state.show_top', '--out', 'json']);
    // no file server yet on this branch: the point is that it answers at once instead of waiting
    assert.doesNotMatch(show.stdout, /is running as PID/);

    const queued = await cluster.brine(['run', 's1', 'state.single', 'test.nop', 'name=queued', 'queue=True', '--out', 'json', '-t', '30']);
    assert.equal(queued.code, 0, queued.stdout + queued.stderr);
    assert.match(queued.stdout, /test_\|-queued_\|-queued_\|-nop/);
    // the first one had finished by then (it held the lock until its sleep ended)
    const done = await cluster.brine(['jobs', 'show', jid, '--out', 'json']);
    assert.match(done.stdout, /test_\|-slow_\|-slow_\|-nop/);
  });
});
