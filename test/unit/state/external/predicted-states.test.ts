// The states brine only answers under test=True (selinux, firewalld, network, mysql_grants;
// mysql_user/mysql_database when no server is reachable): Salt's
// argument checks and test answers, and a real run that fails naming what is missing. This
// machine has no SELinux, no firewalld and no MySQL client, which is the case tested; where one
// is present the reason says brine does not drive it yet. Shapes from salt/states/selinux.py
// (mode, boolean, fcontext_policy_present), firewalld.py (_present, _service), network.py
// (managed, routes, system), mysql_user.py, mysql_database.py, mysql_grants.py.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { refineMode } from '../../../../src/state/modules/external/selinux-states.js';
import { runState } from '../state-ctx.js';

const has = (p: string) => spawnSync('sh', ['-c', `command -v ${p}`]).status === 0;
const noSelinux = !fs.existsSync('/sys/fs/selinux');

describe('selinux states', () => {
  it("refines modes as Salt's _refine_mode does", () => {
    assert.deepEqual(['enforcing', 'E', '1', 'on', 'permissive', '0', 'off', 'Disabled', 'bogus'].map(refineMode), [
      'Enforcing',
      'Enforcing',
      'Enforcing',
      'Enforcing',
      'Permissive',
      'Permissive',
      'Permissive',
      'Disabled',
      'unknown',
    ]);
  });

  it('on a kernel without SELinux: disabled is already so; enforcing is predicted, then refused with how to enable it', { skip: noSelinux ? false : 'this kernel has SELinux' }, async () => {
    assert.deepEqual(await runState('selinux.mode', { name: 'disabled' }), { name: 'disabled', result: true, changes: {}, comment: 'SELinux is already in Disabled mode' });
    const t = await runState('selinux.mode', { name: 'enforcing' }, { test: true });
    assert.deepEqual(t, { name: 'enforcing', result: null, changes: { old: 'Disabled', new: 'Enforcing' }, comment: 'SELinux mode is set to be changed to Enforcing' });
    const r = await runState('selinux.mode', { name: 'enforcing' });
    assert.deepEqual(r, {
      name: 'enforcing',
      result: false,
      changes: {},
      comment: 'selinux.mode cannot act on this minion: SELinux is not enabled in this kernel (no /sys/fs/selinux): install selinux-basics and selinux-policy-default, run selinux-activate and reboot',
    });
    assert.equal((await runState('selinux.mode', { name: 'sideways' }, { test: true })).comment, 'sideways is not an accepted mode');
  });

  it('boolean and fcontext_policy_present: test answers, value check, run refused', async () => {
    assert.deepEqual(await runState('selinux.boolean', { name: 'httpd_can_network_connect', value: true }, { test: true }), {
      name: 'httpd_can_network_connect',
      result: null,
      changes: {},
      comment: 'Boolean httpd_can_network_connect is set to be changed to on',
    });
    assert.equal((await runState('selinux.boolean', { name: 'x', value: 'maybe' }, { test: true })).comment, 'maybe is not a valid value for the boolean');
    assert.deepEqual(await runState('selinux.fcontext_policy_present', { name: '/srv/www(/.*)?', sel_type: 'httpd_sys_content_t' }, { test: true }), {
      name: '/srv/www(/.*)?',
      result: null,
      changes: {},
      comment: '',
    });
    const r = await runState('selinux.boolean', { name: 'x', value: 'on' });
    assert.equal(r.result, false);
    assert.match(r.comment, /^selinux\.boolean cannot act on this minion: /);
  });
});

describe('firewalld states', () => {
  it("test=True reports Salt's would-be changes for each list given", async () => {
    const t = await runState('firewalld.present', { name: 'public', services: ['ssh', 'https'], ports: ['8080/tcp'], masquerade: true }, { test: true });
    assert.deepEqual(t, {
      name: 'public',
      result: null,
      changes: { masquerade: 'Masquerading successfully set.', ports: { old: [], new: ['8080/tcp'] }, services: { old: [], new: ['ssh', 'https'] } },
      comment: "Configuration for 'public' will change.",
    });
    const s = await runState('firewalld.service', { name: 'myapp', ports: ['8443/tcp'] }, { test: true });
    assert.deepEqual(s, { name: 'myapp', result: null, changes: { ports: { old: [], new: ['8443/tcp'] } }, comment: "Configuration for 'myapp' will change." });
  });

  it('a real run without firewalld names the package', { skip: has('firewall-cmd') ? 'firewalld is installed here' : false }, async () => {
    const r = await runState('firewalld.present', { name: 'public', services: ['ssh'] });
    assert.equal(r.result, false);
    assert.match(r.comment, /^firewalld\.present cannot act on this minion: firewall-cmd is not installed on this minion \(not on PATH: .*\); install the firewalld package$/);
  });
});

describe('network states', () => {
  it("test=True: Salt's added comments; a real run is refused with what to do instead", async () => {
    const iface = 'brinetest0';
    assert.deepEqual(await runState('network.managed', { name: iface, type: 'eth', proto: 'static', ipaddr: '10.0.0.5' }, { test: true }), {
      name: iface,
      result: null,
      changes: {},
      comment: `Interface ${iface} is set to be added.`,
    });
    assert.equal((await runState('network.routes', { name: iface, routes: [] }, { test: true })).comment, `Interface ${iface} routes are set to be added.`);
    assert.equal((await runState('network.system', { name: 'system', hostname: 'web1' }, { test: true })).comment, 'Global network settings are set to be added.');
    const r = await runState('network.managed', { name: iface, proto: 'dhcp' });
    assert.equal(r.result, false);
    assert.match(r.comment, /^network\.managed cannot act on this minion: brine answers network states only with test=True so far; write \/etc\/network\/interfaces/);
  });
});

describe('mysql states without a server', () => {
  const none = { connection_unix_socket: '/nonexistent/brine-test/mysqld.sock' };
  it("test=True gives Salt's comments for objects to create or remove", async () => {
    assert.deepEqual(await runState('mysql_user.present', { name: 'app', password: 'pw', ...none }, { test: true }), {
      name: 'app',
      result: null,
      changes: {},
      comment: 'User app@localhost is set to be added',
    });
    assert.equal((await runState('mysql_user.absent', { name: 'app', host: '%', ...none }, { test: true })).comment, 'User app@% is set to be removed');
    assert.equal((await runState('mysql_database.present', { name: 'appdb', ...none }, { test: true })).comment, 'Database appdb is not present and needs to be created');
    assert.equal((await runState('mysql_database.absent', { name: 'appdb', ...none }, { test: true })).comment, 'Database appdb is present and needs to be removed');
    assert.equal((await runState('mysql_grants.present', { name: 'app-rw', grant: 'select', database: 'appdb.*', user: 'app' }, { test: true })).comment, 'MySQL grant app-rw is set to be created');
    assert.equal((await runState('mysql_grants.absent', { name: 'app-rw', grant: 'select', database: 'appdb.*', user: 'app' }, { test: true })).comment, 'MySQL grant app-rw is set to be revoked');
    assert.equal((await runState('mysql_user.present', { name: 'app', allow_passwordless: true, ...none }, { test: true })).comment, 'User app@localhost is set to be added with passwordless login');
    assert.equal((await runState('mysql_user.present', { name: 'app' }, { test: true })).comment, 'Either password or password_hash must be specified, unless allow_passwordless is True');
  });

  it('a real run without a server fails naming where it looked and what to start', { skip: has('mysql') ? false : 'no mysql client' }, async () => {
    const r = await runState('mysql_database.present', { name: 'appdb', ...none });
    assert.equal(r.result, false);
    assert.match(
      r.comment,
      /^mysql_database\.present cannot act on this minion: MySQL\/MariaDB at the socket \/nonexistent\/brine-test\/mysqld\.sock cannot be used: .*Can't connect.*; start the server \(systemctl start mariadb\)/s,
    );
  });

  it('a real run without a MySQL client names the package', { skip: has('mysql') ? 'a mysql client is installed here' : false }, async () => {
    const r = await runState('mysql_database.present', { name: 'appdb' });
    assert.equal(r.result, false);
    assert.match(
      r.comment,
      /^mysql_database\.present cannot act on this minion: MySQL\/MariaDB at the local socket cannot be used: mysql is not installed on this minion \(not on PATH: .*\); install the mariadb-client package/,
    );
  });
});
