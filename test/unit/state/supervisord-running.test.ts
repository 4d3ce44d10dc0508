// supervisord.running against a real supervisord (Debian package supervisor) started by this test
// on a temp configuration and unix socket, driven through the real supervisorctl (conf_file).
// Comments and changes are Salt 3007's salt/states/supervisord.py running and mod_watch; the status
// parse is salt/modules/supervisord.py status. The daemon is shut down after the tests.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { supervisordDead, supervisordRunning } from '../../../src/state/modules/supervisord-running.js';
import type { StateContext } from '../../../src/state/index.js';
import { runState, tempDir } from './file-fixture.js';

let dir: string;
let conf: string;
const hasSupervisor = fs.existsSync('/usr/bin/supervisord') && fs.existsSync('/usr/bin/supervisorctl');
// supervisorctl status exits 3 while a program is stopped: read its output whatever the code
const ctlStatus = () => spawnSync('supervisorctl', ['-c', conf, 'status'], { encoding: 'utf8' }).stdout.trim();

before(() => {
  dir = tempDir('brine-supervisor-');
  conf = path.join(dir, 'supervisord.conf');
  if (!hasSupervisor) return;
  fs.writeFileSync(
    conf,
    [
      '[unix_http_server]',
      `file=${dir}/supervisor.sock`,
      '[supervisord]',
      `logfile=${dir}/supervisord.log`,
      `pidfile=${dir}/supervisord.pid`,
      `childlogdir=${dir}`,
      '[rpcinterface:supervisor]',
      'supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface',
      '[supervisorctl]',
      `serverurl=unix://${dir}/supervisor.sock`,
      '[program:sleeper]',
      'command=sleep 600',
      'autostart=false',
      'startsecs=0',
      '',
    ].join('\n'),
  );
  execFileSync('supervisord', ['-c', conf]);
  // supervisord daemonizes; wait until its socket answers
  for (let i = 0; i < 50 && !/^sleeper\s/.test(ctlStatus()); i++) execFileSync('sleep', ['0.1']);
});
after(() => {
  if (hasSupervisor && fs.existsSync(path.join(dir, 'supervisord.pid'))) {
    const pid = Number(fs.readFileSync(path.join(dir, 'supervisord.pid'), 'utf8'));
    try {
      execFileSync('supervisorctl', ['-c', conf, 'shutdown'], { stdio: 'ignore' });
    } catch {
      process.kill(pid, 'SIGTERM');
    }
    for (let i = 0; i < 50; i++) {
      try {
        process.kill(pid, 0);
        execFileSync('sleep', ['0.1']);
      } catch {
        break;
      }
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('supervisord.running', { skip: !hasSupervisor && 'supervisor is not installed (Debian package supervisor)' }, () => {
  it('test=True on a stopped program: None, would start; nothing started', async () => {
    assert.deepEqual(await runState(supervisordRunning, { name: 'sleeper', conf_file: conf }, { test: true }), {
      name: 'sleeper',
      result: null,
      changes: {},
      comment: 'Service sleeper will be started',
    });
    assert.match(ctlStatus(), /^sleeper\s+STOPPED/);
  });

  it('starts it, then it is already running (real and test)', async () => {
    assert.deepEqual(await runState(supervisordRunning, { name: 'sleeper', conf_file: conf }), {
      name: 'sleeper',
      result: true,
      changes: { sleeper: 'Starting service: sleeper' },
      comment: 'Starting service: sleeper',
    });
    assert.match(ctlStatus(), /^sleeper\s+RUNNING/);
    assert.deepEqual(await runState(supervisordRunning, { name: 'sleeper', conf_file: conf }), {
      name: 'sleeper',
      result: true,
      changes: {},
      comment: 'Not starting already running service: sleeper',
    });
    assert.deepEqual(await runState(supervisordRunning, { name: 'sleeper', conf_file: conf }, { test: true }), {
      name: 'sleeper',
      result: true,
      changes: {},
      comment: 'Service sleeper is already running',
    });
  });

  it('restart: True and mod_watch restart a running program (new pid)', async () => {
    const pid = () => /pid (\d+)/.exec(ctlStatus())?.[1];
    const before = pid();
    assert.deepEqual(await runState(supervisordRunning, { name: 'sleeper', conf_file: conf, restart: true }), {
      name: 'sleeper',
      result: true,
      changes: { sleeper: 'Restarting service: sleeper' },
      comment: 'Restarting service: sleeper',
    });
    assert.notEqual(pid(), before);
    const ctx = { test: false } as StateContext;
    const watched = await supervisordRunning.modWatch!(ctx, { named: { name: 'sleeper', conf_file: conf, restart: false, update: false }, rest: [], extra: {} } as never);
    assert.deepEqual(watched.changes, { sleeper: 'Restarting service: sleeper' });
  });

  it('a program supervisor does not know: test says it will be added; a real run fails with supervisorctl error', async () => {
    assert.deepEqual(await runState(supervisordRunning, { name: 'nope', conf_file: conf }, { test: true }), {
      name: 'nope',
      result: null,
      changes: {},
      comment: 'Service nope will be added and started',
    });
    const r = await runState(supervisordRunning, { name: 'nope', conf_file: conf });
    assert.equal(r.result, false);
    assert.deepEqual(r.changes, {});
    assert.match(r.comment, /ERROR/);
  });
});

describe('supervisord.dead', { skip: !hasSupervisor && 'supervisor is not installed (Debian package supervisor)' }, () => {
  it('test=True, stops a running program, then it is not running; an unknown one does not exist', async () => {
    await runState(supervisordRunning, { name: 'sleeper', conf_file: conf });
    assert.deepEqual(await runState(supervisordDead, { name: 'sleeper', conf_file: conf }, { test: true }), {
      name: 'sleeper',
      result: null,
      changes: {},
      comment: 'Service sleeper is set to be stopped',
    });
    assert.match(ctlStatus(), /^sleeper\s+RUNNING/);
    assert.deepEqual(await runState(supervisordDead, { name: 'sleeper', conf_file: conf }), {
      name: 'sleeper',
      result: true,
      changes: { sleeper: 'Stopping service: sleeper' },
      comment: 'Stopping service: sleeper',
    });
    assert.match(ctlStatus(), /^sleeper\s+STOPPED/);
    assert.deepEqual(await runState(supervisordDead, { name: 'sleeper', conf_file: conf }), { name: 'sleeper', result: true, changes: {}, comment: 'Service sleeper is not running' });
    assert.deepEqual(await runState(supervisordDead, { name: 'nope', conf_file: conf }), { name: 'nope', result: true, changes: {}, comment: "Service nope doesn't exist" });
  });
});

describe('supervisord.running without supervisorctl', () => {
  it('test=True answers as for a new service; a real run fails naming the package', async () => {
    const bin = path.join(dir, 'no-such-supervisorctl');
    assert.deepEqual(await runState(supervisordRunning, { name: 'web', bin_env: bin }, { test: true }), { name: 'web', result: null, changes: {}, comment: 'Service web will be added and started' });
    const r = await runState(supervisordRunning, { name: 'web', bin_env: bin });
    assert.equal(r.result, false);
    assert.match(r.comment, /supervisorctl is not installed on this minion.*pkg\.installed: supervisor/);
  });
});
