// Issue 22: service.running/dead/enabled and their mod_watch on a Debian host not booted with
// systemd, through Salt's debian_service (a real init script in /etc/init.d, the real `service`
// and `update-rc.d`), with the comments and changes of Salt 3007's salt/states/service.py; and
// Salt's offline mode when systemctl is installed but systemd is not running.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServiceFunctions } from '../../../src/modules/index.js';
import { installInitScript, type InitScript } from '../modules/init-script-fixture.js';
import { runState, type CtxOptions } from './state-ctx.js';

const NO_SYSTEMD = '/nonexistent/brine/systemd';
// systemctl not installed: debian_service alone answers
const debian: CtxOptions = { override: createServiceFunctions({ systemdMarker: NO_SYSTEMD, systemctl: '/nonexistent/systemctl' }) };
// systemctl installed, systemd not running: Salt's offline mode
const offline: CtxOptions = { override: createServiceFunctions({ systemdMarker: NO_SYSTEMD, systemctl: '/bin/sh' }) };

describe('service states without systemd (debian_service)', () => {
  let svc: InitScript;
  before(() => {
    svc = installInitScript();
  });
  after(() => svc.remove());

  it('a service that is not there: None "not present" with test=True; a real run fails, dead succeeds', async () => {
    const ghost = 'no-such-script-brine';
    assert.deepEqual(await runState('service.running', { name: ghost, enable: true }, { ...debian, test: true }), {
      name: ghost,
      result: null,
      changes: {},
      comment: `Service ${ghost} not present; if created in this state run, it would have been started`,
    });
    assert.deepEqual(await runState('service.running', { name: ghost }, debian), { name: ghost, result: false, changes: {}, comment: `The named service ${ghost} is not available` });
    assert.deepEqual(await runState('service.dead', { name: ghost }, debian), { name: ghost, result: true, changes: {}, comment: '' });
  });

  it('running with enable: test=True changes nothing; a real run starts and links it; then already running', async () => {
    assert.deepEqual(await runState('service.running', { name: svc.name, enable: true }, { ...debian, test: true }), {
      name: svc.name,
      result: null,
      changes: {},
      comment: `Service ${svc.name} is set to start`,
    });
    assert.equal(svc.pid(), undefined, 'test=True started nothing');
    assert.deepEqual(svc.links(), []);
    assert.deepEqual(await runState('service.running', { name: svc.name, enable: true }, debian), {
      name: svc.name,
      result: true,
      changes: { [svc.name]: true },
      comment: `Service ${svc.name} has been enabled, and is running`,
    });
    assert.ok(svc.pid() !== undefined, 'started');
    assert.ok(svc.links().includes(`rc2.d/S01${svc.name}`), svc.links().join(' '));
    assert.deepEqual(await runState('service.running', { name: svc.name, enable: true }, debian), {
      name: svc.name,
      result: true,
      changes: {},
      comment: `The service ${svc.name} is already running`,
    });
  });

  it('sig: the states look for the process in ps instead of asking the script', async () => {
    assert.equal((await runState('service.running', { name: svc.name, sig: svc.sig }, debian)).comment, `The service ${svc.name} is already running`);
    // a process that is not there: Salt starts the service (the script says it runs already),
    // looks again, and reports the failure
    assert.deepEqual(await runState('service.running', { name: svc.name, sig: 'no-such-process-brine-[0-9]{12}' }, debian), {
      name: svc.name,
      result: false,
      changes: {},
      comment: `Service ${svc.name} failed to start`,
    });
  });

  it('mod_watch restarts a running service (a new process), reloads with reload: True', async () => {
    const before = svc.pid();
    assert.ok(before !== undefined);
    assert.deepEqual(await runState('service.running', { name: svc.name }, { ...debian, watch: true, test: true }), {
      name: svc.name,
      result: null,
      changes: {},
      comment: 'Service is set to be restarted',
    });
    assert.equal(svc.pid(), before);
    assert.deepEqual(await runState('service.running', { name: svc.name }, { ...debian, watch: true }), {
      name: svc.name,
      result: true,
      changes: { [svc.name]: true },
      comment: 'Service restarted',
    });
    assert.notEqual(svc.pid(), before);
    assert.deepEqual(await runState('service.running', { name: svc.name, reload: true }, { ...debian, watch: true }), {
      name: svc.name,
      result: true,
      changes: { [svc.name]: true },
      comment: 'Service reloaded',
    });
  });

  it('dead with enable: False stops it and turns its links off; offline mode changes nothing', async () => {
    const pid = svc.pid();
    assert.ok(pid !== undefined);
    // systemctl installed, systemd not running: Salt's states return at once
    for (const fun of ['service.running', 'service.dead']) {
      assert.deepEqual(await runState(fun, { name: svc.name, enable: false }, offline), { name: svc.name, result: true, changes: {}, comment: 'Running in OFFLINE mode. Nothing to do' }, fun);
    }
    assert.equal(svc.pid(), pid, 'offline: still running');
    assert.deepEqual(await runState('service.dead', { name: svc.name, enable: false }, debian), {
      name: svc.name,
      result: true,
      changes: { [svc.name]: true },
      comment: `Service ${svc.name} has been disabled, and is dead`,
    });
    assert.equal(svc.pid(), undefined);
    assert.ok(svc.links().includes(`rc2.d/K01${svc.name}`), svc.links().join(' '));
    assert.deepEqual(await runState('service.dead', { name: svc.name, enable: false }, debian), {
      name: svc.name,
      result: true,
      changes: {},
      comment: `The service ${svc.name} is already dead`,
    });
    // enabled alone: _enable with started None
    assert.deepEqual(await runState('service.enabled', { name: svc.name }, debian), {
      name: svc.name,
      result: true,
      changes: { [svc.name]: true },
      comment: `Service ${svc.name} has been enabled, and is in the desired state`,
    });
    assert.equal(svc.pid(), undefined, 'enabled does not start it');
  });
});
