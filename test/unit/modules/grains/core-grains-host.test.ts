// Salt's core grains on this machine, each checked against what the host's own programs and
// Node's view of it say (iproute2's `ip`, `uname`, getent, python3, systemctl), and the probe
// cache: python3 runs once per program file, not at every collection.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { collectGrains } from '../../../../src/modules/grains.js';
import { which } from '../../../../src/modules/host-tools.js';
import { diskGrains, dmiGrains, efiGrains } from '../../../../src/modules/grains/hardware-grains.js';
import { timezoneAbbreviation } from '../../../../src/modules/grains/locale-grain.js';
import { ProgramProbes, probeCacheFile } from '../../../../src/modules/grains/program-probe.js';
import { readSelinuxGrain } from '../../../../src/modules/grains/system-grains.js';
import { systemPython } from '../../../../src/modules/grains/version-grains.js';

let dir: string;
let g: Record<string, unknown>;

function run(program: string, args: string[], env?: Record<string, string>): string | undefined {
  try {
    return execFileSync(program, args, { encoding: 'utf8', env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return undefined;
  }
}

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-grains-'));
  g = await collectGrains({ id: 'web1', config: { cachedir: dir, master: ['m1', 'm2'] } });
});
after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('core grains on this host', () => {
  it('ip4/ip6/ip/hwaddr_interfaces match the kernel interfaces', () => {
    const ip4 = g.ip4_interfaces as Record<string, string[]>;
    const ip6 = g.ip6_interfaces as Record<string, string[]>;
    if (fs.existsSync('/sys/class/net/lo')) {
      assert.deepEqual(ip4.lo, ['127.0.0.1']);
      assert.equal((g.hwaddr_interfaces as Record<string, string>).lo, '00:00:00:00:00:00');
    }
    for (const [name, list] of Object.entries(os.networkInterfaces())) {
      assert.deepEqual(
        ip4[name],
        (list ?? []).filter((a) => a.family === 'IPv4').map((a) => a.address),
        name,
      );
      assert.deepEqual(
        ip6[name],
        (list ?? []).filter((a) => a.family === 'IPv6').map((a) => a.address),
        name,
      );
      assert.deepEqual((g.ip_interfaces as Record<string, string[]>)[name], [...(ip4[name] ?? []), ...(ip6[name] ?? [])]);
    }
    // interfaces without an address are there too, with []
    for (const name of fs.existsSync('/sys/class/net') ? fs.readdirSync('/sys/class/net') : []) assert.ok(Array.isArray(ip4[name]), name);
  });

  it('ip4_gw/ip6_gw/ip_gw say what `ip route show` says about the default route', { skip: which('ip') === undefined && 'iproute2 not installed' }, () => {
    const gw = (family: '-4' | '-6') => {
      const line = (run('ip', [family, 'route', 'show']) ?? '').split('\n').find((l) => l.startsWith('default'));
      if (line === undefined) return false;
      const [, via, addr] = line.split(/\s+/);
      return via === 'via' ? addr : true;
    };
    assert.equal(g.ip4_gw, gw('-4'));
    assert.equal(g.ip6_gw, gw('-6'));
    assert.equal(g.ip_gw, gw('-4') !== false || gw('-6') !== false);
  });

  it('fqdn_ip4 is what the resolver (getent ahostsv4) gives for the fqdn', () => {
    const out = run('getent', ['ahostsv4', String(g.fqdn)]) ?? '';
    const expected = [
      ...new Set(
        out
          .split('\n')
          .filter((l) => l.trim() !== '')
          .map((l) => l.split(/\s+/)[0]),
      ),
    ].sort();
    assert.deepEqual([...(g.fqdn_ip4 as string[])].sort(), expected);
    assert.ok(Array.isArray(g.fqdn_ip6) && Array.isArray(g.fqdns));
  });

  it('the process grains are the minion process: euid, egid, pid, names from the account databases', () => {
    assert.equal(g.uid, process.geteuid?.());
    assert.equal(g.gid, process.getegid?.());
    assert.equal(g.pid, process.pid);
    assert.equal(g.username, os.userInfo().username);
    assert.equal(g.groupname, (run('id', ['-gn']) ?? '').trim());
  });

  it('pythonversion and pythonexecutable come from the system python3, server_id is the SHA-256 of the id as Salt 3007 computes it', {
    skip: which(systemPython()) === undefined && 'no python3',
  }, () => {
    const facts = JSON.parse(run(systemPython(), ['-c', 'import json, sys; print(json.dumps([list(sys.version_info), sys.executable]))']) ?? '[]') as [unknown[], string];
    assert.deepEqual(g.pythonversion, facts[0]);
    assert.equal(g.pythonexecutable, facts[1]);
    assert.ok(Array.isArray(g.pythonpath) && !(g.pythonpath as string[]).includes(''));
    const salt = run(systemPython(), ['-c', 'import hashlib; print(abs(int(hashlib.sha256(b"web1").hexdigest(), 16) % (2 ** 31)))']);
    assert.equal(g.server_id, Number(salt));
  });

  it('saltversion/saltversioninfo, master as configured, kernelversion as uname -v', () => {
    assert.equal(g.saltversion, '3007.8');
    assert.deepEqual(g.saltversioninfo, [3007, 8]);
    assert.ok(fs.existsSync(String(g.saltpath)));
    assert.deepEqual(g.master, ['m1', 'm2']);
    assert.equal(g.kernelversion, (run('uname', ['-v']) ?? '').trim());
  });

  it('systemd is {version, features} as systemctl --version prints them', { skip: (which('systemctl') === undefined || which('localectl') === undefined) && 'no systemctl/localectl' }, () => {
    const [first = '', second = ''] = (run('systemctl', ['--version']) ?? '').split('\n');
    assert.deepEqual(g.systemd, { version: first.split(' ')[1], features: second });
  });

  it('hardware grains have their shapes: cpu, memory, disks, gpus, efi, zfs', () => {
    assert.equal(typeof g.cpu_model, 'string');
    assert.ok(Array.isArray(g.cpu_flags));
    assert.equal(g.mem_total, Math.floor(os.totalmem() / 1048576));
    assert.ok(Number.isInteger(g.swap_total));
    const disks = [...(g.disks as string[]), ...(g.ssds as string[])];
    for (const d of disks) assert.ok(fs.existsSync(`/sys/block/${d}`), d);
    for (const d of fs.existsSync('/sys/block') ? fs.readdirSync('/sys/block') : []) {
      if (/^(loop|ram|zram)/.test(d)) assert.ok(!disks.includes(d), `virtual device ${d} is not a disk`);
    }
    assert.equal(g.num_gpus, (g.gpus as unknown[]).length);
    assert.equal(g.efi, fs.existsSync('/sys/firmware/efi/efivars') || fs.existsSync('/sys/firmware/efi/vars'));
    assert.equal(typeof g['efi-secure-boot'], 'boolean');
    assert.equal(typeof g.zfs_support, 'boolean');
    assert.equal(typeof g.virtual, 'string');
  });

  it('dns has the nameservers of the resolver file; locale_info has its four keys', () => {
    const file = fs.existsSync('/run/systemd/resolve/resolv.conf') ? '/run/systemd/resolve/resolv.conf' : '/etc/resolv.conf';
    const servers = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((l) => /^\s*nameserver\s+(\S+)/.exec(l)?.[1] ?? []);
    assert.deepEqual((g.dns as { nameservers: string[] }).nameservers, [...new Set(servers)]);
    assert.deepEqual(Object.keys(g.locale_info as object).sort(), ['defaultencoding', 'defaultlanguage', 'detectedencoding', 'timezone']);
  });

  it('python3 ran once: its output is cached in <cachedir>/grain-probes.json and reused', async () => {
    const cache = JSON.parse(fs.readFileSync(probeCacheFile(dir), 'utf8')) as Record<string, unknown>;
    if (which(systemPython()) !== undefined) assert.ok(Object.keys(cache).some((k) => k.startsWith(JSON.stringify([systemPython()]).slice(0, -1))));
    const again = await collectGrains({ id: 'web1', config: { cachedir: dir } });
    assert.deepEqual(again.pythonversion, g.pythonversion);
  });
});

describe('program probe cache', () => {
  it('runs a program once, and again after the program file changes', async () => {
    const bin = fs.mkdtempSync(path.join(dir, 'bin-'));
    const counter = path.join(bin, 'count');
    const program = path.join(bin, 'probe-me');
    fs.writeFileSync(program, `#!/bin/sh\necho run >> '${counter}'\necho "v1 $1"\n`, { mode: 0o755 });
    const savedPath = process.env.PATH;
    process.env.PATH = `${bin}:${savedPath}`;
    try {
      const runs = () =>
        fs
          .readFileSync(counter, 'utf8')
          .split('\n')
          .filter((l) => l !== '').length;
      const cacheFile = path.join(bin, 'cache', 'probes.json');
      const first = new ProgramProbes(cacheFile);
      assert.deepEqual(await first.run({ program: 'probe-me', args: ['a'] }), { retcode: 0, stdout: 'v1 a' });
      first.save();
      const second = new ProgramProbes(cacheFile);
      assert.deepEqual(await second.run({ program: 'probe-me', args: ['a'] }), { retcode: 0, stdout: 'v1 a' });
      assert.equal(runs(), 1, 'the second collection read the cache');
      // other arguments are another probe
      assert.deepEqual(await second.run({ program: 'probe-me', args: ['b'] }), { retcode: 0, stdout: 'v1 b' });
      assert.equal(runs(), 2);
      // an upgraded program (new size and mtime) is asked again
      fs.writeFileSync(program, `#!/bin/sh\necho run >> '${counter}'\necho "version2 $1"\n`, { mode: 0o755 });
      const third = new ProgramProbes(cacheFile);
      assert.deepEqual(await third.run({ program: 'probe-me', args: ['a'] }), { retcode: 0, stdout: 'version2 a' });
      assert.equal(runs(), 3);
      assert.equal(await third.run({ program: 'no-such-program-here', args: [] }), undefined);
      // a damaged cache file is ignored and replaced
      fs.writeFileSync(cacheFile, '{not json');
      const fourth = new ProgramProbes(cacheFile);
      assert.deepEqual(await fourth.run({ program: 'probe-me', args: ['a'] }), { retcode: 0, stdout: 'version2 a' });
      fourth.save();
      assert.ok(JSON.parse(fs.readFileSync(cacheFile, 'utf8')));
    } finally {
      process.env.PATH = savedPath;
    }
  });
});

describe('sysfs readers on fixture trees', () => {
  it('disks and ssds by queue/rotational, virtual devices left out', () => {
    const sys = fs.mkdtempSync(path.join(dir, 'sys-'));
    const devices = path.join(sys, 'devices');
    const block = path.join(sys, 'block');
    fs.mkdirSync(block);
    for (const [name, where, rot] of [
      ['sda', 'pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda', '1'],
      ['nvme0n1', 'pci0000:00/0000:00:1d.0/nvme/nvme0/nvme0n1', '0'],
      ['loop0', 'virtual/block/loop0', '1'],
      ['sr0', 'pci0000:00/ata2/block/sr0', 'x'],
    ] as const) {
      fs.mkdirSync(path.join(devices, where, 'queue'), { recursive: true });
      fs.writeFileSync(path.join(devices, where, 'queue', 'rotational'), `${rot}\n`);
      fs.symlinkSync(`../devices/${where}`, path.join(block, name));
    }
    assert.deepEqual(diskGrains(block), { disks: ['sda'], ssds: ['nvme0n1'] });
    assert.deepEqual(diskGrains(path.join(sys, 'none')), { disks: [], ssds: [] });
  });

  it('the DMI grains with a lower-case uuid; a missing file leaves its grain out', () => {
    const dmi = fs.mkdtempSync(path.join(dir, 'dmi-'));
    fs.writeFileSync(path.join(dmi, 'sys_vendor'), 'QEMU\n');
    fs.writeFileSync(path.join(dmi, 'product_name'), 'Standard PC (Q35 + ICH9, 2009)\n');
    fs.writeFileSync(path.join(dmi, 'product_uuid'), 'A1B2C3D4-0000-1111-2222-333344445555\n');
    fs.writeFileSync(path.join(dmi, 'bios_version'), '1.16.2-debian-1.16.2-1\n');
    assert.deepEqual(dmiGrains(dmi), { biosversion: '1.16.2-debian-1.16.2-1', productname: 'Standard PC (Q35 + ICH9, 2009)', manufacturer: 'QEMU', uuid: 'a1b2c3d4-0000-1111-2222-333344445555' });
  });

  it('efi and efi-secure-boot from the SecureBoot variable', () => {
    const efivars = path.join(fs.mkdtempSync(path.join(dir, 'efi-')), 'efivars');
    fs.mkdirSync(efivars);
    assert.deepEqual(efiGrains([efivars]), { efi: true, 'efi-secure-boot': false });
    fs.writeFileSync(path.join(efivars, 'SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c'), Buffer.from([6, 0, 0, 0, 1]));
    assert.deepEqual(efiGrains([efivars]), { efi: true, 'efi-secure-boot': true });
    assert.deepEqual(efiGrains([path.join(dir, 'no-efi')]), { efi: false, 'efi-secure-boot': false });
  });

  it('selinux from selinuxfs, only when selinuxenabled is installed', () => {
    const mount = fs.mkdtempSync(path.join(dir, 'selinux-'));
    assert.deepEqual(readSelinuxGrain(false, true, mount), {});
    assert.deepEqual(readSelinuxGrain(true, true, mount), { selinux: { enabled: false, enforced: 'Disabled' } });
    fs.writeFileSync(path.join(mount, 'enforce'), '1');
    assert.deepEqual(readSelinuxGrain(true, true, mount), { selinux: { enabled: true, enforced: 'Enforcing' } });
  });

  it('timezone abbreviations of real zone files match `date +%Z`', { skip: !fs.existsSync('/usr/share/zoneinfo/Europe/Berlin') && 'no tzdata' }, () => {
    for (const zone of ['Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'UTC']) {
      const expected = (run('date', ['+%Z'], { TZ: zone }) ?? '').trim();
      const saved = process.env.TZ;
      process.env.TZ = zone;
      try {
        assert.equal(timezoneAbbreviation(zone), expected, zone);
      } finally {
        if (saved === undefined) delete process.env.TZ;
        else process.env.TZ = saved;
      }
    }
  });
});
