// Issue 26 point 2, second half: Salt's state_events. A 3-state SLS with a `cmd.run: sleep` in the
// middle, on a real master and minion: the master's bus carries salt/job/<jid>/prog/<id>/0..2 in
// order with Salt's payload, and `brine run --progress` in a real pseudo-terminal (script(1),
// bsdutils) prints the first state's line while the job still runs; with --out json or on a pipe
// nothing extra is printed.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BRINE_BIN, Cluster, Proc, runCommand, waitUntil } from '../helpers/cluster.js';

const SLS = `first:
  test.succeed_without_changes

slow:
  cmd.run:
    - name: sleep 2

third:
  test.succeed_with_changes
`;

const quote = (args: string[]): string => [process.execPath, BRINE_BIN, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');

describe('state_events and brine run --progress', () => {
  let cluster: Cluster;

  before(async () => {
    cluster = await Cluster.create();
    cluster.writeMasterConfig({ auto_accept: true });
    const roots = path.join(cluster.root, 'master', 'srv', 'salt');
    fs.mkdirSync(roots, { recursive: true });
    fs.writeFileSync(path.join(roots, 'progress.sls'), SLS);
    await cluster.startMaster({ auto_accept: true });
    await cluster.startMinion('p1').waitForOutput(/ready to receive requests/);
  });
  after(async () => {
    await cluster.cleanup();
  });

  it('fires salt/job/<jid>/prog/p1/0..2 in order with {ret, len} as Salt does (state_events=True)', async () => {
    const events = cluster.spawnBrine('events', ['events', '--out', 'json', '-c', cluster.masterConfigDir]);
    // subscribed once a job's events show up in its output (no fixed wait)
    await waitUntil(
      async () => {
        await cluster.brine(['run', 'p1', 'test.ping']);
        return events.output.includes('"salt/job/') || undefined;
      },
      30_000,
      'brine events to follow the bus',
    );
    const r = await cluster.brine(['run', 'p1', 'state.apply', 'progress', 'state_events=True', '--out', 'json', '--show-jid']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const jid = /jid: (\d{20})/.exec(r.stdout)?.[1];
    assert.ok(jid, r.stdout);
    const progOf = (): Array<{ tag: string; data: Record<string, unknown> }> =>
      events.output
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { tag: string; data: Record<string, unknown> })
        .filter((e) => e.tag.startsWith(`salt/job/${jid}/prog/`));
    await waitUntil(() => progOf().length >= 3 || undefined, 15_000, 'three progress events');
    const prog = progOf();
    assert.deepEqual(
      prog.map((e) => e.tag),
      [0, 1, 2].map((n) => `salt/job/${jid}/prog/p1/${n}`),
    );
    const [first, slow] = prog;
    // Salt's master fires the minion's fire_master load: {cmd, data: {ret, len}, id, jid, tag} and _stamp
    assert.equal(first!.data.cmd, '_minion_event');
    assert.equal(first!.data.id, 'p1');
    assert.equal(first!.data.jid, jid);
    assert.equal(first!.data.tag, `salt/job/${jid}/prog/p1/0`);
    assert.match(String(first!.data._stamp), /^\d{4}-\d\d-\d\dT/);
    const inner = first!.data.data as { ret: Record<string, unknown>; len: number; fun: string };
    assert.equal(inner.len, 3);
    assert.equal(inner.fun, 'test.succeed_without_changes');
    assert.equal(inner.ret.__id__, 'first');
    assert.equal(inner.ret.__run_num__, 0);
    assert.equal(inner.ret.result, true);
    assert.equal(typeof inner.ret.start_time, 'string');
    const slowRet = (slow!.data.data as { ret: Record<string, unknown> }).ret;
    assert.equal(slowRet.name, 'sleep 2');
    assert.ok(Number(slowRet.duration) >= 1900, `the sleep's duration: ${String(slowRet.duration)}`);
    // without state_events: no progress events (the minion's state_events defaults to False)
    const plain = await cluster.brine(['run', 'p1', 'state.apply', 'progress', '--out', 'json', '--show-jid']);
    const jid2 = /jid: (\d{20})/.exec(plain.stdout)?.[1];
    assert.ok(jid2, plain.stdout);
    await waitUntil(() => events.output.includes(`"salt/job/${jid2}/ret/p1"`) || undefined, 15_000, 'the second return event');
    assert.ok(!events.output.includes(`salt/job/${jid2}/prog/`), 'no progress events without state_events');
    await events.kill();
  });

  it('--progress in a terminal prints the first state line before the job ends, then the normal output', async () => {
    const child = spawn('script', ['-qec', quote(['run', 'p1', 'state.apply', 'progress', '--progress', '-c', cluster.masterConfigDir]), '/dev/null'], {
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const term = new Proc('brine run --progress in script(1)', child);
    cluster.procs.push(term);
    await term.waitForOutput(/Name: first - Function: test\.succeed_without_changes - Result: Clean - Started: \S+ - Duration: [\d.]+ ms/);
    // read while the job runs: the sleep has not finished, the highstate output has not come
    assert.ok(term.running, term.output);
    assert.doesNotMatch(term.output, /Summary for p1/);
    assert.doesNotMatch(term.output, /Name: third/);
    assert.equal(await term.exited, 0, term.output);
    const out = term.output;
    const at = (re: RegExp): number => out.search(re);
    assert.ok(at(/Name: sleep 2 - Function: cmd\.run - Result: Changed/) > at(/Name: first - /), out);
    assert.ok(at(/Name: third - Function: test\.succeed_with_changes - Result: Changed/) > at(/Name: sleep 2 - /), out);
    // then the normal highstate output, once
    assert.ok(at(/Summary for p1/) > at(/Name: third - /), out);
    assert.match(out, /Succeeded: 3 \(changed=2\)/);
  });

  it('--progress with --out json in a terminal, or on a pipe: no state lines', async () => {
    const json = await runCommand('script', ['-qec', quote(['run', 'p1', 'state.apply', 'progress', '--progress', '--out', 'json', '-c', cluster.masterConfigDir]), '/dev/null'], {
      env: { ...process.env, NO_COLOR: '1' },
      what: 'brine run --progress --out json in script(1)',
      timeoutMs: 60_000,
    });
    assert.equal(json.code, 0, json.stdout);
    assert.doesNotMatch(json.stdout, /Name: first - Function/);
    assert.doesNotMatch(json.stdout, /\x1b\[K/);
    const piped = await cluster.brine(['run', 'p1', 'state.apply', 'progress', '--progress']);
    assert.equal(piped.code, 0, piped.stdout + piped.stderr);
    assert.equal(piped.stderr, '');
    assert.doesNotMatch(piped.stdout, /Name: first - Function/);
    assert.match(piped.stdout, /Summary for p1/);
  });
});
