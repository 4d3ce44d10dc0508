import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BRINE_VERSION, collectGrains, createDefaultRegistry, osGrainsFrom, parseOsRelease, traverseDictAndList } from '../../../src/modules/index.js';
import { makeCtx } from './context.js';

let dir: string;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-'));
});
after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function write(name: string, text: string): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
}

describe('collectGrains', () => {
  it('has the core grains with Salt names, types and units', async () => {
    const g = await collectGrains({
      id: 'web1',
      osReleasePaths: [write('os-release', 'NAME="Ubuntu"\nID=ubuntu\nID_LIKE=debian\nVERSION_ID="22.04"\n')],
      machineIdPaths: [path.join(dir, 'missing'), write('machine-id', 'abc123def\n')],
    });
    assert.equal(g.id, 'web1');
    assert.equal(g.os, 'Ubuntu');
    assert.equal(g.os_family, 'Debian');
    assert.equal(g.osrelease, '22.04');
    assert.equal(g.machine_id, 'abc123def');
    assert.equal(g.kernel, 'Linux');
    assert.equal(g.kernelrelease, os.release());
    assert.equal(g.nodename, os.hostname());
    assert.equal(g.host, String(g.fqdn).split('.')[0]);
    assert.equal(g.brine_version, BRINE_VERSION);
    const arch = { x64: 'x86_64', arm64: 'aarch64' }[process.arch as 'x64' | 'arm64'];
    if (arch) assert.equal(g.cpuarch, arch);
    assert.equal(g.num_cpus, os.cpus().length);
    assert.ok(Number.isInteger(g.mem_total));
    assert.equal(g.mem_total, Math.floor(os.totalmem() / 1048576));
    const ipv4 = g.ipv4 as string[];
    assert.ok(ipv4.includes('127.0.0.1'), 'loopback included, as in Salt');
    assert.deepEqual(ipv4, [...ipv4].sort());
    assert.ok(Array.isArray(g.ipv6));
    assert.ok((g.ipv6 as string[]).every((a) => a.includes(':')));
  });

  it('leaves machine_id out when there is none and falls back to os.type()', async () => {
    const g = await collectGrains({ id: 'x', osReleasePaths: [path.join(dir, 'none')], machineIdPaths: [path.join(dir, 'none')] });
    assert.equal(Object.hasOwn(g, 'machine_id'), false);
    assert.equal(g.os, os.type());
    assert.equal(g.osrelease, '');
  });

  it('config grains win over core grains, including hostile key names as plain keys', async () => {
    const configGrains = JSON.parse('{"os":"Custom","roles":["web","db"],"__proto__":{"x":1}}') as Record<string, unknown>;
    const g = await collectGrains({ id: 'web1', configGrains });
    assert.equal(g.os, 'Custom');
    assert.deepEqual(g.roles, ['web', 'db']);
    assert.equal(Object.getPrototypeOf(g), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(g, '__proto__')?.value, { x: 1 });
  });
});

describe('os-release mapping', () => {
  const cases: [string, string, string, string][] = [
    ['ID=debian\nVERSION_ID="12"\nNAME="Debian GNU/Linux"', 'Debian', 'Debian', '12'],
    ['ID="centos"\nVERSION_ID="7"', 'CentOS', 'RedHat', '7'],
    ['ID="rhel"\nVERSION_ID="9.3"', 'RedHat', 'RedHat', '9.3'],
    ['ID=rocky\nVERSION_ID=8.9', 'Rocky', 'RedHat', '8.9'],
    ['ID="opensuse-leap"\nVERSION_ID="15.5"', 'Leap', 'Suse', '15.5'],
    ['ID=arch\nNAME="Arch Linux"', 'Arch', 'Arch', ''],
    ['ID=zorin\nID_LIKE="ubuntu debian"\nNAME="Zorin OS"\nVERSION_ID=16', 'Zorin OS', 'Debian', '16'],
  ];
  for (const [text, osName, family, release] of cases) {
    it(`${osName}/${family}`, () => {
      assert.deepEqual(osGrainsFrom(parseOsRelease(text), 'Linux'), { os: osName, os_family: family, osrelease: release });
    });
  }
  it('parses quoted values with escapes and ignores comments', () => {
    const f = parseOsRelease('# c\nNAME="A \\"B\\""\nX=\'y z\'\nbad line\n');
    assert.equal(f.get('NAME'), 'A "B"');
    assert.equal(f.get('X'), 'y z');
    assert.equal(f.size, 2);
  });
});

describe('grains module', () => {
  const registry = createDefaultRegistry();
  const grainsData = { id: 'web1', os: 'Debian', ipv4: ['10.0.0.1', '127.0.0.1'], roles: [{ name: 'web' }, { tier: 'front' }], deep: { a: { b: 'c' } } };
  const ctx = makeCtx({ grainsData });
  const call = (fun: string, arg: unknown[], kwarg: Record<string, unknown> = {}) => registry.call(fun, arg, kwarg, ctx);

  it('grains.items returns everything', async () => {
    assert.deepEqual((await call('grains.items', [])).return, grainsData);
  });

  it('grains.ls returns sorted names', async () => {
    assert.deepEqual((await call('grains.ls', [])).return, ['deep', 'id', 'ipv4', 'os', 'roles']);
  });

  it('grains.get walks mappings and lists, with defaults', async () => {
    assert.equal((await call('grains.get', ['os'])).return, 'Debian');
    assert.equal((await call('grains.get', ['deep:a:b'])).return, 'c');
    assert.equal((await call('grains.get', ['ipv4:1'])).return, '127.0.0.1');
    assert.equal((await call('grains.get', ['ipv4:-1'])).return, '127.0.0.1');
    assert.equal((await call('grains.get', ['roles:tier'])).return, 'front');
    assert.equal((await call('grains.get', ['deep|a|b'], { delimiter: '|' })).return, 'c');
    assert.equal((await call('grains.get', ['missing'])).return, '');
    assert.equal((await call('grains.get', ['deep:a:zz', 'dflt'])).return, 'dflt');
    assert.equal((await call('grains.get', ['ipv4:9'], { default: 0 })).return, 0);
    assert.equal((await call('grains.get', ['os:x'])).return, '', 'a string is not walked into');
  });

  it('grains.get does not reach Object.prototype', async () => {
    assert.equal((await call('grains.get', ['constructor'], { default: 'none' })).return, 'none');
    assert.equal((await call('grains.get', ['deep:__proto__'], { default: 'none' })).return, 'none');
  });

  it('grains.item returns the named grains, keywords only by name', async () => {
    assert.deepEqual((await call('grains.item', ['os', 'deep:a:b', 'nope'])).return, { os: 'Debian', 'deep:a:b': 'c', nope: '' });
    assert.deepEqual((await call('grains.item', ['nope'], { default: null })).return, { nope: '' }, 'null means not given');
    assert.deepEqual((await call('grains.item', ['nope'], { default: 'd' })).return, { nope: 'd' });
  });

  it('traverseDictAndList handles an empty delimiter as the whole key', () => {
    assert.equal(traverseDictAndList({ 'a:b': 1 }, 'a:b', 'x', ''), 1);
  });
});
