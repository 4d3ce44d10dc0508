// Issue 25 point 5 (the reactor) with a real master and real minions: a key accepted with
// `brine key -a` -> salt/minion/<id>/start -> the reactor applies a highstate on that minion (the
// state's file is written, the job is in the job cache as the Reactor's); a pending key accepted by
// a wheel reaction in the current `args:` syntax; a runner reaction with its arguments; a loop
// limited with a warning naming the SLS and tag; an unknown function and a render error logged
// (file and line) while the master goes on; salt[...] in a reactor SLS runs the master's own
// execution functions (Salt's MasterMinion); a caller. reaction is refused on the master.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, waitUntil, type Proc } from '../helpers/cluster.js';
import { JobCache, type JobRecord } from '../../src/jobs/index.js';
import { findFile, writeWithDirs as write } from '../helpers/paths.js';

describe('the reactor on a real master', () => {
  let cluster: Cluster;
  let master: Proc;
  let out: string;
  let reactorDir: string;
  const minions: Proc[] = [];

  const jobs = (): JobRecord[] => {
    const cache = JobCache.open(findFile(path.join(cluster.root, 'master'), 'jobs.sqlite')!, { keepJobsSeconds: 0 });
    try {
      return cache.listJobs({ limit: 1000 });
    } finally {
      cache.close();
    }
  };

  before(async () => {
    cluster = await Cluster.create();
    out = path.join(cluster.root, 'out');
    reactorDir = path.join(cluster.root, 'reactor');
    const srv = path.join(cluster.root, 'master', 'srv', 'salt');
    write(path.join(srv, 'top.sls'), "base:\n  '*':\n    - marker\n");
    write(path.join(srv, 'marker.sls'), `${out}/{{ grains['id'] }}.txt:\n  file.managed:\n    - contents: written by the reactor's highstate\n    - makedirs: True\n`);
    // from file_roots (salt://), as Salt allows
    write(path.join(srv, 'reactor', 'start.sls'), "highstate_new_minion:\n  local.state.apply:\n    - tgt: {{ data['id'] }}\n");
    write(
      path.join(reactorDir, 'auth.sls'),
      "{% if data['act'] == 'pend' and data['id'].startswith('auto-') %}\naccept_auto_minion:\n  wheel.key.accept:\n    - args:\n      - match: {{ data['id'] }}\n{% endif %}\n",
    );
    write(path.join(reactorDir, 'lookup.sls'), "{% if data['fun'] == 'test.echo' %}\nlook_up_the_job:\n  runner.jobs.lookup_jid:\n    - args:\n      - jid: '{{ data['jid'] }}'\n{% endif %}\n");
    write(path.join(reactorDir, 'unknown.sls'), "{% if data['fun'] == 'test.echo' %}\nno_such_runner:\n  runner.nosuch.fun: []\n{% endif %}\n");
    // line 3 has the error; the tag glob matches only test.echo's event (see the test)
    write(path.join(reactorDir, 'broken.sls'), "{% if data['fun'] == 'test.echo' %}\nok: 1\n{{ data['fun'] | no_such_filter }}\n{% endif %}\n");
    // a reaction that fires the tag its own glob matches: a loop (a local job's return would
    // not do: its event carries user Reactor, which the reactor skips, as Salt's does)
    write(path.join(reactorDir, 'loop.sls'), 'again:\n  runner.event.send:\n    - args:\n      - tag: myco/loop/again\n      - data: {round: 1}\n');
    // salt[...] runs on the master: cmd.run there, pillar.get with the master's empty pillar, config.get of its options
    write(
      path.join(reactorDir, 'master-functions.sls'),
      [
        "{% set word = salt['cmd.run']('echo made-on-master') %}",
        'touch_on_web1:',
        '  local.file.touch:',
        "    - tgt: {{ data['id'] | json }}",
        '    - args:',
        `      - name: ${out}/{{ word }}-{{ salt['pillar.get']('missing', 'dflt') }}-{{ salt['config.get']('ret_port') }}.txt`,
        'caller_on_master:',
        '  caller.file.touch:',
        `    - args: ['${out}/never.txt']`,
        '',
      ].join('\n'),
    );
    // a runner reaction reaches the master's own runners (state.orchestrate), as a runner job
    write(path.join(srv, 'orch', 'deploy.sls'), `touch_web1:\n  salt.function:\n    - name: file.touch\n    - tgt: web1\n    - arg:\n      - ${out}/orchestrated.txt\n`);
    write(path.join(reactorDir, 'orchestrate.sls'), 'deploy:\n  runner.state.orchestrate:\n    - args:\n      - mods: orch.deploy\n');
    master = await cluster.startMaster({
      reactor: [
        { 'myco/orchestrate': path.join(reactorDir, 'orchestrate.sls') },
        { 'salt/auth': [path.join(reactorDir, 'auth.sls')] },
        { 'salt/minion/*/start': ['salt://reactor/start.sls'] },
        { 'salt/job/*/new': [path.join(reactorDir, 'lookup.sls'), path.join(reactorDir, 'unknown.sls'), path.join(reactorDir, 'broken.sls')] },
        { 'myco/loop/*': path.join(reactorDir, 'loop.sls') },
        { 'myco/master-functions': path.join(reactorDir, 'master-functions.sls') },
      ],
    });
  });
  after(async () => {
    await cluster.cleanup();
  });

  it("brine key -a on a new minion: salt/minion/<id>/start makes the reactor apply a highstate there (the file is written; the job is in the cache as the Reactor's)", async () => {
    const m = cluster.startMinion('web1');
    minions.push(m);
    await cluster.waitForPending(['web1']);
    assert.equal(fs.existsSync(path.join(out, 'web1.txt')), false, 'nothing runs before the key is accepted');
    const accepted = await cluster.brine(['key', '-a', 'web1', '-y']);
    assert.equal(accepted.code, 0, accepted.stderr);
    await waitUntil(() => fs.existsSync(path.join(out, 'web1.txt')), 60_000, "the reactor's highstate to write out/web1.txt");
    assert.equal(fs.readFileSync(path.join(out, 'web1.txt'), 'utf8'), "written by the reactor's highstate\n");
    const job = jobs().find((j) => j.fun === 'state.apply' && j.tgt === 'web1');
    assert.ok(job, 'the highstate job is in the job cache');
    assert.equal(job.user, 'Reactor');
    assert.deepEqual(job.arg, []);
    assert.match(master.output, /reactor salt:\/\/reactor\/start\.sls published state\.apply as job \d{20} for tag salt\/minion\/web1\/start/);
  });

  it('a wheel reaction in the args: syntax accepts a pending key (salt/auth act pend), and the new minion gets its highstate too', async () => {
    const m = cluster.startMinion('auto-1');
    minions.push(m);
    await waitUntil(() => fs.existsSync(path.join(out, 'auto-1.txt')), 60_000, 'auto-1 accepted by wheel.key.accept and highstated');
    const keys = await cluster.brine(['key', '-l', 'acc']);
    assert.match(keys.stdout, /^auto-1$/m);
    assert.match(master.output, /reactor \S+auth\.sls ran wheel\.key\.accept for tag salt\/auth/);
  });

  it('a runner reaction gets its args: (jobs.lookup_jid jid=...); an unknown runner and a render error are logged with the file (and line), and the master goes on', async () => {
    const r = await cluster.brine(['run', 'web1', 'test.echo', 'hello', '--out', 'json', '--show-jid']);
    assert.equal(r.code, 0, r.stderr);
    const jid = /jid: (\d{20})/.exec(r.stdout)?.[1];
    assert.ok(jid, r.stdout);
    await master.waitForOutput(new RegExp(`lookup\\.sls ran runner\\.jobs\\.lookup_jid for tag salt/job/${jid}/new`));
    await master.waitForOutput(/UNKNOWN_FUNCTION: runner function 'nosuch\.fun' is not available on this master/);
    // the renderer's coded error, naming the file, line and column
    const rendered = await master.waitForOutput(/\[ERROR +\] (TEMPLATE_UNSUPPORTED|RENDER_FAILED): (\S+):3:\d+: the filter 'no_such_filter'/);
    assert.equal(rendered[2], path.join(reactorDir, 'broken.sls'));
    // the master still publishes and answers
    const again = await cluster.brine(['run', 'web1', 'test.ping', '--out', 'json']);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(master.running, true);
  });

  it('a reactor that triggers itself (a runner event.send firing a tag its own glob matches) is stopped after 3 rounds with a REACTOR_LOOP warning naming the SLS and the tag', async () => {
    const r = await cluster.brine(['event', 'send', 'myco/loop/start']);
    assert.equal(r.code, 0, r.stderr);
    const warning = await master.waitForOutput(/REACTOR_LOOP: reactor (\S+) was not run for tag (myco\/loop\/again)/);
    assert.equal(warning[1], path.join(reactorDir, 'loop.sls'));
    const rounds = master.output.split(/loop\.sls ran runner\.event\.send for tag myco\/loop\//).length - 1;
    assert.equal(rounds, 3, 'three reactions, then the loop is stopped');
    assert.equal(master.running, true);
  });

  it("salt[...] in a reactor SLS runs the master's execution functions (cmd.run on the master host, pillar.get's default, config.get of the master's options); caller. is refused on the master, naming the minion's reactor", async () => {
    const r = await cluster.brine(['event', 'send', 'myco/master-functions', '{"id": "web1"}']);
    assert.equal(r.code, 0, r.stderr);
    const file = path.join(out, `made-on-master-dflt-${cluster.port}.txt`);
    await waitUntil(() => fs.existsSync(file), 60_000, `web1 to touch ${file}`);
    const refused = await master.waitForOutput(/REACTION_UNSUPPORTED: \S+master-functions\.sls: reaction 'caller_on_master' cannot run here: (.*)/);
    assert.match(
      refused[1]!,
      /caller\.file\.touch runs the function on the host of the reactor, which is for a minion's own reactor \(reactor: in the minion config\); on the master use local\.file\.touch/,
    );
    assert.equal(fs.existsSync(path.join(out, 'never.txt')), false);
  });

  it('a runner reaction reaches the runners the master adds (state.orchestrate): the orchestration runs as a runner job of the Reactor', async () => {
    const r = await cluster.brine(['event', 'send', 'myco/orchestrate']);
    assert.equal(r.code, 0, r.stderr);
    await waitUntil(() => fs.existsSync(path.join(out, 'orchestrated.txt')), 60_000, 'the orchestration started by the reactor to touch the file on web1');
    await master.waitForOutput(/orchestrate\.sls ran runner\.state\.orchestrate for tag myco\/orchestrate/);
    const orch = jobs().filter((j) => j.fun === 'runner.state.orchestrate');
    assert.equal(orch.length, 1, JSON.stringify(orch));
    assert.equal(orch[0]!.user, 'Reactor');
  });
});
