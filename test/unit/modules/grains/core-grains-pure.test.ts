// Salt's core grains from fixed inputs: each decision against what salt/grains/core.py (and
// the helpers it calls) reports for the same files.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { gpuGrains, pciDeviceName } from '../../../../src/modules/grains/gpu-grains.js';
import { cpuGrains, memGrains } from '../../../../src/modules/grains/hardware-grains.js';
import { defaultLocale, parsePosixTz, timezoneAbbreviation } from '../../../../src/modules/grains/locale-grain.js';
import { defaultGateway4, defaultGateway6, interfaceGrains } from '../../../../src/modules/grains/network-grains.js';
import { adler32, serverId } from '../../../../src/modules/grains/process-grains.js';
import { cachedOutput } from '../../../../src/modules/grains/program-probe.js';
import { parseResolv } from '../../../../src/modules/grains/resolv-grain.js';
import { selinuxGrain, systemdGrain } from '../../../../src/modules/grains/system-grains.js';
import { pythonFacts, saltVersionGrains, versionInfo } from '../../../../src/modules/grains/version-grains.js';
import { virtualGrains } from '../../../../src/modules/grains/virtual-grain.js';

describe('version grains', () => {
  it('report Salt 3007.8 as saltversion and [3007, 8] as saltversioninfo, so version branches take the modern path', () => {
    const g = saltVersionGrains();
    assert.equal(g.saltversion, '3007.8');
    assert.deepEqual(g.saltversioninfo, [3007, 8]);
    assert.deepEqual(versionInfo('3006.9'), [3006, 9]);
    // users-formula: grains['saltversioninfo'] >= [2018, 3, 1] compares lists element-wise
    assert.ok((g.saltversioninfo as number[])[0]! > 2018);
  });

  it('pythonversion is the probed sys.version_info; the fallback is Python 3.10 with no executable', () => {
    const out = { retcode: 0, stdout: '[[3, 11, 7, "final", 0], "/usr/bin/python3", ["", "/usr/lib/python311.zip", "/usr/lib/python3.11"]]' };
    const f = pythonFacts(out);
    assert.deepEqual(f.grains, { pythonversion: [3, 11, 7, 'final', 0], pythonexecutable: '/usr/bin/python3', pythonpath: ['/usr/lib/python311.zip', '/usr/lib/python3.11'] });
    for (const bad of [undefined, { retcode: 127, stdout: '' }, { retcode: 0, stdout: 'Python 2.7' }, { retcode: 0, stdout: '[1, 2]' }]) {
      const fb = pythonFacts(bad);
      assert.deepEqual(fb.grains, { pythonversion: [3, 10, 0, 'final', 0], pythonexecutable: '', pythonpath: [] });
    }
  });
});

describe('server_id', () => {
  it("is Salt 3007's: SHA-256 of the id modulo 2**31 (Salt's grains.items printed 1176442512 for corpus-minion)", () => {
    assert.equal(serverId('corpus-minion', false), 1176442512);
    // int(hashlib.sha256(b'web1').hexdigest(), 16) % 2**31 in Python
    assert.equal(serverId('web1', undefined), 1826842219);
  });
  it('uses crc32 or adler32 of the id with server_id_use_crc (zlib.crc32(b"web1") and zlib.adler32(b"web1") in Python)', () => {
    assert.equal(serverId('web1', 'crc32'), 2678409197);
    assert.equal(serverId('web1', 'adler32'), 67371376);
    assert.equal(adler32(Buffer.from('web1')), 67371376);
  });
});

describe('interface grains', () => {
  it('list every interface, addresses per family, hardware addresses where there is one', () => {
    const g = interfaceGrains({
      lo: { up: true, hwaddr: '00:00:00:00:00:00', inet: [{ address: '127.0.0.1', netmask: '255.0.0.0', label: 'lo' }], inet6: [{ address: '::1', prefixlen: '128', scope: 'host' }] },
      eth1: { up: false, hwaddr: 'aa:bb:cc:dd:ee:ff' },
      tun0: { up: true, inet: [{ address: '10.8.0.1', netmask: '255.255.255.0', label: 'tun0' }] },
    });
    assert.deepEqual(g.ip4_interfaces, { lo: ['127.0.0.1'], eth1: [], tun0: ['10.8.0.1'] });
    assert.deepEqual(g.ip6_interfaces, { lo: ['::1'], eth1: [], tun0: [] });
    assert.deepEqual(g.ip_interfaces, { lo: ['127.0.0.1', '::1'], eth1: [], tun0: ['10.8.0.1'] });
    assert.deepEqual(g.hwaddr_interfaces, { lo: '00:00:00:00:00:00', eth1: 'aa:bb:cc:dd:ee:ff' });
  });
});

describe('default gateways', () => {
  const route = 'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n';
  it('ip4_gw is the first default route\'s gateway, true without "via", false without a default route', () => {
    assert.equal(defaultGateway4(`${route}eth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\neth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n`), '192.0.2.1');
    assert.equal(defaultGateway4(`${route}wg0\t00000000\t00000000\t0001\t0\t0\t0\t00000000\t0\t0\t0\n`), true);
    assert.equal(defaultGateway4(`${route}eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n`), false);
    assert.equal(defaultGateway4(''), false);
  });
  it("ip6_gw in compressed form; the kernel's unreachable default on lo is not a default route", () => {
    const z = '0'.repeat(32);
    const reject = `${z} 00 ${z} 00 ${z} ffffffff 00000001 00000000 00200200       lo\n`;
    const viaGw = `${z} 00 ${z} 00 fd000000000000000000000000000001 00000400 00000003 00000000 00000003     eth0\n`;
    assert.equal(defaultGateway6(reject + viaGw), 'fd00::1');
    assert.equal(defaultGateway6(reject), false);
    assert.equal(defaultGateway6(`${z} 00 ${z} 00 ${z} 00000400 00000003 00000000 00000001     ppp0\n`), true);
  });
});

describe('dns grain (parse_resolv)', () => {
  it("has Salt's keys and shapes: families split, comments dropped, options' first word, strict sortlist", () => {
    const r = parseResolv(
      '# generated\nnameserver 10.0.0.2 # primary\nnameserver 2001:DB8:0:0::53\nnameserver 10.0.0.2\nnameserver not-an-ip\nsearch corp.example example.net\ndomain corp.example\noptions ndots:2 timeout:1\noptions rotate\nsortlist 130.155.160.0/255.255.240.0 130.155.0.0 10.1.1.1/8\n',
    );
    assert.deepEqual(r, {
      nameservers: ['10.0.0.2', '2001:db8::53'],
      ip4_nameservers: ['10.0.0.2'],
      ip6_nameservers: ['2001:db8::53'],
      sortlist: ['130.155.160.0/255.255.240.0', '130.155.0.0/255.255.0.0'],
      domain: 'corp.example',
      search: ['corp.example', 'example.net'],
      options: ['ndots:2', 'rotate'],
    });
  });
});

describe('virtual grain', () => {
  it('is physical with nothing to go on', () => {
    assert.deepEqual(virtualGrains({ pid1Cgroup: '0::/\n' }), { virtual: 'physical' });
  });
  it('reads the hypervisor from the DMI strings dmidecode prints', () => {
    assert.deepEqual(virtualGrains({ sysVendor: 'QEMU', productName: 'Standard PC (Q35 + ICH9, 2009)', biosVendor: 'SeaBIOS' }), { virtual: 'kvm' });
    assert.deepEqual(virtualGrains({ sysVendor: 'VMware, Inc.', productName: 'VMware Virtual Platform' }), { virtual: 'VMware' });
    assert.deepEqual(virtualGrains({ sysVendor: 'innotek GmbH', productName: 'VirtualBox' }), { virtual: 'VirtualBox' });
    assert.deepEqual(virtualGrains({ sysVendor: 'Microsoft Corporation', productName: 'Virtual Machine' }), { virtual: 'VirtualPC' });
    assert.deepEqual(virtualGrains({ sysVendor: 'Google', productName: 'Google Compute Engine' }), { virtual: 'gce' });
    assert.deepEqual(virtualGrains({ sysVendor: 'Amazon EC2', productName: 't3.micro', biosVendor: 'Amazon EC2' }), { virtual: 'Nitro', virtual_subtype: 'Amazon EC2' });
    assert.deepEqual(virtualGrains({ sysVendor: 'Amazon EC2', productName: 'm5.large', cpuinfo: 'model name : QEMU Virtual CPU' }), { virtual: 'Nitro', virtual_subtype: 'Amazon EC2 (m5.large)' });
  });
  it('reports containers from cgroups and PID 1 environment, after hypervisors', () => {
    assert.deepEqual(virtualGrains({ pid1Cgroup: '12:pids:/docker/abc\n' }), { virtual: 'container', virtual_subtype: 'Docker' });
    assert.deepEqual(virtualGrains({ sysVendor: 'QEMU', pid1Cgroup: '1:name=systemd:/lxc/c1\n' }), { virtual: 'container', virtual_subtype: 'LXC' });
    assert.deepEqual(virtualGrains({ pid1Environ: 'PATH=/bin\0container=lxc\0' }), { virtual: 'container', virtual_subtype: 'LXC' });
    assert.deepEqual(virtualGrains({ pid1Environ: 'container=podman\0' }), { virtual: 'container', virtual_subtype: 'Podman' });
    assert.deepEqual(virtualGrains({ pid1Cgroup: '0::/kubepods/burstable/pod1\n' }), { virtual: 'virtual', virtual_subtype: 'kubernetes' });
    assert.deepEqual(virtualGrains({ chroot: true }), { virtual: 'virtual', virtual_subtype: 'chroot' });
  });
  it('reports Xen and OpenVZ from their /proc files', () => {
    assert.deepEqual(virtualGrains({ xen: true, xenCapabilities: '' }), { virtual: 'xen', virtual_subtype: 'Xen PV DomU' });
    assert.deepEqual(virtualGrains({ xen: true, xenXsdKva: true }), { virtual: 'xen', virtual_subtype: 'Xen Dom0' });
    assert.deepEqual(virtualGrains({ selfStatus: 'Name:\tx\nenvID:\t101\n' }), { virtual: 'openvzve' });
  });
});

describe('cpu and memory grains', () => {
  it("take the model, flags and count from /proc/cpuinfo as Salt's _linux_cpudata", () => {
    const x86 =
      'processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R)\nflags\t\t: fpu vme sse2\n\nprocessor\t: 1\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R)\nflags\t\t: fpu vme sse2\n';
    assert.deepEqual(cpuGrains(x86), { num_cpus: 2, cpu_model: 'Intel(R) Xeon(R)', cpu_flags: ['fpu', 'vme', 'sse2'] });
    assert.deepEqual(cpuGrains('Processor\t: ARMv6-compatible processor rev 7 (v6l)\nFeatures\t: swp half thumb\n'), { num_cpus: 1, cpu_model: 'ARMv6', cpu_flags: ['swp', 'half', 'thumb'] });
    assert.deepEqual(cpuGrains(undefined), { num_cpus: 0, cpu_model: 'Unknown', cpu_flags: [] });
  });
  it('mem_total and swap_total are MiB rounded down', () => {
    assert.deepEqual(memGrains('MemTotal:        2047999 kB\nMemFree: 1 kB\nSwapTotal:       1048575 kB\n'), { mem_total: 1999, swap_total: 1023 });
    assert.deepEqual(memGrains(undefined), { mem_total: 0, swap_total: 0 });
  });
});

describe('systemd and selinux grains', () => {
  it("systemd is {version, features} from systemctl --version, Salt's UNDEFINED otherwise", () => {
    assert.deepEqual(systemdGrain({ retcode: 0, stdout: 'systemd 252 (252.39-1~deb12u2)\n+PAM +AUDIT -GNUTLS default-hierarchy=unified' }), {
      version: '252',
      features: '+PAM +AUDIT -GNUTLS default-hierarchy=unified',
    });
    assert.deepEqual(systemdGrain({ retcode: 1, stdout: '' }), { version: 'UNDEFINED', features: '' });
    assert.deepEqual(systemdGrain(undefined), { version: 'UNDEFINED', features: '' });
  });
  it("selinux is {enabled, enforced} with getenforce's words", () => {
    assert.deepEqual(selinuxGrain('1', true), { enabled: true, enforced: 'Enforcing' });
    assert.deepEqual(selinuxGrain('0\n', true), { enabled: true, enforced: 'Permissive' });
    assert.deepEqual(selinuxGrain(undefined, true), { enabled: false, enforced: 'Disabled' });
    assert.deepEqual(selinuxGrain('1', false), { enabled: true });
  });
});

describe('locale_info', () => {
  it("follows Python's getdefaultlocale over LC_ALL, LC_CTYPE, LANG, LANGUAGE", () => {
    assert.deepEqual(defaultLocale({ LANG: 'de_DE.utf8' }), ['de_DE', 'UTF-8']);
    assert.deepEqual(defaultLocale({ LC_ALL: 'fr_FR.UTF-8', LANG: 'de_DE.utf8' }), ['fr_FR', 'UTF-8']);
    assert.deepEqual(defaultLocale({ LANG: 'C.UTF-8' }), ['en_US', 'UTF-8']);
    assert.deepEqual(defaultLocale({ LANGUAGE: 'sv_SE.UTF-8:en' }), ['sv_SE', 'UTF-8']);
    assert.deepEqual(defaultLocale({}), [null, null]);
    assert.deepEqual(defaultLocale({ LANG: 'POSIX' }), [null, null]);
  });
  it("timezone is the zone's abbreviation now: the DST name only while the offset differs from standard time", () => {
    assert.deepEqual(parsePosixTz('CET-1CEST,M3.5.0,M10.5.0/3'), { std: 'CET', dst: 'CEST', stdOffset: 60 });
    assert.deepEqual(parsePosixTz('<+03>-3'), { std: '+03', stdOffset: 180 });
    assert.deepEqual(parsePosixTz('EST5EDT,M3.2.0,M11.1.0'), { std: 'EST', dst: 'EDT', stdOffset: -300 });
    assert.equal(timezoneAbbreviation('UTC0'), 'UTC');
    assert.equal(timezoneAbbreviation('/no/such/zone'), 'unknown');
  });
});

describe('gpu grains', () => {
  const ids = '# pci.ids\n10de  NVIDIA Corporation\n\t1eb8  TU104GL [Tesla T4]\n\t1eb9  Other\n1af4  Red Hat, Inc.\n\t1041  Virtio network device\n';
  it('name the device from pci.ids', () => {
    assert.equal(pciDeviceName(ids, '10de', '1eb8'), 'TU104GL [Tesla T4]');
    assert.equal(pciDeviceName(ids, '10de', 'ffff'), undefined);
    assert.equal(pciDeviceName(ids, '8086', '1234'), undefined);
  });
  it('keep display controllers only, with the vendor word Salt matches', () => {
    const devs = [
      { cls: '030000', vendor: '10de', device: '1eb8' },
      { cls: '020000', vendor: '1af4', device: '1041' },
      { cls: '030200', vendor: '1013', device: '00b8' },
    ];
    assert.deepEqual(gpuGrains(devs, []), {
      num_gpus: 2,
      gpus: [
        { vendor: 'nvidia', model: 'Device 1eb8' },
        { vendor: 'unknown', model: 'Device 00b8' },
      ],
    });
    assert.deepEqual(gpuGrains([devs[1]!]), { num_gpus: 0, gpus: [] });
  });
});

describe('program probe cache decision', () => {
  it('reuses an output only when the program is the same file as when it ran', () => {
    const entries = { k: { identity: '/usr/bin/python3.11:100:5:7', retcode: 0, stdout: 'x' } };
    assert.deepEqual(cachedOutput(entries, 'k', '/usr/bin/python3.11:100:5:7'), { retcode: 0, stdout: 'x' });
    assert.equal(cachedOutput(entries, 'k', '/usr/bin/python3.11:100:6:7'), undefined);
    assert.equal(cachedOutput(entries, 'other', '/usr/bin/python3.11:100:5:7'), undefined);
  });
});
