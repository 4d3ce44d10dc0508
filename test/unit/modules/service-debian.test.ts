// Issue 22: service.* on a Debian host not booted with systemd is Salt's debian_service: a real
// init script in /etc/init.d, started, stopped and queried by the real `service`, enabled and
// disabled by the real `update-rc.d` (init-system-helpers), answers as Salt's functions answer.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createServiceFunctions, ModuleRegistry } from '../../../src/modules/index.js';
import { selectServiceBackend, systemdOffline } from '../../../src/modules/service-backend.js';
import { makeCtx } from './context.js';
import { installInitScript, type InitScript } from './init-script-fixture.js';

const NO_SYSTEMD = '/nonexistent/brine/systemd';
const registry = (initRoot?: string): ModuleRegistry => {
  const r = new ModuleRegistry();
  r.registerAll(createServiceFunctions({ systemdMarker: NO_SYSTEMD, systemctl: '/nonexistent/systemctl', ...(initRoot ? { initRoot } : {}) }));
  return r;
};

describe('service backend selection (Salt’s __virtual__s)', () => {
  it('systemd when booted with it, debian_service for the Debian family without it, nothing for the rest', () => {
    assert.deepEqual(selectServiceBackend({ grains: { os: 'Debian' }, booted: true }), { kind: 'systemd' });
    assert.deepEqual(selectServiceBackend({ grains: { os: 'CentOS' }, booted: true }), { kind: 'systemd' });
    for (const os of ['Debian', 'Raspbian', 'Devuan', 'NILinuxRT']) assert.deepEqual(selectServiceBackend({ grains: { os }, booted: false }), { kind: 'debian' }, os);
    // Ubuntu is upstart_service in Salt, not debian_service
    assert.equal(selectServiceBackend({ grains: { os: 'Ubuntu' }, booted: false }).kind, 'unsupported');
    // any other Linux with sysvinit (or no init grain) is Salt's linux_service (service-initd.test.ts)
    assert.deepEqual(selectServiceBackend({ grains: {}, booted: false }), { kind: 'sysv' });
  });

  it('offline (salt.utils.systemd.offline): not booted and systemctl installed, on Linux', () => {
    assert.equal(systemdOffline({ grains: { kernel: 'Linux' }, booted: false, systemctlInstalled: true }), true);
    assert.equal(systemdOffline({ grains: { kernel: 'Linux' }, booted: true, systemctlInstalled: true }), false);
    assert.equal(systemdOffline({ grains: { kernel: 'Linux' }, booted: false, systemctlInstalled: false }), false);
    assert.equal(systemdOffline({ grains: { kernel: 'FreeBSD' }, booted: false, systemctlInstalled: true }), false);
  });

  it('service.offline follows where systemctl is found', async () => {
    const on = new ModuleRegistry();
    on.registerAll(createServiceFunctions({ systemdMarker: NO_SYSTEMD, systemctl: '/bin/sh' }));
    assert.equal((await on.call('service.offline', [], {}, makeCtx())).return, true);
    assert.equal((await registry().call('service.offline', [], {}, makeCtx())).return, false);
  });
});

describe('debian_service listing (a temp /etc)', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-etc-'));
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  before(() => {
    for (const d of ['init.d', 'rc2.d', 'rcS.d', 'rc3.d']) fs.mkdirSync(path.join(root, 'etc', d), { recursive: true });
    for (const s of ['apache2', 'cron', 'procps', 'README', '.hidden', 'php8.2-fpm']) fs.writeFileSync(path.join(root, 'etc', 'init.d', s), '');
    for (const [d, l] of [
      ['rc2.d', 'S01apache2'],
      ['rc2.d', 'K01cron'],
      ['rcS.d', 'S02procps'],
      ['rc3.d', 'S01cron'],
      ['rc2.d', 'S03php8.2-fpm'],
      // a link whose script is gone still counts as a service, as in Salt's get_all
      ['rc2.d', 'S01orphan'],
    ] as const)
      fs.symlinkSync('../init.d/x', path.join(root, 'etc', d, l));
  });

  it('get_enabled: S links of rcS.d and rc2.d (runlevel says unknown in a container: 2); get_all adds init.d but README and dot files', async () => {
    const r = registry(root);
    const call = async (fun: string, arg: unknown[] = []) => (await r.call(fun, arg, {}, makeCtx())).return;
    assert.deepEqual(await call('service.get_enabled'), ['apache2', 'orphan', 'php8.2-fpm', 'procps']);
    assert.deepEqual(await call('service.get_all'), ['apache2', 'cron', 'orphan', 'php8.2-fpm', 'procps']);
    assert.deepEqual(await call('service.get_disabled'), ['cron']);
    assert.equal(await call('service.enabled', ['apache2']), true);
    assert.equal(await call('service.enabled', ['cron']), false, 'an rc3.d link is another runlevel');
    assert.equal(await call('service.disabled', ['cron']), true);
    assert.equal(await call('service.available', ['README']), false);
    assert.equal(await call('service.available', ['orphan']), true);
    assert.equal(await call('service.missing', ['ghost']), true);
  });

  it('names that a program would read as an option are BAD_ARGUMENTS', async () => {
    for (const name of ['--all', 'a b', 'x;reboot']) {
      const res = await registry(root).call('service.start', [name], {}, makeCtx());
      assert.equal(res.error?.code, 'BAD_ARGUMENTS', name);
    }
  });
});

describe('debian_service with a real init script, service and update-rc.d', () => {
  let svc: InitScript;
  before(() => {
    svc = installInitScript();
  });
  after(() => svc.remove());
  const r = registry();
  const call = async (fun: string, arg: unknown[] = []) => {
    const res = await r.call(fun, arg, {}, makeCtx());
    assert.equal(res.error, undefined, `${fun}: ${res.error?.message}`);
    return res.return;
  };

  it('available, status, start, restart, reload, stop: true/false from the script’s exit code', async () => {
    assert.equal(await call('service.available', [svc.name]), true);
    assert.equal(await call('service.status', [svc.name]), false);
    assert.equal(await call('service.reload', [svc.name]), false, 'the script refuses reload while stopped (exit 7): false, not an error');
    assert.equal(await call('service.start', [svc.name]), true);
    const first = svc.pid();
    assert.ok(first !== undefined, 'the daemon runs');
    assert.equal(await call('service.status', [svc.name]), true);
    assert.deepEqual(await call('service.status', [`${svc.name.slice(0, -3)}*`]), { [svc.name]: true }, 'a glob maps each match');
    assert.equal(await call('service.restart', [svc.name]), true);
    assert.notEqual(svc.pid(), first, 'restarted: a new process');
    assert.equal(await call('service.reload', [svc.name]), true);
    assert.equal(await call('service.force_reload', [svc.name]), true);
    // sig looks in ps for the process instead of asking the script
    assert.equal(await call('service.status', [svc.name, svc.sig]), true);
    assert.equal(await call('service.stop', [svc.name]), true);
    assert.equal(svc.pid(), undefined);
    assert.equal(await call('service.status', [svc.name]), false);
    assert.equal(await call('service.status', ['no-such-script-brine', 'no-such-process-brine-[0-9]{9}']), false);
  });

  it('enable writes the S links with update-rc.d; disable turns them into K links', async () => {
    assert.equal(await call('service.enabled', [svc.name]), false);
    assert.equal(await call('service.enable', [svc.name]), true);
    assert.ok(svc.links().includes(`rc2.d/S01${svc.name}`), svc.links().join(' '));
    assert.equal(await call('service.enabled', [svc.name]), true);
    assert.ok(((await call('service.get_enabled')) as string[]).includes(svc.name), 'get_enabled lists it');
    assert.equal(await call('service.disable', [svc.name]), true);
    assert.ok(svc.links().includes(`rc2.d/K01${svc.name}`), svc.links().join(' '));
    assert.equal(await call('service.enabled', [svc.name]), false);
    assert.equal(await call('service.disabled', [svc.name]), true);
  });
});
