// The template functions (slsutil.*, defaults.*, log.*, file path helpers) through real brine call
// processes: as execution functions, and inside an SLS a job worker renders, where log.* lines
// must cross from the worker thread to the process that holds the log (salt-call prints them on
// the console at log_level as `[LEVEL   ] message`).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, runCli, type CliResult, type Proc } from '../helpers/cluster.js';

function write(file: string, data: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data);
}

describe('template functions through brine call', () => {
  let cluster: Cluster;
  let call: (args: string[]) => Promise<CliResult>;
  let out: string;

  before(async () => {
    cluster = await Cluster.create();
    out = path.join(cluster.root, 'out');
    const srv = path.join(cluster.root, 'minions', 'tf', 'srv', 'salt');
    // file_roots as written (Salt does not move it under root_dir)
    cluster.writeMinionConfig('tf', { id: 'tf-local', file_client: 'local', file_roots: { base: [srv] }, log_level: 'info' });
    write(
      path.join(srv, 'app', 'map.jinja'),
      "{% set app = {'user': 'app', 'conf': {'port': 80}} %}\n{% do salt['defaults.merge'](app, {'conf': {'workers': 4}}) %}\n{% do salt.log.debug('map.jinja loaded') %}\n",
    );
    write(
      path.join(srv, 'app', 'init.sls'),
      [
        '{%- from salt.file.dirname(tpldir) ~ "/app/map.jinja" import app with context %}',
        "{%- do salt['log.warning']('rendering app for ' ~ grains.id) %}",
        '{%- do salt.log.info("info line") %}',
        'app-conf:',
        '  file.managed:',
        `    - name: ${path.join(out, 'app.yaml')}`,
        '    - makedirs: True',
        "    - contents: {{ salt['slsutil.serialize']('yaml', app, default_flow_style=False) | yaml_dquote }}",
        '',
      ].join('\n'),
    );
    call = (args) => runCli(['call', ...args, '-c', cluster.minionConfigDir('tf')]);
  });
  after(() => cluster.cleanup());

  it('an SLS using defaults.merge, file.dirname, slsutil.serialize and log.* applies; its log lines reach the console', async () => {
    const r = await call(['state.apply', 'app', '--out', 'json']);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.equal(fs.readFileSync(path.join(out, 'app.yaml'), 'utf8'), 'conf:\n  port: 80\n  workers: 4\nuser: app\n');
    // log_level info: warning and info lines are printed, debug is not
    assert.match(r.stderr, /^\[WARNING \] rendering app for tf-local$/m);
    assert.match(r.stderr, /^\[INFO {4}\] info line$/m);
    assert.doesNotMatch(r.stderr, /map\.jinja loaded/);
  });

  it("a command that exits non-zero gives its output to the template, as Salt's cmd.run does; an unknown function still fails the render", async () => {
    const srv = path.join(cluster.root, 'minions', 'tf', 'srv', 'salt');
    // salt-formula's salt/pkgrepo/suse/install.sls runs zypper in Jinja: on Debian the shell's message comes back
    write(path.join(srv, 'probe', 'init.sls'), "{%- set out = salt['cmd.run']('brine-no-such-program --version') %}\nprobe:\n  test.show_notification:\n    - text: {{ out | yaml_dquote }}\n");
    write(path.join(srv, 'probe', 'bad.sls'), "{%- set out = salt['nosuch.function']() %}\nbad:\n  test.nop: []\n");
    const r = await call(['state.apply', 'probe', '--out', 'json']);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const states = Object.values((JSON.parse(r.stdout) as { local: Record<string, { comment: string }> }).local);
    assert.match(states[0]!.comment, /brine-no-such-program: (command )?not found/);
    const bad = await call(['state.apply', 'probe.bad', '--out', 'json']);
    assert.equal(bad.code, 1);
    assert.match(bad.stdout + bad.stderr, /nosuch\.function/);
  });

  it("the same functions are execution functions with Salt's arguments", async () => {
    const merged = await call(['slsutil.merge', '{foo: {a: 1}}', '{foo: {b: 2}}', '--out', 'json']);
    assert.equal(merged.code, 0, merged.stderr);
    assert.deepEqual(JSON.parse(merged.stdout), { local: { foo: { a: 1, b: 2 } } });
    const joined = await call(['file.join', '/usr/bin', 'psql', '--out', 'json']);
    assert.deepEqual(JSON.parse(joined.stdout), { local: '/usr/bin/psql' });
    const logged = await call(['log.error', 'operator says hi', '--out', 'json']);
    assert.deepEqual(JSON.parse(logged.stdout), { local: true });
    assert.match(logged.stderr, /^\[ERROR {3}\] operator says hi$/m);
    const bad = await call(['slsutil.serialize', 'toml', '{a: 1}']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /Serializer 'toml' not found\./);
  });
});

describe('template functions in a minion daemon job', () => {
  let cluster: Cluster;
  let minion: Proc;

  before(async () => {
    cluster = await Cluster.create();
    write(
      path.join(cluster.root, 'master', 'srv', 'salt', 'logged.sls'),
      "{%- do salt['log.warning']('sls rendered for ' ~ grains.id) %}\nnoop:\n  test.succeed_without_changes:\n    - name: {{ salt['file.basename']('/a/b/c') }}\n",
    );
    await cluster.startMaster({ auto_accept: true });
    minion = cluster.startMinion('tfd');
    await minion.waitForOutput(/ready to receive requests/);
  });
  after(() => cluster.cleanup());

  it("log.* from brine run and from an SLS a job worker renders reach the minion daemon's log", async () => {
    const r = await cluster.brine(['run', 'tfd', 'log.warning', 'from the operator', '--out', 'json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { tfd: true });
    await minion.waitForOutput(/WARNING.*from the operator/);
    const s = await cluster.brine(['run', 'tfd', 'state.apply', 'logged', '--out', 'json']);
    assert.equal(s.code, 0, s.stderr + s.stdout);
    assert.match(s.stdout, /"name": "c"/);
    await minion.waitForOutput(/WARNING.*sls rendered for tfd/);
  });
});
