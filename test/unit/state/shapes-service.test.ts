// Issue 22 (result shapes): service.running/dead/enabled/disabled and their mod_watch return what
// Salt 3007's salt/states/service.py returns, in test and real mode, pinned whole. systemctl is
// the same logging stand-in as in service-states.test.ts (systemd does not run here).

import { after, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createServiceFunctions } from '../../../src/modules/index.js';
import { runState, type CtxOptions } from './state-ctx.js';

// systemd does not run in this test environment (and must not be driven by tests where it does):
// a stand-in systemctl on PATH keeps unit state in files and logs every call.
const SYSTEMCTL = `#!/bin/sh
d="$FAKE_SYSTEMD_DIR"
echo "$*" >> "$d/calls"
verb="$1"; for last; do :; done; u="$last"
known() { grep -qx "$u" "$d/units"; }
case "$verb" in
  show) if known; then echo LoadState=loaded; else echo LoadState=not-found; fi ;;
  is-active) [ -f "$d/active.$u" ] ;;
  is-enabled) if [ -f "$d/enabled.$u" ]; then echo enabled; else echo disabled; exit 1; fi ;;
  start|restart|reload) known || exit 5; [ "$u" = broken ] && { echo "Job for broken.service failed" >&2; exit 1; }; touch "$d/active.$u" ;;
  stop) rm -f "$d/active.$u" ;;
  enable) touch "$d/enabled.$u" ;;
  disable) rm -f "$d/enabled.$u" ;;
esac
`;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-shapes-systemd-'));
fs.mkdirSync(path.join(dir, 'bin'));
fs.writeFileSync(path.join(dir, 'bin', 'systemctl'), SYSTEMCTL, { mode: 0o755 });
const savedPath = process.env.PATH;
process.env.PATH = `${path.join(dir, 'bin')}:${savedPath ?? ''}`;
process.env.FAKE_SYSTEMD_DIR = dir;
after(() => {
  process.env.PATH = savedPath;
  fs.rmSync(dir, { recursive: true, force: true });
});

// The service module believes systemd runs when its marker directory exists: point it here.
const opts = (o: CtxOptions & { watch?: boolean } = {}): CtxOptions & { watch?: boolean } => ({ ...o, override: createServiceFunctions({ systemdMarker: dir }) });
const active = (u: string) => fs.existsSync(path.join(dir, `active.${u}`));
const enabled = (u: string) => fs.existsSync(path.join(dir, `enabled.${u}`));

beforeEach(() => {
  for (const f of fs.readdirSync(dir)) if (f.startsWith('active.') || f.startsWith('enabled.')) fs.rmSync(path.join(dir, f));
  fs.writeFileSync(path.join(dir, 'units'), 'nginx\nbroken\n');
  fs.writeFileSync(path.join(dir, 'calls'), '');
});

// no systemd on an OS without brine's init-script backend (Debian's: service-debian-states.test.ts)
const noSystemd = {
  override: createServiceFunctions({ systemdMarker: path.join(dir, 'no-such-marker'), systemctl: '/nonexistent/systemctl' }),
  exec: { grains: () => ({ id: 'web1', os: 'Gentoo' }) },
};

describe('service.running result shapes (salt/states/service.py running)', () => {
  it('no service manager: test=True is None with Salt\'s "not present" comment; a real run fails saying what is missing', async () => {
    assert.deepEqual(await runState('service.running', { name: 'nginx' }, { ...noSystemd, test: true }), {
      name: 'nginx',
      result: null,
      changes: {},
      comment: 'Service nginx not present; if created in this state run, it would have been started',
    });
    const real = await runState('service.running', { name: 'nginx' }, noSystemd);
    assert.equal(real.result, false);
    assert.match(real.comment, /systemd is not running on this host/);
  });

  it('an unknown service: None "not present" in test mode, False "The named service X is not available" for real', async () => {
    assert.deepEqual(await runState('service.running', { name: 'ghost' }, opts({ test: true })), {
      name: 'ghost',
      result: null,
      changes: {},
      comment: 'Service ghost not present; if created in this state run, it would have been started',
    });
    assert.deepEqual(await runState('service.running', { name: 'ghost' }, opts()), { name: 'ghost', result: false, changes: {}, comment: 'The named service ghost is not available' });
  });

  it('stopped: test None, no changes; real {name: True} "Started service X"; with enable the _enable comment replaces it', async () => {
    assert.deepEqual(await runState('service.running', { name: 'nginx' }, opts({ test: true })), { name: 'nginx', result: null, changes: {}, comment: 'Service nginx is set to start' });
    assert.deepEqual(await runState('service.running', { name: 'nginx' }, opts()), { name: 'nginx', result: true, changes: { nginx: true }, comment: 'Started service nginx' });
    assert.ok(active('nginx'));
    fs.rmSync(path.join(dir, 'active.nginx'));
    fs.writeFileSync(path.join(dir, 'enabled.nginx'), '');
    assert.deepEqual(await runState('service.running', { name: 'nginx', enable: true }, opts()), {
      name: 'nginx',
      result: true,
      changes: { nginx: true },
      comment: 'Service nginx is already enabled, and is running',
    });
  });

  it('running but not enabled, enable: True: test "set to be enabled" without changes; real "has been enabled, and is in the desired state"', async () => {
    fs.writeFileSync(path.join(dir, 'active.nginx'), '');
    assert.deepEqual(await runState('service.running', { name: 'nginx', enable: true }, opts({ test: true })), {
      name: 'nginx',
      result: null,
      changes: {},
      comment: 'Service nginx set to be enabled',
    });
    assert.deepEqual(await runState('service.running', { name: 'nginx', enable: true }, opts()), {
      name: 'nginx',
      result: true,
      changes: { nginx: true },
      comment: 'Service nginx has been enabled, and is in the desired state',
    });
    assert.ok(enabled('nginx'));
    assert.deepEqual(await runState('service.running', { name: 'nginx', enable: true }, opts()), { name: 'nginx', result: true, changes: {}, comment: 'The service nginx is already running' });
  });
});

describe('service.dead and mod_watch result shapes (salt/states/service.py dead, mod_watch)', () => {
  it('dead: a stop records the new status {name: False}; test None without changes; a missing service is True with no comment', async () => {
    fs.writeFileSync(path.join(dir, 'active.nginx'), '');
    assert.deepEqual(await runState('service.dead', { name: 'nginx' }, opts({ test: true })), { name: 'nginx', result: null, changes: {}, comment: 'Service nginx is set to be killed' });
    assert.deepEqual(await runState('service.dead', { name: 'nginx' }, opts()), { name: 'nginx', result: true, changes: { nginx: false }, comment: 'Service nginx was killed' });
    assert.deepEqual(await runState('service.dead', { name: 'nginx' }, opts()), { name: 'nginx', result: true, changes: {}, comment: 'The service nginx is already dead' });
    assert.deepEqual(await runState('service.dead', { name: 'ghost' }, opts()), { name: 'ghost', result: true, changes: {}, comment: '' });
    assert.deepEqual(await runState('service.dead', { name: 'ghost' }, opts({ test: true })), {
      name: 'ghost',
      result: null,
      changes: {},
      comment: 'Service ghost not present; if created in this state run, it would have been stopped',
    });
  });

  it('mod_watch of service.dead stops a running service ("Service stopped") and leaves a stopped one', async () => {
    fs.writeFileSync(path.join(dir, 'active.nginx'), '');
    assert.deepEqual(await runState('service.dead', { name: 'nginx' }, opts({ watch: true })), { name: 'nginx', result: true, changes: { nginx: true }, comment: 'Service stopped' });
    assert.deepEqual(await runState('service.dead', { name: 'nginx' }, opts({ watch: true })), { name: 'nginx', result: true, changes: {}, comment: 'Service is already stopped' });
  });

  it('mod_watch with test=True where no service manager runs or the unit is unknown: Salt asks only service.status (REMnux clamav-daemon watching its pkg)', async () => {
    for (const [o, name] of [
      [noSystemd, 'nginx'],
      [opts(), 'ghost'],
    ] as const) {
      assert.deepEqual(await runState('service.dead', { name }, { ...o, test: true, watch: true }), { name, result: true, changes: {}, comment: 'Service is already stopped' });
      assert.deepEqual(await runState('service.running', { name }, { ...o, test: true, watch: true }), { name, result: null, changes: {}, comment: 'Service is set to be started' });
    }
    // a real watch still fails saying what is missing
    const real = await runState('service.running', { name: 'nginx' }, { ...noSystemd, watch: true });
    assert.equal(real.result, false);
    assert.match(real.comment, /systemd is not running on this host/);
    assert.equal((await runState('service.dead', { name: 'ghost' }, opts({ watch: true }))).comment, 'The named service ghost is not available');
  });

  it('service.enabled on a missing service in test mode: None with the "would have been enabled" comment', async () => {
    assert.deepEqual(await runState('service.enabled', { name: 'ghost' }, opts({ test: true })), {
      name: 'ghost',
      result: null,
      changes: {},
      comment: 'Service ghost not present; if created in this state run, it would have been enabled',
    });
    assert.deepEqual(await runState('service.disabled', { name: 'ghost' }, opts()), { name: 'ghost', result: true, changes: {}, comment: 'The named service ghost is not available' });
  });
});
