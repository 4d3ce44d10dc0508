import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createDefaultRegistry } from '../../../src/modules/index.js';
import { makeCtx } from './context.js';

const registry = createDefaultRegistry();
const run = (fun: string, arg: unknown[], kwarg: Record<string, unknown> = {}) => registry.call(fun, arg, kwarg, makeCtx());

let dir: string;
const savedPath = process.env.PATH;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-'));
});
after(() => {
  process.env.PATH = savedPath;
  fs.rmSync(dir, { recursive: true, force: true });
});

function hasPing(): boolean {
  return (process.env.PATH ?? '').split(':').some((d) => d !== '' && fs.existsSync(path.join(d, 'ping')));
}

describe('network.ping', () => {
  it('without a ping program: a coded error saying what to install', async (t) => {
    if (hasPing()) {
      t.skip('ping is installed on this host, so the missing-ping error cannot be observed');
      return;
    }
    const res = await run('network.ping', ['127.0.0.1']);
    assert.equal(res.error?.code, 'EXEC_FAILED');
    assert.match(String(res.error?.message), /ping program is not installed on this minion; install it \(Debian: apt-get install iputils-ping/);
  });

  it('runs `ping [-W t] -c N host` as argv and honours return_boolean (real process, stand-in ping on PATH)', async () => {
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    // Prints its argv one per line; fails for one host, as ping does for an unreachable one.
    fs.writeFileSync(path.join(bin, 'ping'), '#!/bin/sh\nfor a in "$@"; do echo "[$a]"; done\nfor a in "$@"; do [ "$a" = 192.0.2.99 ] && exit 1; done\nexit 0\n', { mode: 0o755 });
    process.env.PATH = `${bin}:${savedPath}`;
    try {
      const res = await run('network.ping', ['127.0.0.1', 2]);
      assert.equal(res.return, '[-W]\n[2]\n[-c]\n[4]\n[127.0.0.1]');
      assert.equal(res.retcode, 0);
      assert.equal((await run('network.ping', ['localhost'], { count: 1 })).return, '[-c]\n[1]\n[localhost]');
      assert.deepEqual(await run('network.ping', ['192.0.2.99'], { return_boolean: true }), { return: false, retcode: 0, success: true });
      assert.equal((await run('network.ping', ['127.0.0.1'], { return_boolean: true })).return, true);
      const fail = await run('network.ping', ['192.0.2.99']);
      assert.equal(fail.retcode, 1, 'the exit code of ping becomes the retcode');
      for (const host of ['-f', '127.0.0.1; touch /tmp/x', '$(id)']) {
        const bad = await run('network.ping', [host]);
        assert.equal(bad.error?.code, 'BAD_ARGUMENTS', host);
      }
    } finally {
      process.env.PATH = savedPath;
    }
  });
});

describe('network.connect', () => {
  it("tcp: {result: true} and Salt's comment for a listening port, false for a closed one", async () => {
    const server = net.createServer((s) => s.destroy());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as net.AddressInfo).port;
    try {
      const ok = await run('network.connect', ['127.0.0.1', port]);
      assert.deepEqual(ok, { return: { result: true, comment: `Successfully connected to 127.0.0.1 (127.0.0.1) on tcp port ${port}` }, retcode: 0, success: true });
    } finally {
      await new Promise((r) => server.close(r));
    }
    const closed = await run('network.connect', ['127.0.0.1', port], { timeout: 2 });
    assert.deepEqual(closed.return, { result: false, comment: `Unable to connect to 127.0.0.1 (127.0.0.1) on tcp port ${port}` });
    assert.equal(closed.retcode, 1, "Salt's rule: result false is retcode 1");
  });

  it('udp counts as open only when the port answers', async () => {
    const server = dgram.createSocket('udp4');
    server.on('message', (msg, rinfo) => server.send(msg, rinfo.port, rinfo.address));
    await new Promise<void>((r) => server.bind(0, '127.0.0.1', r));
    const port = server.address().port;
    try {
      const res = await run('network.connect', ['127.0.0.1', port], { proto: 'udp', timeout: 2 });
      assert.equal((res.return as { result: boolean }).result, true);
    } finally {
      server.close();
    }
    const silent = await run('network.connect', ['127.0.0.1', port], { proto: 'udp', timeout: 0.3 });
    assert.equal((silent.return as { result: boolean }).result, false);
  });

  it('unresolvable hosts and bad arguments', async () => {
    const res = await run('network.connect', ['no-such-host.invalid', 80]);
    assert.deepEqual(res.return, { result: false, comment: 'Unable to resolve host no-such-host.invalid on tcp port 80' });
    assert.equal((await run('network.connect', ['127.0.0.1', 70000])).error?.code, 'BAD_ARGUMENTS');
    assert.equal((await run('network.connect', ['127.0.0.1', 80], { proto: 'sctp' })).error?.code, 'BAD_ARGUMENTS');
    assert.equal((await run('network.connect', ['127.0.0.1'])).error?.code, 'BAD_ARGUMENTS');
  });
});

describe('network.interfaces and network.ip_addrs', () => {
  it("reports every interface in Salt's shape, matching what the kernel says", async () => {
    const res = (await run('network.interfaces', [])).return as Record<
      string,
      { up: boolean; hwaddr?: string; inet?: { address: string; netmask: string; broadcast?: string; label: string }[]; inet6?: { address: string; prefixlen: string; scope: string }[] }
    >;
    assert.ok(res.lo, 'loopback is listed');
    assert.equal(res.lo.up, true);
    assert.deepEqual(res.lo.inet, [{ address: '127.0.0.1', netmask: '255.0.0.0', label: 'lo' }]);
    for (const [name, addrs] of Object.entries(os.networkInterfaces())) {
      const v4 = (addrs ?? []).filter((a) => a.family === 'IPv4').map((a) => a.address);
      assert.deepEqual(res[name]?.inet?.map((i) => i.address) ?? [], v4, name);
      const v6 = (addrs ?? []).filter((a) => a.family === 'IPv6');
      for (const a of v6) {
        const entry = res[name]?.inet6?.find((i) => i.address === a.address);
        assert.ok(entry, `${name} ${a.address}`);
        assert.equal(entry.prefixlen, a.cidr?.split('/')[1]);
        if (a.address === '::1') assert.equal(entry.scope, 'host');
        if (a.address.startsWith('fe80')) assert.equal(entry.scope, 'link');
      }
      for (const i of res[name]?.inet ?? []) {
        if (name === 'lo') continue;
        // broadcast = address | ~netmask
        const toInt = (s: string): number => s.split('.').reduce((x, o) => x * 256 + Number(o), 0);
        const expected = ((toInt(i.address) & toInt(i.netmask)) | (~toInt(i.netmask) >>> 0)) >>> 0;
        assert.equal(toInt(i.broadcast ?? '0.0.0.0'), expected, `${name} broadcast`);
      }
    }
    const sysNames = fs.readdirSync('/sys/class/net');
    for (const n of sysNames) {
      assert.ok(res[n], `${n} from /sys/class/net is listed`);
      const flags = parseInt(fs.readFileSync(`/sys/class/net/${n}/flags`, 'utf8'), 16);
      assert.equal(res[n].up, (flags & 1) === 1, `${n} up`);
      assert.equal(res[n].hwaddr, fs.readFileSync(`/sys/class/net/${n}/address`, 'utf8').trim());
    }
  });

  it('ip_addrs excludes loopback unless asked, filters by cidr and type, and ipaddrs is the same function', async () => {
    const all = Object.values(os.networkInterfaces()).flatMap((l) => (l ?? []).filter((a) => a.family === 'IPv4').map((a) => a.address));
    const nonLoop = [...new Set(all.filter((a) => !a.startsWith('127.')))];
    const res = (await run('network.ip_addrs', [])).return as string[];
    assert.deepEqual([...res].sort(), [...nonLoop].sort());
    assert.deepEqual((await run('network.ipaddrs', [])).return, res);
    const withLo = (await run('network.ip_addrs', [], { include_loopback: true })).return as string[];
    assert.ok(withLo.includes('127.0.0.1'));
    assert.deepEqual((await run('network.ip_addrs', [], { include_loopback: true, cidr: '127.0.0.0/8' })).return, ['127.0.0.1']);
    assert.deepEqual((await run('network.ip_addrs', [], { cidr: '127.0.0.0/8' })).return, []);
    assert.deepEqual((await run('network.ip_addrs', ['lo'], { include_loopback: true })).return, ['127.0.0.1']);
    const pub = (await run('network.ip_addrs', [], { type: 'public' })).return as string[];
    const priv = (await run('network.ip_addrs', [], { type: 'private' })).return as string[];
    assert.deepEqual([...pub, ...priv].sort(), [...res].sort());
    assert.equal((await run('network.ip_addrs', [], { cidr: 'nonsense' })).error?.code, 'BAD_ARGUMENTS');
  });
});

describe('network.interface, network.interface_ip and network.hw_addr (Salt: an unknown interface is a message, not an error)', () => {
  it('answers for the loopback from the kernel, and names the existing interfaces for an unknown one', async () => {
    assert.equal((await run('network.interface_ip', ['lo'])).return, '127.0.0.1');
    const inet = (await run('network.interface', ['lo'])).return as { address: string; netmask: string; label: string }[];
    assert.deepEqual(
      inet.map((i) => [i.address, i.netmask, i.label]),
      [['127.0.0.1', '255.0.0.0', 'lo']],
    );
    assert.equal((await run('network.hw_addr', ['lo'])).return, fs.readFileSync('/sys/class/net/lo/address', 'utf8').trim());
    const names = fs.readdirSync('/sys/class/net');
    for (const fun of ['network.interface', 'network.interface_ip', 'network.hw_addr']) {
      const res = await run(fun, ['nosuch0']);
      assert.equal(res.error, undefined, fun);
      const msg = String(res.return);
      assert.match(msg, /^Interface "nosuch0" not in available interfaces: "/, fun);
      for (const n of names) assert.ok(msg.includes(`"${n}"`), `${fun} names ${n}`);
    }
  });
});
