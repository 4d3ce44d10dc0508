// `brine call` against the master (salt-call without --local, issue 23 point 5), end to end with a
// real master and a real minion daemon: the call runs through the daemon's control socket and its
// master session, so state.apply applies the master's tree with the master's pillar and prints
// what `brine run <id> state.apply` prints (byte for byte but for the minion heading and the
// timings), with salt-call's exit codes; pillar.items is the master's pillar for that minion;
// cp.get_file fetches from the master; the return lands in the master's job cache (Salt's "req"
// return) unless --no-return-event; a stopped master or minion is a coded error at once.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, runCli, waitUntil, type CliResult, type Proc } from '../helpers/cluster.js';

function write(file: string, data: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data);
}

/** The parts of a state run's output that differ between two runs: start times and durations. */
function withoutTimings(out: string): string {
  return out
    .replace(/Started: [\d:.]+/g, 'Started: T')
    .replace(/Duration: [\d.]+ ms/g, 'Duration: D ms')
    .replace(/Total run time: +[\d.]+ (ms|s)/g, 'Total run time: R')
    .replace(/"(start_time|duration)": [^,\n]+/g, '"$1": "X"');
}

describe('brine call against the master (salt-call without --local)', () => {
  let cluster: Cluster;
  let master: Proc;
  let minion: Proc;
  let target: string;
  const ID = 'cm1';
  const call = (args: string[]): Promise<CliResult> => runCli(['call', ...args, '-c', cluster.minionConfigDir(ID)], { timeoutMs: 90_000 });
  const run = (args: string[]): Promise<CliResult> => cluster.brine(['run', ID, ...args, '-t', '60'], { timeoutMs: 90_000 });

  before(async () => {
    cluster = await Cluster.create();
    target = path.join(cluster.root, 'target');
    fs.mkdirSync(target);
    const srv = path.join(cluster.root, 'master', 'srv');
    write(path.join(srv, 'salt', 'top.sls'), "base:\n  '*':\n    - web\n");
    write(path.join(srv, 'salt', 'web.sls'), "motd:\n  file.managed:\n    - name: {{ pillar['target_dir'] }}/motd\n    - contents_pillar: motd\nalways:\n  test.succeed_without_changes\n");
    write(path.join(srv, 'salt', 'broken.sls'), 'fine:\n  test.succeed_without_changes\nbad:\n  test.fail_without_changes\n');
    write(path.join(srv, 'salt', 'files', 'hello.txt'), 'hello from the master file server\n');
    write(path.join(srv, 'pillar', 'top.sls'), `base:\n  '${ID}':\n    - data\n`);
    write(path.join(srv, 'pillar', 'data.sls'), `motd: pillar says hi\ntarget_dir: ${target}\nnested:\n  list: [1, two]\n`);
    master = await cluster.startMaster({ auto_accept: true });
    minion = cluster.startMinion(ID);
    await minion.waitForOutput(/ready to receive requests/, 30_000);
  });
  after(() => cluster.cleanup());

  it("pillar.items is the master's pillar for this minion, as brine run shows it", async () => {
    const viaRun = await run(['pillar.items', '--out', 'json']);
    const viaCall = await call(['pillar.items', '--out', 'json']);
    assert.equal(viaCall.code, 0, viaCall.stderr);
    const expected = { motd: 'pillar says hi', target_dir: target, nested: { list: [1, 'two'] } };
    assert.deepEqual(JSON.parse(viaCall.stdout), { local: expected });
    assert.deepEqual(JSON.parse(viaRun.stdout), { [ID]: expected });
  });

  it("state.apply applies the master's tree with the master's pillar; output and exit code equal brine run's", async () => {
    const viaCall = await call(['state.apply']);
    assert.equal(viaCall.code, 0, viaCall.stderr);
    assert.equal(fs.readFileSync(path.join(target, 'motd'), 'utf8'), 'pillar says hi\n');
    assert.match(viaCall.stdout, /^local:\n/);
    assert.match(viaCall.stdout, /\nSummary for local\n-+\nSucceeded: 2 \(changed=1\)\nFailed: +0\n/);
    const viaRun = await run(['state.apply']);
    assert.equal(viaRun.code, 0, viaRun.stderr);
    // the second run finds the file in place: same as a second brine call would
    const again = await call(['state.apply']);
    assert.equal(again.code, 0, again.stderr);
    const normalize = (s: string, who: string) => withoutTimings(s).replaceAll(who, 'WHO');
    assert.equal(normalize(again.stdout, 'local'), normalize(viaRun.stdout, ID));
    assert.match(viaRun.stdout, /Succeeded: 2\n/);
  });

  it('a failing state: exit 1 as brine run, 2 with --retcode-passthrough, the same output', async () => {
    const viaCall = await call(['state.apply', 'broken']);
    const viaRun = await run(['state.apply', 'broken']);
    assert.equal(viaCall.code, 1, viaCall.stderr);
    assert.equal(viaRun.code, 1, viaRun.stderr);
    assert.equal(withoutTimings(viaCall.stdout).replaceAll('local', 'WHO'), withoutTimings(viaRun.stdout).replaceAll(ID, 'WHO'));
    assert.match(viaCall.stdout, /\nFailed: +1\n/);
    const passthrough = await call(['state.apply', 'broken', '--retcode-passthrough']);
    assert.equal(passthrough.code, 2, passthrough.stderr);
  });

  it('test=True: nothing changes, output equal to brine run test=True, exit 0', async () => {
    write(path.join(target, 'motd'), 'edited by hand\n');
    const viaCall = await call(['state.apply', 'test=True', '--out', 'json']);
    const viaRun = await run(['state.apply', 'test=True', '--out', 'json']);
    assert.equal(viaCall.code, 0, viaCall.stderr);
    assert.equal(viaRun.code, 0, viaRun.stderr);
    assert.equal(fs.readFileSync(path.join(target, 'motd'), 'utf8'), 'edited by hand\n');
    const fromCall = (JSON.parse(withoutTimings(viaCall.stdout)) as { local: Record<string, { result: unknown }> }).local;
    const fromRun = (JSON.parse(withoutTimings(viaRun.stdout)) as Record<string, Record<string, { result: unknown }>>)[ID];
    assert.deepEqual(fromCall, fromRun);
    assert.equal(fromCall[`file_|-motd_|-${target}/motd_|-managed`]?.result, null);
  });

  it('cp.get_file salt://... fetches from the master file server', async () => {
    const dest = path.join(target, 'got', 'hello.txt');
    const r = await call(['cp.get_file', 'salt://files/hello.txt', dest, 'makedirs=True']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `local:\n    ${dest}\n`);
    assert.equal(fs.readFileSync(dest, 'utf8'), 'hello from the master file server\n');
  });

  it("the return is stored in the master's job cache under a fresh jid (Salt's req return); --no-return-event sends none", async () => {
    const r = await call(['test.echo', 'stored-by-call']);
    assert.equal(r.code, 0, r.stderr);
    const logged = await master.waitForOutput(new RegExp(`Got return from ${ID} for brine call test\\.echo \\(stored as job (\\d{20})\\)`), 15_000);
    // the daemon records who ran what through it
    await minion.waitForOutput(/brine call test\.echo from local uid \d+ \(pid \d+\)/, 5000);
    const shown = await cluster.brine(['jobs', 'show', logged[1]!, '--out', 'json']);
    assert.deepEqual(JSON.parse(shown.stdout), { [ID]: 'stored-by-call' });
    const before = master.output.match(/for brine call test\.echo/g)?.length ?? 0;
    const quiet = await call(['test.echo', 'not-stored', '--no-return-event']);
    assert.equal(quiet.code, 0, quiet.stderr);
    // a later, stored call proves the quiet one would have been logged before it
    await call(['test.echo', 'after']);
    await master.waitForOutput(/Got return from cm1 for brine call test\.echo \(stored as job \d{20}\)[\s\S]*Got return from cm1 for brine call test\.echo/, 15_000);
    assert.equal(master.output.match(/for brine call test\.echo/g)?.length, before + 1);
    const list = await cluster.brine(['jobs', 'list']);
    assert.doesNotMatch(list.stdout, /not-stored/);
  });

  it('with the master stopped, even test.ping fails at once with MINION_NO_MASTER naming the master', async () => {
    await master.kill('SIGTERM');
    // the minion sees its session end (the master says bye)
    const r = await waitUntil(
      async () => {
        const c = await call(['test.ping']);
        return c.code !== 0 ? c : undefined;
      },
      20_000,
      'the minion to notice the master is gone',
    );
    const started = Date.now();
    const again = await call(['test.ping']);
    const took = Date.now() - started;
    for (const c of [r, again]) {
      assert.equal(c.code, 1);
      assert.equal(c.stdout, '');
      assert.match(c.stderr, new RegExp(`MINION_NO_MASTER: .*the minion cm1 is not connected to its master 127\\.0\\.0\\.1:${cluster.port}`));
      assert.match(c.stderr, /--local/);
    }
    assert.ok(took < 10_000, `the refusal took ${took} ms`);
    // --local still works without a master
    const local = await call(['test.ping', '--local']);
    assert.equal(local.code, 0, local.stderr);
    assert.equal(local.stdout, 'local:\n    True\n');
  });

  it('with no minion daemon running: MINION_NOT_RUNNING naming the socket and the master, exit 1', async () => {
    await minion.kill('SIGTERM');
    const r = await call(['test.ping']);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /MINION_NOT_RUNNING: no minion daemon is running with sock_dir .*minion\.sock.*master \(127\.0\.0\.1\)/);
    assert.match(r.stderr, /--local/);
  });
});
