// Salt's derived OS grains (salt/grains/core.py: os_data, _linux_distribution_data for the
// lsb_distrib_* fallbacks on os-release, the osfinger rule, _osarch via dpkg, _init from PID 1).
// Values pinned are those Salt 3007 reports on the distributions of the fixtures. Real trees
// (issue 22 corpus) use oscodename/lsb_distrib_codename/osarch to pick apt repositories.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { collectGrains, initGrain, initNamedIn, type InitProbe, osArch, osDetailGrains, osGrainsFrom, parseOsRelease } from '../../../src/modules/index.js';
import { whichExecutable } from '../../../src/modules/salt-which.js';

const DEBIAN_12 = 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\nVERSION="12 (bookworm)"\nVERSION_CODENAME=bookworm\nID=debian\n';
const UBUNTU_OS = 'NAME="Ubuntu"\nVERSION_ID="22.04"\nID=ubuntu\nID_LIKE=debian\nVERSION_CODENAME=jammy\nPRETTY_NAME="Ubuntu 22.04.4 LTS"\n';
const UBUNTU_LSB = 'DISTRIB_ID=Ubuntu\nDISTRIB_RELEASE=22.04\nDISTRIB_CODENAME=jammy\nDISTRIB_DESCRIPTION="Ubuntu 22.04.4 LTS"\n';

function detail(osRelease: string, cpuarch: string, lsb?: string): Record<string, unknown> {
  const fields = parseOsRelease(osRelease);
  return osDetailGrains({ base: osGrainsFrom(fields, 'Linux'), osRelease: fields, lsbRelease: lsb === undefined ? undefined : parseOsRelease(lsb), cpuarch });
}

describe('derived OS grains', () => {
  it('Debian 12 on x86_64: the values Salt reports (osfullname from NAME, osfinger by os, osarch from dpkg)', () => {
    const g = detail(DEBIAN_12, 'x86_64');
    assert.deepEqual(g, {
      lsb_distrib_id: 'Debian GNU/Linux',
      lsb_distrib_release: '12',
      lsb_distrib_codename: 'bookworm',
      osfullname: 'Debian GNU/Linux',
      oscodename: 'bookworm',
      osarch: 'amd64',
      osrelease_info: [12],
      osmajorrelease: 12,
      osfinger: 'Debian-12',
    });
  });

  it('Ubuntu: /etc/lsb-release wins, osfinger keeps the whole release, osrelease_info splits it into numbers', () => {
    const g = detail(UBUNTU_OS, 'aarch64', UBUNTU_LSB);
    assert.equal(g.lsb_distrib_id, 'Ubuntu');
    assert.equal(g.lsb_distrib_description, 'Ubuntu 22.04.4 LTS');
    assert.equal(g.oscodename, 'jammy');
    assert.equal(g.osfinger, 'Ubuntu-22.04');
    assert.deepEqual(g.osrelease_info, [22, 4]);
    assert.equal(g.osmajorrelease, 22);
    assert.equal(g.osarch, 'arm64');
  });

  it("Debian without VERSION_CODENAME: the codename in PRETTY_NAME's parentheses (salt#44108)", () => {
    const g = detail('PRETTY_NAME="Debian GNU/Linux 10 (buster)"\nNAME="Debian GNU/Linux"\nVERSION_ID="10"\nID=debian\n', 'x86_64');
    assert.equal(g.oscodename, 'buster');
    assert.equal(g.lsb_distrib_codename, 'buster');
  });

  it('CentOS Stream: osfinger by osfullname, osarch as uname names it (rpm)', () => {
    const g = detail('NAME="CentOS Stream"\nVERSION_ID="9"\nID="centos"\nID_LIKE="rhel fedora"\nPRETTY_NAME="CentOS Stream 9"\n', 'x86_64');
    assert.equal(g.osfinger, 'CentOS Stream-9');
    assert.equal(g.osarch, 'x86_64');
    assert.equal(g.oscodename, 'CentOS Stream 9');
    assert.equal(osArch('Debian', 'armv7l'), 'armhf');
    assert.equal(osArch('RedHat', 'aarch64'), 'aarch64');
  });

  it('a release that is not a number has osrelease_info but no osmajorrelease', () => {
    const g = detail('NAME="Debian GNU/Linux"\nVERSION_ID="trixie/sid"\nID=debian\nVERSION_CODENAME=trixie\n', 'x86_64');
    assert.deepEqual(g.osrelease_info, ['trixie/sid']);
    assert.equal(Object.hasOwn(g, 'osmajorrelease'), false);
  });

  it("init: Salt's rules on sample inputs", () => {
    // a host where `which` finds these programs, and /sbin/init's bytes name `mentions`
    const probe = (pid1Cmdline: string | undefined, o: { systemdDir?: boolean; mentions?: string } = {}): InitProbe => ({
      systemdDir: o.systemdDir ?? false,
      pid1Cmdline,
      which: (name) =>
        ({ init: '/sbin/init', '/sbin/init': '/sbin/init', supervisord: '/usr/bin/supervisord', tini: '/sbin/tini', 'dumb-init': '/usr/bin/dumb-init' })[name] ?? (name.startsWith('/') ? name : null),
      named: (file) => (file === '/sbin/init' ? o.mentions : undefined),
    });
    assert.equal(initGrain(probe('/sbin/tini\0--\0node\0', { systemdDir: true })), 'systemd');
    assert.equal(initGrain(probe('/sbin/init\0splash\0', { mentions: 'systemd' })), 'systemd', '/sbin/init linking to systemd');
    assert.equal(initGrain(probe('/sbin/init\0', { mentions: 'sysvinit' })), 'sysvinit');
    assert.equal(initGrain(probe('init\0', { mentions: 'upstart' })), 'upstart', 'a bare name is looked up on PATH');
    assert.equal(initGrain(probe('/sbin/init\0')), 'unknown', 'a bin/init that names none of them');
    assert.equal(initGrain(probe('/sbin/tini\0--\0node\0')), 'tini');
    assert.equal(initGrain(probe('/usr/bin/python3\0/usr/bin/supervisord\0-n\0')), 'supervisord', 'anywhere on the command line');
    assert.equal(initGrain(probe('supervisord\0-n\0')), 'unknown', 'as which finds it: the path, not the bare name');
    assert.equal(initGrain(probe('/usr/bin/dumb-init\0--\0sh\0')), 'dumb-init');
    assert.equal(initGrain(probe('runit\0')), 'runit');
    assert.equal(initGrain(probe('runit\0-v\0')), 'unknown', 'runit only alone');
    assert.equal(initGrain(probe('/usr/bin/python3\0-u\0/sbin/my_init\0')), 'runit', "Phusion's my_init runs runit");
    assert.equal(initGrain(probe('/lib/systemd/systemd\0--system\0')), 'unknown', 'without /run/systemd/system Salt does not look at the name');
    assert.equal(initGrain(probe('/sbin/openrc-init\0')), 'unknown', 'Salt names no openrc');
    assert.equal(initGrain(probe('/bin/bash\0')), 'unknown');
    assert.equal(initGrain(probe('')), 'unknown');
    assert.equal(initGrain(probe(undefined)), 'unknown');
  });

  it('init: a bin/init program is named by its bytes (real files, PATH lookup, a name across a chunk boundary)', (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-init-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const exe = (rel: string, bytes: string | Buffer): string => {
      const file = path.join(dir, rel);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, bytes, { mode: 0o755 });
      return file;
    };
    // the systemd binary, and a /sbin/init that links to it (Debian's systemd-sysv)
    exe('lib/systemd/systemd', Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2]), Buffer.from('\0libSystemD-shared\0')]));
    fs.mkdirSync(path.join(dir, 'sbin'));
    fs.symlinkSync(path.join(dir, 'lib/systemd/systemd'), path.join(dir, 'sbin/init'));
    exe('old/sbin/init', `${'x'.repeat(13)}SYSVINIT version 3.06`);
    exe('both/sbin/init', 'systemd and upstart');
    exe('plain/sbin/init', 'busybox');
    const host = (cmdline: string, chunk = 262144): string => initGrain({ systemdDir: false, pid1Cmdline: cmdline, which: whichExecutable, named: (file) => initNamedIn(file, chunk) });
    assert.equal(host(`${dir}/sbin/init\0`), 'systemd');
    assert.equal(host(`${dir}/old/sbin/init\0`), 'sysvinit');
    assert.equal(host(`${dir}/both/sbin/init\0`), 'upstart', 'within one chunk: upstart, then sysvinit, then systemd, as Salt checks them');
    assert.equal(host(`${dir}/both/sbin/init\0`, 8), 'systemd', 'the first chunk that names one decides');
    assert.equal(initNamedIn(path.join(dir, 'old/sbin/init'), 16), 'sysvinit', "'sysvinit' split across two 16-byte chunks");
    assert.equal(initNamedIn(path.join(dir, 'old/sbin/init'), 8), 'sysvinit');
    assert.equal(host(`${dir}/plain/sbin/init\0`), 'unknown');
    assert.equal(host(`${dir}/missing/sbin/init\0`), 'unknown', 'not an executable: which finds nothing');
    assert.equal(initNamedIn(path.join(dir, 'missing')), undefined);
  });
});

describe('collectGrains with the derived grains', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-grains-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a Debian 12 host has oscodename, osfinger, osarch, init, path and shell', async () => {
    const osr = path.join(dir, 'os-release');
    fs.writeFileSync(osr, DEBIAN_12);
    const g = await collectGrains({
      id: 'm1',
      osReleasePaths: [osr],
      lsbReleasePaths: [path.join(dir, 'none')],
      initProbe: { pid1Cmdline: '/sbin/tini\0', systemdDir: false, which: (n) => (n === 'tini' ? '/sbin/tini' : null), named: () => undefined },
    });
    assert.equal(g.oscodename, 'bookworm');
    assert.equal(g.osfinger, 'Debian-12');
    assert.equal(g.osmajorrelease, 12);
    assert.equal(g.init, 'tini');
    assert.equal(g.path, process.env.PATH);
    assert.equal(g.shell, process.env.SHELL ?? '/bin/sh');
    assert.equal(g.osarch, osArch('Debian', String(g.cpuarch)));
  });
});
