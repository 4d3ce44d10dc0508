// Execution functions public Salt trees call from Jinja (issue 22 corpus): network.default_route,
// network.ip_addrs6, dnsutil.A, pkg_resource.version_compare, test.provider, test.exception,
// checked against this machine's own `ip`, resolver and Salt's documented answers.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import { createDefaultRegistry } from '../../../src/modules/index.js';
import { parseRoutes } from '../../../src/modules/network-routes.js';
import { looseVersionCmp } from '../../../src/modules/pkg-resource-module.js';
import { versionsReport } from '../../../src/modules/test-versions.js';
import { BRINE_VERSION } from '../../../src/modules/version.js';
import { makeCtx } from './context.js';

const registry = createDefaultRegistry();
const call = async (fun: string, arg: unknown[] = [], kwarg: Record<string, unknown> = {}) => {
  const r = await registry.call(fun, arg, kwarg, makeCtx());
  assert.equal(r.success, true, JSON.stringify(r.error ?? r.return));
  return r.return;
};

describe('network routes', () => {
  it("default_route('inet') is this host's `ip route` default in Salt's shape (freifunk's |first['interface'])", async () => {
    const ipOut = execFileSync('ip', ['-4', 'route', 'show', 'default'], { encoding: 'utf8' });
    const m = /^default via (\S+) dev (\S+)/m.exec(ipOut);
    const routes = (await call('network.default_route', ['inet'])) as Record<string, string>[];
    if (!m) {
      assert.deepEqual(routes, []);
      return;
    }
    assert.deepEqual(routes[0], { addr_family: 'inet', destination: '0.0.0.0', gateway: m[1], netmask: '0.0.0.0', flags: 'UG', interface: m[2] });
    assert.ok(routes.every((r) => r.addr_family === 'inet'));
  });

  it('parses ip route output as Salt does: prefixes to netmasks, local and default IPv6 routes, skipped route types', () => {
    const v4 = 'default via 192.0.2.1 dev eth0 \n192.0.2.0/24 dev eth0 proto kernel scope link src 192.0.2.2\nunreachable 10.9.0.0/16\n';
    const v6 = 'fd00::/64 dev eth0 proto kernel metric 256\ndefault via fd00::1 dev eth0 metric 1024\nlocal ::1 dev lo table local proto kernel\nmulticast ff00::/8 dev eth0 table local\n';
    assert.deepEqual(parseRoutes(v4, v6), [
      { addr_family: 'inet', destination: '0.0.0.0', gateway: '192.0.2.1', netmask: '0.0.0.0', flags: 'UG', interface: 'eth0' },
      { addr_family: 'inet', destination: '192.0.2.0', gateway: '0.0.0.0', netmask: '255.255.255.0', flags: 'U', interface: 'eth0' },
      { addr_family: 'inet6', destination: 'fd00::/64', gateway: '::', netmask: '', flags: 'U', interface: 'eth0' },
      { addr_family: 'inet6', destination: '::/0', gateway: 'fd00::1', netmask: '', flags: 'UG', interface: 'eth0' },
      { addr_family: 'inet6', destination: '::1/128', gateway: '::', netmask: '', flags: 'U', interface: 'lo' },
    ]);
  });

  it('a family other than inet/inet6 is BAD_ARGUMENTS', async () => {
    assert.equal((await registry.call('network.default_route', ['ipx'], {}, makeCtx())).error?.code, 'BAD_ARGUMENTS');
  });

  it("ip_addrs6 lists this host's IPv6 addresses without ::1 unless include_loopback; cidr filters", async () => {
    const own = Object.values(os.networkInterfaces())
      .flat()
      .filter((a) => a?.family === 'IPv6')
      .map((a) => a!.address.replace(/%.*$/, ''));
    const got = (await call('network.ip_addrs6')) as string[];
    assert.deepEqual(new Set(got), new Set(own.filter((a) => a !== '::1')));
    const withLo = (await call('network.ip_addrs6', [], { include_loopback: true })) as string[];
    assert.equal(withLo.includes('::1'), own.includes('::1'));
    assert.deepEqual(await call('network.ip_addrs6', [], { include_loopback: true, cidr: '::1/128' }), own.includes('::1') ? ['::1'] : []);
  });
});

describe('dnsutil', () => {
  // without dig (this machine) Salt falls back to getaddrinfo; with dig it asks the DNS server
  const hasDig = (process.env.PATH ?? '').split(':').some((d) => d !== '' && existsSync(`${d}/dig`));
  it("A('localhost') resolves through the system resolver; an unknown name gives Salt's message", { skip: hasDig && 'dig is installed: Salt asks DNS, not /etc/hosts' }, async () => {
    assert.deepEqual(await call('dnsutil.A', ['localhost']), ['127.0.0.1']);
    assert.equal(await call('dnsutil.A', ['no-such-host.invalid']), 'Unable to resolve no-such-host.invalid');
    assert.equal(await call('dnsutil.A', ['localhost'], { nameserver: '127.0.0.1' }), 'This function requires dig, which is not currently available');
    assert.equal((await registry.call('dnsutil.A', ['-x'], {}, makeCtx())).error?.code, 'BAD_ARGUMENTS');
  });

  it("dig.A without dig fails saying what to install (openssh-formula's known_hosts template)", { skip: hasDig && 'dig is installed here' }, async () => {
    const r = await registry.call('dig.A', ['localhost'], {}, makeCtx());
    assert.equal(r.error?.code, 'EXEC_FAILED');
    assert.match(r.error!.message, /bind9-dnsutils/);
  });
});

describe('pkg_resource.version_compare', () => {
  it("compares as Salt's LooseVersion (warp10's version <= '2.1.0')", async () => {
    assert.equal(await call('pkg_resource.version_compare', ['2.0.9', '<=', '2.1.0']), true);
    assert.equal(await call('pkg_resource.version_compare', ['2.10.0', '<=', '2.1.0']), false, 'numbers, not text');
    assert.equal(await call('pkg_resource.version_compare', ['2.1.0', '!=', '2.1']), true);
    assert.equal(await call('pkg_resource.version_compare', ['1:2.0', '==', '2.0'], { ignore_epoch: true }), true);
    assert.equal(await call('pkg_resource.version_compare', ['1', '=<', '2']), false, 'an unknown operator is False');
    // mixed text and numbers: Salt compares zero-padded text
    assert.equal(looseVersionCmp('1.0rc1', '1.0'), 1);
    assert.equal(looseVersionCmp('1.0a', '1.0b'), -1);
  });
});

describe('test.provider / test.exception', () => {
  it("provider names Salt's module file (service: systemd_service, pkg: aptpkg on apt hosts); '' for no module", async () => {
    assert.equal(await call('test.provider', ['service']), 'systemd_service');
    assert.equal(await call('test.provider', ['cmd']), 'cmdmod');
    assert.equal(await call('test.provider', ['test']), 'test');
    assert.equal(await call('test.provider', ['no_such_module']), '');
    // Salt's shape: keyed by the provider file, the module name as the value
    const providers = (await call('test.providers')) as Record<string, string>;
    assert.equal(providers.systemd_service, 'service');
    assert.equal(providers.test, 'test');
    assert.equal(providers.service, undefined);
  });

  it('exception fails the call with the message given (a tree stops its own render with it)', async () => {
    const r = await registry.call('test.exception', ['icinga.master_cert must be configured'], {}, makeCtx());
    assert.equal(r.success, false);
    assert.equal(r.error?.message, 'icinga.master_cert must be configured');
  });
});

describe('random.rand_int', () => {
  it("a seeded call gives Python's random.seed(seed); random.randint(start, end) (checked against this machine's python3)", async () => {
    // expected: CPython 3.11's answers, and this machine's python3 again when it has one
    const cases: [number, number, string | number, number][] = [
      [0, 59, 'web1.example.org', 18],
      [1, 5, 'db-02', 5],
      [5, 8, '', 8],
      [0, 4, 12345, 3],
      [0, 1000000, 'a-long-minion-id-that-spans-several-words-of-the-seed', 814548],
    ];
    const script = cases.map(([a, b, s]) => `random.seed(${JSON.stringify(s)}); print(random.randint(${a}, ${b}))`).join('; ');
    let live: number[] = [];
    try {
      live = execFileSync('python3', ['-c', `import random; ${script}`], { encoding: 'utf8' })
        .trim()
        .split('\n')
        .map(Number);
    } catch {
      // no python3 on this machine: the recorded answers stand
    }
    for (const [i, [a, b, s, want]] of cases.entries()) {
      const got = await call('random.rand_int', [], { start: a, end: b, seed: s });
      assert.equal(got, want, `seed ${JSON.stringify(s)}`);
      if (live.length > 0) assert.equal(got, live[i], `seed ${JSON.stringify(s)} (python3 here)`);
    }
    const unseeded = (await call('random.rand_int', [3, 3])) as number;
    assert.equal(unseeded, 3);
    assert.equal((await registry.call('random.rand_int', [5, 1], {}, makeCtx())).error?.code, 'BAD_ARGUMENTS');
  });
});

describe('test.versions_information / versions_report', () => {
  it("Salt's report: the Salt release brine follows with brine's version beside it, names right-aligned, a ' ' line after each section", async () => {
    const info = (await call('test.versions_information')) as Record<string, Record<string, string>>;
    assert.deepEqual(info['Salt Version'], { Salt: '3007.8', brine: BRINE_VERSION });
    assert.equal(info['Dependency Versions']!['Node.js'], process.versions.node);
    assert.deepEqual(Object.keys(info['System Versions']!), ['dist', 'locale', 'machine', 'release', 'system', 'version']);
    const text = versionsReport({ 'Salt Version': { Salt: '3007.8', brine: '0.1.0' }, 'Dependency Versions': { 'Node.js': '20.1.0', libuv: '' }, 'System Versions': { system: 'Linux' } });
    assert.equal(
      text,
      [
        'Salt Version:',
        '         brine: 0.1.0',
        '          Salt: 3007.8',
        ' ',
        'Dependency Versions:',
        '         libuv: Not Installed',
        '       Node.js: 20.1.0',
        ' ',
        'System Versions:',
        '        system: Linux',
        ' ',
      ].join('\n'),
    );
    assert.equal(await call('test.versions'), await call('test.versions_report'));
  });
});
