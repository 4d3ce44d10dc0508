// Issue 26 point 5: the service states on a Linux host without systemd whose service provider is
// Salt's linux_service (a real init script in a temp etc/init.d, a real daemon): started and
// stopped for real, `enable` answered "Enable is not available on this minion" as Salt's _enable
// answers where the provider has no boot setting; and every service state under test=True on a
// host with no service manager at all answers None (issue 26 point 5).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createServiceFunctions } from '../../../src/modules/index.js';
import { installInitScript, type InitScript } from '../modules/init-script-fixture.js';
import { runState, type CtxOptions } from './state-ctx.js';

const NO_SYSTEMD = '/nonexistent/brine/systemd';

describe('service states with linux_service (a real init script run directly)', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-sysv-states-'));
  const sysv: CtxOptions = {
    override: createServiceFunctions({ systemdMarker: NO_SYSTEMD, systemctl: '/nonexistent/systemctl', initRoot: root }),
    exec: { grains: () => ({ id: 'web1', os: 'Void', kernel: 'Linux', init: 'sysvinit' }) },
  };
  let svc: InitScript;
  before(() => {
    svc = installInitScript({ root, named: true, prefix: 'brine-sysvst' });
  });
  after(() => {
    svc.remove();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('running with enable: True starts the daemon; the boot part is "Enable is not available on this minion"', async () => {
    assert.deepEqual(await runState('service.running', { name: svc.name, enable: true }, { ...sysv, test: true }), {
      name: svc.name,
      result: null,
      changes: {},
      comment: `Service ${svc.name} is set to start`,
    });
    assert.equal(svc.pid(), undefined, 'test=True started nothing');
    assert.deepEqual(await runState('service.running', { name: svc.name, enable: true }, sysv), {
      name: svc.name,
      result: true,
      changes: { [svc.name]: true },
      comment: `Enable is not available on this minion, service ${svc.name} started`,
    });
    assert.ok(svc.pid() !== undefined, 'the daemon runs');
    // enabled is taken as True where the provider cannot say (Salt's default), so nothing to toggle
    assert.deepEqual(await runState('service.running', { name: svc.name, enable: true }, sysv), {
      name: svc.name,
      result: true,
      changes: {},
      comment: `The service ${svc.name} is already running`,
    });
  });

  it('a watch restarts the real process; dead stops it; enabled/disabled say what cannot be done', async () => {
    const before = svc.pid();
    assert.ok(before !== undefined);
    assert.deepEqual(await runState('service.running', { name: svc.name }, { ...sysv, watch: true }), {
      name: svc.name,
      result: true,
      changes: { [svc.name]: true },
      comment: 'Service restarted',
    });
    assert.ok(svc.pid() !== undefined && svc.pid() !== before, 'a new process');
    assert.deepEqual(await runState('service.enabled', { name: svc.name }, sysv), {
      name: svc.name,
      result: true,
      changes: {},
      comment: `Enable is not available on this minion, service ${svc.name} is in the desired state`,
    });
    assert.deepEqual(await runState('service.dead', { name: svc.name, enable: false }, sysv), {
      name: svc.name,
      result: true,
      changes: { [svc.name]: false },
      comment: `Disable is not available on this minion, service ${svc.name} is dead`,
    });
    assert.equal(svc.pid(), undefined, 'stopped');
    assert.deepEqual(await runState('service.disabled', { name: svc.name }, sysv), {
      name: svc.name,
      result: true,
      changes: {},
      comment: `Disable is not available on this minion, service ${svc.name} is in the desired state`,
    });
  });
});

describe('test=True on a host with no service manager: None for every service state', () => {
  const none: CtxOptions = {
    override: createServiceFunctions({ systemdMarker: NO_SYSTEMD, systemctl: '/nonexistent/systemctl' }),
    exec: { grains: () => ({ id: 'web1', os: 'Alpine', kernel: 'Linux', init: 'openrc' }) },
    test: true,
  };
  const would = (name: string, verb: string) => ({ name, result: null, changes: {}, comment: `Service ${name} not present; if created in this state run, it would have been ${verb}` });

  it('running, dead, enabled, disabled and a watch answer None; a real run fails with the coded reason', async () => {
    assert.deepEqual(await runState('service.running', { name: 'nginx', enable: true }, none), would('nginx', 'started'));
    assert.deepEqual(await runState('service.dead', { name: 'nginx' }, none), would('nginx', 'stopped'));
    assert.deepEqual(await runState('service.enabled', { name: 'nginx' }, none), would('nginx', 'enabled'));
    assert.deepEqual(await runState('service.disabled', { name: 'nginx' }, none), would('nginx', 'disabled'));
    assert.deepEqual(await runState('service.running', { name: 'nginx' }, { ...none, watch: true }), { name: 'nginx', result: null, changes: {}, comment: 'Service is set to be started' });
    const real = await runState('service.disabled', { name: 'nginx' }, { ...none, test: false });
    assert.equal(real.result, false);
    assert.match(real.comment, /os grain 'Alpine': the minion is running openrc/);
  });
});
