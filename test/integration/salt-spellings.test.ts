// Issue 26 point 3: the CLI spellings Salt users type, against a real master and minion:
// --output/--out= aliases, --state_output, --output-indent, --output-diff, -l on run, -c in any
// position, --out on key/jobs/minions in salt-key's and salt-run's layouts, key.finger and
// key.finger_master on the minion.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, runCli, waitUntil } from '../helpers/cluster.js';

const SLS = `unchanged:
  test.succeed_without_changes: []
changed:
  test.succeed_with_changes: []
`;

describe('Salt CLI spellings', () => {
  let cluster: Cluster;

  before(async () => {
    cluster = await Cluster.create();
    const salt = path.join(cluster.root, 'master', 'srv', 'salt');
    fs.mkdirSync(salt, { recursive: true });
    fs.writeFileSync(path.join(salt, 'spell.sls'), SLS);
    await cluster.startMaster({ auto_accept: true });
    const m = cluster.startMinion('s1');
    await m.waitForOutput(/ready to receive requests/);
  });
  after(async () => {
    await cluster.cleanup();
  });

  it('--output=json, --output json and --out=json all print JSON', async () => {
    for (const spelling of [['--output=json'], ['--output', 'json'], ['--out=json']]) {
      const r = await cluster.brine(['run', 's1', 'test.ping', ...spelling]);
      assert.equal(r.code, 0, `${spelling.join(' ')}: ${r.stderr}`);
      assert.deepEqual(JSON.parse(r.stdout), { s1: true }, spelling.join(' '));
    }
  });

  it('--output-indent=2 and --out-indent 2 indent JSON by two spaces', async () => {
    for (const spelling of [['--output-indent=2'], ['--out-indent', '2']]) {
      const r = await cluster.brine(['run', 's1', 'test.echo', 'hi', '--out', 'json', ...spelling]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, '{\n  "s1": "hi"\n}\n', spelling.join(' '));
    }
    const bad = await cluster.brine(['run', 's1', 'test.ping', '--output-indent', 'wide']);
    assert.equal(bad.code, 64, bad.stderr);
    assert.match(bad.stderr, /^USAGE: --out-indent must be a whole number/m);
  });

  it("brine call takes salt-call's --out-indent and --out-file (and --output-indent, --output-file=, --output-file-append)", async () => {
    const call = (args: string[]) => runCli(['call', '--local', ...args, '-c', cluster.minionConfigDir('s1')]);
    const indented = await call(['test.echo', 'hi', '--out', 'json', '--output-indent=2']);
    assert.equal(indented.code, 0, indented.stderr);
    assert.equal(indented.stdout, '{\n  "local": "hi"\n}\n');
    const file = path.join(cluster.root, 'call-out.json');
    const first = await call(['test.echo', 'one', '--out', 'json', '--out-indent', '-1', `--output-file=${file}`]);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stdout, '', 'the return went to the file, not stdout');
    const second = await call(['test.echo', 'two', '--out', 'json', '--out-indent', '-1', '--out-file', file, '--output-file-append']);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(fs.readFileSync(file, 'utf8'), '{"local": "one"}\n{"local": "two"}\n');
    const third = await call(['test.echo', 'three', '--out', 'json', '--out-indent', '-1', '--out-file', file]);
    assert.equal(third.code, 0, third.stderr);
    assert.equal(fs.readFileSync(file, 'utf8'), '{"local": "three"}\n', '--out-file alone truncates');
  });

  it('--state_output=terse and --state-output terse print one line per state; --output-diff hides the unchanged state', async () => {
    for (const spelling of [['--state_output=terse'], ['--state-output', 'terse']]) {
      const r = await cluster.brine(['run', 's1', 'state.apply', 'spell', ...spelling]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^ {2}Name: unchanged - Function: test\.succeed_without_changes - Result: Clean /m, spelling.join(' '));
      assert.match(r.stdout, /^ {2}Name: changed - Function: test\.succeed_with_changes - Result: Changed /m, spelling.join(' '));
    }
    const diff = await cluster.brine(['run', 's1', 'state.apply', 'spell', '--output-diff', '--state-output', 'terse']);
    assert.equal(diff.code, 0, diff.stderr);
    assert.doesNotMatch(diff.stdout, /Name: unchanged/);
    assert.match(diff.stdout, /Name: changed - Function: test\.succeed_with_changes/);
    // the summary still counts both, as Salt's does
    assert.match(diff.stdout, /Succeeded: 2 \(changed=1\)/);
  });

  it('-l debug on brine run prints its own log lines on stderr; without -l none', async () => {
    const r = await cluster.brine(['run', '-l', 'debug', 's1', 'test.ping']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^\[DEBUG {3}\] publishing test\.ping to glob target "s1"/m);
    assert.match(r.stderr, /^\[DEBUG {3}\] s1: retcode 0$/m);
    const quiet = await cluster.brine(['run', '--log-level', 'warning', 's1', 'test.ping']);
    assert.equal(quiet.stderr, '');
    const plain = await cluster.brine(['run', 's1', 'test.ping']);
    assert.equal(plain.stderr, '');
    const bad = await cluster.brine(['run', '-l', 'loud', 's1', 'test.ping']);
    assert.equal(bad.code, 64);
    assert.match(bad.stderr, /unknown log level 'loud'/);
  });

  it('-c DIR works before the command, between command and subcommand, and after', async () => {
    const dir = cluster.masterConfigDir;
    await cluster.brine(['run', 's1', 'test.ping']);
    const outputs: string[] = [];
    for (const argv of [
      ['-c', dir, 'jobs', 'list'],
      ['jobs', '-c', dir, 'list'],
      ['jobs', 'list', '-c', dir],
      [`--config-dir=${dir}`, 'jobs', 'list'],
    ]) {
      const r = await runCli(argv);
      assert.equal(r.code, 0, `${argv.join(' ')}: ${r.stderr}`);
      assert.match(r.stdout, /test\.ping {2}glob:s1/, argv.join(' '));
      outputs.push(r.stdout);
    }
    assert.equal(new Set(outputs).size, 1, 'every position gives the same listing');
    const key = await runCli(['-c', dir, 'key', '-L']);
    assert.equal(key.code, 0, key.stderr);
    assert.match(key.stdout, /^Accepted Keys:\ns1$/m);
    // a command without -c still refuses it, naming it
    const bad = await runCli(['-c', dir, 'emulate']);
    assert.equal(bad.code, 64);
    assert.match(bad.stderr, /unknown option '-c'/);
  });

  it("brine key -L --out json prints salt-key's document; -l acc --out yaml only the accepted", async () => {
    const r = await cluster.brine(['key', '-L', '--out', 'json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '{\n    "minions": [\n        "s1"\n    ],\n    "minions_pre": [],\n    "minions_rejected": [],\n    "minions_denied": []\n}\n');
    const y = await cluster.brine(['key', '-l', 'acc', '--output=yaml']);
    assert.equal(y.code, 0, y.stderr);
    assert.equal(y.stdout, 'minions:\n  - s1\n');
    const bad = await cluster.brine(['key', '-L', '--out', 'highstate']);
    assert.equal(bad.code, 64);
    assert.match(bad.stderr, /unknown --out 'highstate'/);
  });

  it('key.finger and key.finger_master on the minion match brine key -F --out json on the master', async () => {
    const f = await cluster.brine(['key', '-F', '--out', 'json']);
    assert.equal(f.code, 0, f.stderr);
    const doc = JSON.parse(f.stdout) as Record<string, Record<string, string>>;
    assert.deepEqual(Object.keys(doc), ['minions', 'minions_pre', 'minions_rejected', 'minions_denied', 'local']);
    const minionFp = doc.minions!.s1!;
    assert.match(minionFp, /^[0-9a-f]{2}(:[0-9a-f]{2}){31}$/);
    const r = await cluster.brine(['run', 's1', 'key.finger', '--out', 'json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { s1: minionFp });
    const m = await cluster.brine(['run', 's1', 'key.finger_master', '--out', 'json']);
    assert.equal(m.code, 0, m.stderr);
    assert.deepEqual(JSON.parse(m.stdout), { s1: doc.local!['master.pub'] });
    const bad = await cluster.brine(['run', 's1', 'key.finger', 'hash_type=md5']);
    assert.equal(bad.code, 1);
    assert.match(bad.stdout, /sha256 only/);
  });

  it("brine jobs list --out json prints Salt's jobs.list_jobs layout", async () => {
    const run = await cluster.brine(['run', '-v', 's1', 'test.echo', 'listed']);
    const jid = /Executing job with jid (\d{20})/.exec(run.stdout)![1]!;
    const r = await cluster.brine(['jobs', 'list', '--output', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const jobs = JSON.parse(r.stdout) as Record<string, Record<string, unknown>>;
    const job = jobs[jid]!;
    assert.deepEqual({ ...job, StartTime: undefined, User: undefined }, { Function: 'test.echo', Arguments: ['listed'], Target: 's1', 'Target-type': 'glob', StartTime: undefined, User: undefined });
    assert.match(String(job.StartTime), /^\d{4}, [A-Z][a-z]{2} \d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/);
    const jids = Object.keys(jobs);
    assert.deepEqual(jids, [...jids].sort(), 'oldest first');
  });

  it("brine minions status --out json prints Salt's manage.status document; up --out yaml a list", async () => {
    const r = await waitUntil(
      async () => {
        const s = await cluster.brine(['minions', 'status', '--output=json']);
        return s.code === 0 && s.stdout.includes('s1') ? s : undefined;
      },
      10_000,
      's1 in minions status',
    );
    assert.deepEqual(JSON.parse(r.stdout), { down: [], up: ['s1'] });
    const rows = await cluster.brine(['minions', 'status', '--out', 'sessions']);
    assert.equal((JSON.parse(rows.stdout) as { id: string; state: string }[]).find((s) => s.id === 's1')?.state, 'connected');
    const up = await cluster.brine(['minions', 'up', '--out', 'yaml']);
    assert.equal(up.stdout, '- s1\n');
  });
});
