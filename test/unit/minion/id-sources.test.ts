// Python's getfqdn rebuilt on Node's resolver and /etc/hosts (seed 001's hosts file must give
// localhost.localdomain), the numeric IPv4 sort, the hosts-file parser and Python's strip/split.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseHostsFile, pythonGetfqdn, sortIpv4, type FqdnResolver } from '../../../src/minion/index.js';
import { pySplit, pyStrip } from '../../../src/minion/py-text.js';

function resolver(opts: { hosts?: string; forward?: Record<string, string>; reverse?: Record<string, string>; hostname?: string }): FqdnResolver & { reverseAsked: string[] } {
  const r = {
    reverseAsked: [] as string[],
    lookup: async (name: string) => {
      const a = opts.forward?.[name];
      if (a === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
      return a;
    },
    lookupService: async (address: string) => {
      r.reverseAsked.push(address);
      const name = opts.reverse?.[address];
      if (name === undefined) throw new Error('EAI_NONAME');
      return name;
    },
    hostsText: async () => opts.hosts,
    hostname: async () => opts.hostname ?? 'fallback-host',
  };
  return r;
}

describe('pythonGetfqdn', () => {
  it('seed 001: "127.0.0.1 localhost.localdomain localhost node3" makes the FQDN of node3 localhost.localdomain', async () => {
    const hosts = '127.0.0.1 localhost.localdomain localhost node3\n';
    const a = await pythonGetfqdn('node3', resolver({ hosts, forward: { node3: '127.0.0.1' } }));
    assert.equal(a.name, 'localhost.localdomain');
    assert.equal(a.via, 'hosts');
    assert.equal(a.hostsEntry?.line, 1);
    assert.deepEqual(a.forwardEntry?.names, ['localhost.localdomain', 'localhost', 'node3']);
  });

  it('the seed as written: the hostname on its own 127.0.0.1 line still reverse-resolves to the first line', async () => {
    const hosts = '127.0.0.1 localhost.localdomain localhost\n127.0.0.1 node3\n';
    const a = await pythonGetfqdn('node3', resolver({ hosts, forward: { node3: '127.0.0.1' } }));
    assert.equal(a.name, 'localhost.localdomain');
    assert.equal(a.forwardEntry?.line, 2);
  });

  it('returns the first of name and aliases containing a dot, else the name found', async () => {
    const hosts = '10.0.0.7 web7 web7.example.com other.example.com\n10.0.0.8 db\n';
    assert.equal((await pythonGetfqdn('web7', resolver({ hosts, forward: { web7: '10.0.0.7' } }))).name, 'web7.example.com');
    assert.equal((await pythonGetfqdn('db', resolver({ hosts, forward: { db: '10.0.0.8' } }))).name, 'db');
  });

  it('asks getnameinfo when /etc/hosts has no line for the address, matching IPv6 in any spelling', async () => {
    const r = resolver({ hosts: '0:0:0:0:0:0:0:1 six.example\n', forward: { web: '10.1.1.1', six: '::1' }, reverse: { '10.1.1.1': 'web.dns.example' } });
    assert.deepEqual(await pythonGetfqdn('web', r), { name: 'web.dns.example', address: '10.1.1.1', via: 'resolver' });
    assert.equal((await pythonGetfqdn('six', r)).name, 'six.example');
    assert.deepEqual(r.reverseAsked, ['10.1.1.1']);
  });

  it('returns the name itself when it does not resolve, or its address has no name (getnameinfo echoes the address)', async () => {
    assert.deepEqual(await pythonGetfqdn('ghost', resolver({})), { name: 'ghost', via: 'unresolved' });
    const echo = resolver({ forward: { web: '10.1.1.1' }, reverse: { '10.1.1.1': '10.1.1.1' } });
    assert.equal((await pythonGetfqdn('web', echo)).name, 'web');
  });

  it('strips the name and uses gethostname() for an empty name or 0.0.0.0', async () => {
    const r = resolver({ hostname: 'me', hosts: '10.0.0.1 me.example.com me\n', forward: { me: '10.0.0.1' } });
    assert.equal((await pythonGetfqdn('  ', r)).name, 'me.example.com');
    assert.equal((await pythonGetfqdn('0.0.0.0', r)).name, 'me.example.com');
  });
});

describe('sortIpv4', () => {
  it('sorts numerically, not as strings, and drops duplicates', () => {
    assert.deepEqual(sortIpv4(['10.0.0.10', '9.255.0.1', '10.0.0.2', '10.0.0.10', '192.168.1.1']), ['9.255.0.1', '10.0.0.2', '10.0.0.10', '192.168.1.1']);
  });
});

describe('parseHostsFile', () => {
  it('keeps address, names, line number and text; skips comments, blank and malformed lines', () => {
    const entries = parseHostsFile('# top\n\n127.0.0.1\tlocalhost  lh # c\nnot-an-address name\n::1 ip6-localhost\r\n');
    assert.deepEqual(
      entries.map((e) => [e.address, e.names, e.line, e.text]),
      [
        ['127.0.0.1', ['localhost', 'lh'], 3, '127.0.0.1 localhost lh'],
        ['::1', ['ip6-localhost'], 5, '::1 ip6-localhost'],
      ],
    );
  });
});

describe("Python's strip and split", () => {
  it('strip keeps a BOM and removes \\x1c-\\x1f and \\x85, unlike trim()', () => {
    assert.equal(pyStrip('\uFEFFid\n'), '\uFEFFid');
    assert.equal(pyStrip('\x1c\x85id\x1f'), 'id');
    assert.deepEqual(pySplit(' a\u3000b\tc '), ['a', 'b', 'c']);
    assert.deepEqual(pySplit('   '), []);
  });
});
