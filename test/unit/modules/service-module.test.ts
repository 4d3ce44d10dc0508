import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDefaultRegistry, createServiceFunctions, ModuleRegistry } from '../../../src/modules/index.js';
import { makeCtx } from './context.js';

const registry = createDefaultRegistry();
const run = (fun: string, arg: unknown[], kwarg: Record<string, unknown> = {}) => registry.call(fun, arg, kwarg, makeCtx());
const systemdRuns = fs.existsSync('/run/systemd/system');
const FUNCTIONS = ['service.start', 'service.stop', 'service.restart', 'service.status', 'service.enable', 'service.disable', 'service.available'];

describe('service without systemd', () => {
  it('on an OS whose init Salt has no fallback for, every function returns a coded error saying what to do', async () => {
    // A marker that never exists stands for a host without systemd, whatever this host runs;
    // Debian's family has the init-script backend (service-debian.test.ts), Gentoo here has none.
    const r = new ModuleRegistry();
    r.registerAll(createServiceFunctions({ systemdMarker: '/nonexistent/brine/systemd' }));
    for (const fun of FUNCTIONS) {
      const res = await r.call(fun, ['cron'], {}, makeCtx({ grainsData: { id: 'web1', os: 'Gentoo' } }));
      assert.equal(res.error?.code, 'SERVICE_MANAGER_UNSUPPORTED', fun);
      assert.match(String(res.error?.message), new RegExp(`^${fun.replace('.', '\\.')}: systemd is not running on this host .*os grain 'Gentoo'.*manage the process with cmd\\.run`), fun);
    }
  });

  it('the real registry on this Debian host answers from /etc/init.d', async (t) => {
    if (systemdRuns) {
      t.skip('systemd runs here; see the next test');
      return;
    }
    const scripts = fs.readdirSync('/etc/init.d').filter((f) => !f.startsWith('.') && f !== 'README');
    const some = scripts[0];
    if (some !== undefined) assert.equal((await run('service.available', [some])).return, true, some);
    assert.equal((await run('service.available', ['no-such-script-brine'])).return, false);
    assert.equal((await run('service.missing', ['no-such-script-brine'])).return, true);
    // `service <name> status` of a script that is not there exits non-zero: not running
    assert.equal((await run('service.status', ['no-such-script-brine'])).return, false);
  });
});

describe('service with systemd', () => {
  it('available and status of a real unit; a missing unit is unavailable and cannot start', async (t) => {
    if (!systemdRuns) {
      t.skip('systemd is not running on this host (/run/systemd/system is missing)');
      return;
    }
    assert.equal((await run('service.available', ['systemd-journald'])).return, true);
    assert.equal((await run('service.status', ['systemd-journald'])).return, true);
    assert.equal((await run('service.available', ['no-such-unit-brine'])).return, false);
    assert.equal((await run('service.status', ['no-such-unit-brine'])).return, false);
    const start = await run('service.start', ['no-such-unit-brine']);
    assert.equal(start.error?.code, 'EXEC_FAILED');
    assert.match(String(start.error?.message), /no such service 'no-such-unit-brine'/);
  });
});

describe('service arguments', () => {
  it('names that would be read as options or carry shell syntax are BAD_ARGUMENTS', async () => {
    const r = new ModuleRegistry();
    // Validation happens before systemctl runs, so pretend systemd runs (the root dir exists).
    r.registerAll(createServiceFunctions({ systemdMarker: '/' }));
    for (const name of ['--all', 'nginx; reboot', '$(id)', 'a b']) {
      const res = await r.call('service.start', [name], {}, makeCtx());
      assert.equal(res.error?.code, 'BAD_ARGUMENTS', name);
    }
    assert.equal((await r.call('service.start', ['ngin*'], {}, makeCtx())).error?.code, 'BAD_ARGUMENTS', 'a glob is only for status');
  });
});

describe('service.systemctl_reload (os-autoinst trees call it through module.run, issue 22)', () => {
  it("runs `systemctl --system daemon-reload` under systemd and carries systemctl's output when it fails; without systemd it says so", async (t) => {
    const dir = fs.mkdtempSync(`${os.tmpdir()}/brine-systemctl-`);
    const savedPath = process.env.PATH;
    t.after(() => {
      process.env.PATH = savedPath;
      fs.rmSync(dir, { recursive: true, force: true });
    });
    // a stand-in systemctl that records its argv and fails when asked to
    fs.writeFileSync(path.join(dir, 'systemctl'), `#!/bin/sh\necho "$@" >> "${dir}/argv"\nif [ -e "${dir}/fail" ]; then echo "Failed to reload daemon: Access denied"; exit 1; fi\n`, { mode: 0o755 });
    process.env.PATH = `${dir}:${savedPath}`;
    const booted = new ModuleRegistry();
    booted.registerAll(createServiceFunctions({ systemdMarker: '/' }));
    assert.equal((await booted.call('service.systemctl_reload', [], {}, makeCtx())).return, true);
    assert.equal(fs.readFileSync(path.join(dir, 'argv'), 'utf8'), '--system daemon-reload\n');
    fs.writeFileSync(path.join(dir, 'fail'), '');
    const failed = await booted.call('service.systemctl_reload', [], {}, makeCtx());
    assert.equal(failed.error?.code, 'EXEC_FAILED');
    assert.match(String(failed.error?.message), /Problem performing systemctl daemon-reload: Failed to reload daemon: Access denied/);
    const initScripts = new ModuleRegistry();
    initScripts.registerAll(createServiceFunctions({ systemdMarker: '/nonexistent/brine/systemd' }));
    const none = await initScripts.call('service.systemctl_reload', [], {}, makeCtx({ grainsData: { id: 'web1', os: 'Debian', os_family: 'Debian' } }));
    assert.equal(none.error?.code, 'EXEC_FAILED');
    assert.match(String(none.error?.message), /systemd is not running on this host/);
  });
});
