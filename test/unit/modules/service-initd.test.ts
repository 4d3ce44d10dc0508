// Issue 26 point 5: service.* without systemd beyond Debian, as Salt's loader picks it: rh_service
// on Red Hat family releases before systemd (`service` runs the real init script; the boot setting
// through chkconfig or, without it, the S links of /etc/rc.d/rc<level>.d) and linux_service on any
// other Linux (the script in <root>/etc/init.d run directly, status by the daemon's name in ps).
// Each starts a real daemon from a real init script and watches the process.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createServiceFunctions, type Grains, ModuleRegistry } from '../../../src/modules/index.js';
import { selectServiceBackend } from '../../../src/modules/service-backend.js';
import { makeCtx } from './context.js';
import { installInitScript, type InitScript } from './init-script-fixture.js';

const NO_SYSTEMD = '/nonexistent/brine/systemd';

function caller(grainsData: Grains, initRoot?: string) {
  const r = new ModuleRegistry();
  r.registerAll(createServiceFunctions({ systemdMarker: NO_SYSTEMD, systemctl: '/nonexistent/systemctl', ...(initRoot ? { initRoot } : {}) }));
  const raw = (fun: string, arg: unknown[] = []) => r.call(fun, arg, {}, makeCtx({ grainsData }));
  const call = async (fun: string, arg: unknown[] = []) => {
    const res = await raw(fun, arg);
    assert.equal(res.error, undefined, `${fun}: ${res.error?.message}`);
    return res.return;
  };
  return { raw, call };
}

describe('service provider selection without systemd (Salt’s __virtual__s)', () => {
  const pick = (grains: Grains) => selectServiceBackend({ grains, booted: false }).kind;
  it('rh_service for the Red Hat family before systemd, linux_service for another sysvinit Linux, nothing for the rest', () => {
    assert.equal(pick({ os: 'CentOS', osrelease_info: [6, 10] }), 'rh');
    assert.equal(pick({ os: 'Amazon', osrelease_info: [2018, 3] }), 'rh', 'Amazon Linux has no release cut-off in rh_service');
    assert.equal(pick({ os: 'Fedora', osrelease_info: [14] }), 'rh');
    assert.equal(pick({ os: 'SUSE', osrelease: '11.4' }), 'rh');
    assert.equal(pick({ os: 'CentOS', osrelease_info: [7, 9] }), 'unsupported', 'CentOS 7 uses systemd');
    assert.equal(pick({ os: 'Fedora', osrelease_info: [39] }), 'unsupported');
    assert.equal(pick({ os: 'SUSE', osrelease: '15.5' }), 'unsupported');
    assert.equal(pick({ os: 'Void', kernel: 'Linux', init: 'sysvinit' }), 'sysv');
    assert.equal(pick({ os: 'Buildroot', kernel: 'Linux' }), 'sysv', 'no init grain: linux_service loads, as with init None');
    assert.equal(pick({ os: 'Alpine', kernel: 'Linux', init: 'openrc' }), 'unsupported');
    assert.equal(pick({ os: 'FreeBSD', kernel: 'FreeBSD' }), 'unsupported');
    // Ubuntu and Gentoo have their own modules in Salt (upstart_service, gentoo_service)
    assert.equal(pick({ os: 'Ubuntu', kernel: 'Linux' }), 'unsupported');
    assert.equal(pick({ os: 'Gentoo', kernel: 'Linux' }), 'unsupported');
    assert.deepEqual(selectServiceBackend({ grains: { os: 'CentOS', osrelease_info: [6] }, booted: true }), { kind: 'systemd' });
  });

  it('an unsupported host names its os and the reason in a coded error', async () => {
    const res = await caller({ os: 'Alpine', kernel: 'Linux', init: 'openrc' }).raw('service.start', ['nginx']);
    assert.equal(res.error?.code, 'SERVICE_MANAGER_UNSUPPORTED');
    assert.match(res.error?.message ?? '', /os grain 'Alpine': the minion is running openrc/);
  });
});

describe('linux_service: a real init script in a temp etc/init.d, run directly', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-sysv-'));
  const grains = { os: 'Void', kernel: 'Linux', init: 'sysvinit' };
  let svc: InitScript;
  before(() => {
    svc = installInitScript({ root, named: true, prefix: 'brine-sysv' });
  });
  after(() => {
    svc.remove();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('start, status (the daemon’s pids by name), restart, reload, stop act on the real process', async () => {
    const { call } = caller(grains, root);
    assert.deepEqual(await call('service.get_all'), [svc.name]);
    assert.equal(await call('service.available', [svc.name]), true);
    assert.equal(await call('service.missing', ['ghost']), true);
    assert.equal(await call('service.status', [svc.name]), '', 'not running: status.pid finds nothing');
    assert.equal(await call('service.reload', [svc.name]), false, 'the script refuses reload while stopped');
    assert.equal(await call('service.start', [svc.name]), true);
    const first = svc.pid();
    assert.ok(first !== undefined, 'the daemon runs');
    assert.equal(await call('service.status', [svc.name]), String(first), 'status is the pid, as status.pid answers');
    assert.deepEqual(await call('service.status', ['brine-sysv-*']), { [svc.name]: String(first) }, 'a glob maps each script');
    assert.equal(await call('service.status', ['ghost', svc.sig]), String(first), 'sig is looked for instead of the name');
    assert.equal(await call('service.restart', [svc.name]), true);
    const second = svc.pid();
    assert.ok(second !== undefined && second !== first, 'restarted: a new process');
    assert.equal(await call('service.reload', [svc.name]), true);
    assert.equal(await call('service.stop', [svc.name]), true);
    assert.equal(svc.pid(), undefined);
    assert.equal(await call('service.status', [svc.name]), '');
    assert.equal(await call('service.status', ['ghost', svc.sig]), '', 'no process left under that command line');
    assert.equal(await call('service.start', ['ghost']), false, 'a script that is not there: false, as cmd.retcode makes it');
  });

  it('no boot setting: enable, enabled, get_enabled are SERVICE_FUNCTION_UNAVAILABLE; a path for a name is BAD_ARGUMENTS', async () => {
    const { raw } = caller(grains, root);
    for (const [fun, arg] of [
      ['service.enable', [svc.name]],
      ['service.enabled', [svc.name]],
      ['service.disable', [svc.name]],
      ['service.get_enabled', []],
    ] as const) {
      const res = await raw(fun, [...arg]);
      assert.equal(res.error?.code, 'SERVICE_FUNCTION_UNAVAILABLE', fun);
      assert.match(res.error?.message ?? '', /linux_service/);
    }
    for (const bad of ['..', '../../bin/sh', '-x']) assert.equal((await raw('service.start', [bad])).error?.code, 'BAD_ARGUMENTS', bad);
  });
});

// chkconfig is not packaged for Debian: a stand-in that keeps chkconfig's own --list format and
// writes the S/K links of <root>/etc/rc.d/rc<0-6>.d as chkconfig does (on: 2345, off: none).
const CHKCONFIG = `#!/bin/sh
rc="$BRINE_RH_ROOT/etc/rc.d"
known() { [ -f "$rc/known.$1" ]; }
list() { printf '%s' "$1"; for l in 0 1 2 3 4 5 6; do if ls "$rc/rc$l.d/S"??"$1" >/dev/null 2>&1; then printf '\\t%s:on' $l; else printf '\\t%s:off' $l; fi; done; echo; }
case "$1" in
  --list) if [ -n "$2" ]; then known "$2" || { echo "service $2 does not support chkconfig" >&2; exit 1; }; list "$2"; else for f in "$rc"/known.*; do [ -f "$f" ] && list "\${f##*/known.}"; done; fi ;;
  --add) [ -x "$BRINE_RH_ROOT/etc/init.d/$2" ] || exit 1; touch "$rc/known.$2"; for l in 0 1 2 3 4 5 6; do mkdir -p "$rc/rc$l.d"; ln -sf "../init.d/$2" "$rc/rc$l.d/K50$2"; done ;;
  *) known "$1" || exit 1; for l in 2 3 4 5; do rm -f "$rc/rc$l.d/"[SK]50"$1"; if [ "$2" = on ]; then p=S50; else p=K50; fi; ln -sf "../init.d/$1" "$rc/rc$l.d/$p$1"; done ;;
esac
`;

describe('rh_service: the real `service` and a real init script; chkconfig for the boot setting', () => {
  const grains = { os: 'CentOS', osrelease_info: [6, 10] };
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-rh-'));
  const bin = path.join(root, 'bin');
  const savedPath = process.env.PATH;
  // the links point into rc.d/init.d as on Red Hat: look at the link, not its target
  const linked = (rel: string): boolean => fs.lstatSync(path.join(root, 'etc', 'rc.d', rel), { throwIfNoEntry: false }) !== undefined;
  let svc: InitScript;
  before(() => {
    // `service` runs /etc/init.d/<name>: the script goes there; the temp root holds the rc.d tree
    svc = installInitScript({ prefix: 'brine-rh' });
    fs.mkdirSync(path.join(root, 'etc', 'init.d'), { recursive: true });
    fs.symlinkSync(path.join('/etc/init.d', svc.name), path.join(root, 'etc', 'init.d', svc.name));
    fs.mkdirSync(bin);
  });
  after(() => {
    process.env.PATH = savedPath;
    delete process.env.BRINE_RH_ROOT;
    svc.remove();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('start, status, restart, reload, stop through `service`; status by sig', async () => {
    const { call } = caller(grains, root);
    assert.equal(await call('service.available', [svc.name]), true, 'an executable script in init.d');
    assert.equal(await call('service.available', ['ghost']), false);
    assert.equal(await call('service.status', [svc.name]), false);
    assert.equal(await call('service.start', [svc.name]), true);
    const first = svc.pid();
    assert.ok(first !== undefined);
    assert.equal(await call('service.status', [svc.name]), true);
    assert.equal(await call('service.status', ['ghost', svc.sig]), true);
    assert.equal(await call('service.restart', [svc.name]), true);
    assert.notEqual(svc.pid(), first);
    assert.equal(await call('service.reload', [svc.name]), true);
    assert.equal(await call('service.stop', [svc.name]), true);
    assert.equal(svc.pid(), undefined);
    assert.equal(await call('service.status', [svc.name]), false);
  });

  it('without chkconfig: enabled reads rc.d/rc3.d (runlevel unknown: 3), enable is false as Salt’s failed chkconfig --add', async () => {
    process.env.PATH = savedPath;
    const { call } = caller(grains, root);
    assert.equal(await call('service.enabled', [svc.name]), false);
    fs.mkdirSync(path.join(root, 'etc', 'rc.d', 'rc3.d'), { recursive: true });
    fs.symlinkSync(`../init.d/${svc.name}`, path.join(root, 'etc', 'rc.d', 'rc3.d', `S85${svc.name}`));
    assert.equal(await call('service.enabled', [svc.name]), true);
    assert.equal(await call('service.disabled', [svc.name]), false);
    fs.rmSync(path.join(root, 'etc', 'rc.d'), { recursive: true });
    assert.equal(await call('service.enable', [svc.name]), false);
    assert.deepEqual(await call('service.get_all'), [], 'get_all is what chkconfig --list lists');
  });

  it('with chkconfig: enable adds the script then turns it on, disable off; get_enabled and get_disabled follow', async () => {
    fs.writeFileSync(path.join(bin, 'chkconfig'), CHKCONFIG, { mode: 0o755 });
    fs.mkdirSync(path.join(root, 'etc', 'rc.d'), { recursive: true });
    process.env.PATH = `${bin}:${savedPath ?? ''}`;
    process.env.BRINE_RH_ROOT = root;
    const { call } = caller(grains, root);
    assert.equal(await call('service.enabled', [svc.name]), false);
    assert.equal(await call('service.enable', [svc.name]), true);
    assert.ok(linked(`rc3.d/S50${svc.name}`), 'the rc3.d start link');
    assert.equal(await call('service.enabled', [svc.name]), true);
    assert.deepEqual(await call('service.get_all'), [svc.name]);
    assert.deepEqual(await call('service.get_enabled'), [svc.name]);
    assert.equal(await call('service.disable', [svc.name]), true);
    assert.ok(linked(`rc3.d/K50${svc.name}`), 'the rc3.d kill link');
    assert.ok(!linked(`rc3.d/S50${svc.name}`), 'the start link is gone');
    assert.equal(await call('service.enabled', [svc.name]), false);
    assert.deepEqual(await call('service.get_disabled'), [svc.name]);
  });
});
