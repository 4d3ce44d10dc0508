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

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-fakesystemd-'));
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
const calls = () => fs.readFileSync(path.join(dir, 'calls'), 'utf8').trim().split('\n');

beforeEach(() => {
  for (const f of fs.readdirSync(dir)) if (f.startsWith('active.') || f.startsWith('enabled.')) fs.rmSync(path.join(dir, f));
  fs.writeFileSync(path.join(dir, 'units'), 'nginx\nbroken\n');
  fs.writeFileSync(path.join(dir, 'calls'), '');
});

describe('service.running', () => {
  it('starts and enables a stopped service, with {name: True}; then reports it running and enabled', async () => {
    const dry = await runState('service.running', { name: 'nginx', enable: true }, opts({ test: true }));
    // salt/states/service.py running: the test report carries no changes
    assert.deepEqual(dry, { name: 'nginx', result: null, changes: {}, comment: 'Service nginx is set to start' });
    assert.equal(active('nginx'), false);
    const r = await runState('service.running', { name: 'nginx', enable: true }, opts());
    assert.deepEqual(r, { name: 'nginx', result: true, changes: { nginx: true }, comment: 'Service nginx has been enabled, and is running' });
    assert.ok(active('nginx') && enabled('nginx'));
    const again = await runState('service.running', { name: 'nginx', enable: true }, opts());
    // already running and enabled: Salt does not consult _enable at all
    assert.deepEqual(again, { name: 'nginx', result: true, changes: {}, comment: 'The service nginx is already running' });
    assert.deepEqual((await runState('service.running', { name: 'nginx' }, opts())).comment, 'The service nginx is already running');
  });

  it('init_delay waits before checking, and says so', async () => {
    const t0 = Date.now();
    const r = await runState('service.running', { name: 'nginx', init_delay: 0.2 }, opts());
    assert.ok(Date.now() - t0 >= 200, 'waited init_delay');
    assert.equal(r.comment, 'Started service nginx\nDelayed return for 0.2 seconds');
    const again = await runState('service.running', { name: 'nginx', init_delay: 5 }, opts());
    assert.equal(again.comment, 'The service nginx is already running', 'no wait when nothing started');
  });

  it('a service that fails to start, or does not exist, fails the state', async () => {
    const r = await runState('service.running', { name: 'broken' }, opts());
    assert.equal(r.result, false);
    // Salt's service.start raises with systemctl's message, which is the whole comment
    assert.match(r.comment, /Job for broken\.service failed/);
    const m = await runState('service.running', { name: 'ghost' }, opts());
    assert.deepEqual(m, { name: 'ghost', result: false, changes: {}, comment: 'The named service ghost is not available' });
  });

  it('mod_watch restarts a running service, reloads with reload: True, stops+starts with full_restart, starts a stopped one', async () => {
    fs.writeFileSync(path.join(dir, 'active.nginx'), '');
    const restart = await runState('service.running', { name: 'nginx' }, opts({ watch: true }));
    assert.deepEqual(restart, { name: 'nginx', result: true, changes: { nginx: true }, comment: 'Service restarted' });
    const reload = await runState('service.running', { name: 'nginx', reload: true }, opts({ watch: true }));
    assert.equal(reload.comment, 'Service reloaded');
    const full = await runState('service.running', { name: 'nginx', full_restart: true }, opts({ watch: true }));
    assert.equal(full.comment, 'Service fully restarted');
    assert.deepEqual(
      calls().filter((c) => /^(restart|reload|stop|start)/.test(c)),
      ['restart -- nginx', 'reload -- nginx', 'stop -- nginx', 'start -- nginx'],
    );
    fs.rmSync(path.join(dir, 'active.nginx'));
    const start = await runState('service.running', { name: 'nginx' }, opts({ watch: true }));
    assert.equal(start.comment, 'Service started');
    const dry = await runState('service.running', { name: 'nginx' }, opts({ watch: true, test: true }));
    assert.deepEqual(dry, { name: 'nginx', result: null, changes: {}, comment: 'Service is set to be restarted' });
  });
});

describe('service.dead / enabled / disabled', () => {
  it('stops and disables; idempotent; a missing service is already dead', async () => {
    fs.writeFileSync(path.join(dir, 'active.nginx'), '');
    fs.writeFileSync(path.join(dir, 'enabled.nginx'), '');
    const r = await runState('service.dead', { name: 'nginx', enable: false }, opts());
    assert.deepEqual(r, { name: 'nginx', result: true, changes: { nginx: true }, comment: 'Service nginx has been disabled, and is dead' });
    assert.ok(!active('nginx') && !enabled('nginx'));
    assert.deepEqual((await runState('service.dead', { name: 'nginx', enable: false }, opts())).changes, {});
    assert.equal((await runState('service.dead', { name: 'ghost' }, opts())).result, true);
  });

  it('enabled/disabled change only the boot setting', async () => {
    const dry = await runState('service.enabled', { name: 'nginx' }, opts({ test: true }));
    assert.deepEqual(dry, { name: 'nginx', result: null, changes: {}, comment: 'Service nginx set to be enabled' });
    assert.equal(enabled('nginx'), false);
    const r = await runState('service.enabled', { name: 'nginx' }, opts());
    assert.deepEqual(r, { name: 'nginx', result: true, changes: { nginx: true }, comment: 'Service nginx has been enabled, and is in the desired state' });
    assert.ok(enabled('nginx') && !active('nginx'), 'not started');
    assert.equal((await runState('service.enabled', { name: 'nginx' }, opts())).comment, 'Service nginx is already enabled, and is in the desired state');
    const d = await runState('service.disabled', { name: 'nginx' }, opts());
    assert.deepEqual(d.changes, { nginx: true });
    assert.equal(enabled('nginx'), false);
  });

  it('without systemd every service state fails with the module’s explanation', async () => {
    const r = await runState(
      'service.running',
      { name: 'nginx' },
      { override: createServiceFunctions({ systemdMarker: path.join(dir, 'no-such-marker'), systemctl: '/nonexistent/systemctl' }), exec: { grains: () => ({ id: 'web1', os: 'Gentoo' }) } },
    );
    assert.equal(r.result, false);
    assert.match(r.comment, /systemd is not running on this host/);
  });
});
