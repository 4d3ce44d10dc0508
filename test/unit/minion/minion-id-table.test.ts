// Salt's acceptance cases for the ID algorithm (salt-reference §2.3), one row each, as a table.
// Rows 1, 2 and 14 use the real host for the sources Salt's test leaves real.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { generateCandidates, idOptionsFrom, resolveMinionId, systemIdSources, type ResolveIdOptions } from '../../../src/minion/index.js';
import { asMinionOptions, loadConfig } from '../../../src/config/index.js';
import { fakeSources, type FakeHost } from './id-fakes.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-idtable-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function base(extra: Partial<ResolveIdOptions> = {}): ResolveIdOptions {
  return { configuredId: '', cacheFile: path.join(tmp, 'never', 'minion_id'), caching: false, writeCache: false, lowercase: false, removeDomain: false, ...extra };
}

interface ListRow {
  row: number;
  name: string;
  host: FakeHost;
  list: string[];
}

// `_generate_minion_id` returns the whole list: compare all of it
const LIST_ROWS: ListRow[] = [
  {
    row: 3,
    name: 'test_generate_minion_id_distinct',
    host: { node: 'nodename', hostname: 'hostname', fqdn: 'hostname.domainname.blank', canon: ['attrname'], ips: ['1.2.3.4', '5.6.7.8'] },
    list: ['hostname.domainname.blank', 'nodename', 'hostname', '1.2.3.4', '5.6.7.8'],
  },
  {
    row: 4,
    name: 'test_generate_minion_id_127_name',
    host: { node: '127', hostname: '127', fqdn: '127.domainname.blank', canon: ['attrname'], ips: ['1.2.3.4', '5.6.7.8'] },
    list: ['127.domainname.blank', '127', '1.2.3.4', '5.6.7.8'],
  },
  {
    row: 5,
    name: 'test_generate_minion_id_127_name_startswith',
    host: { node: '127890', hostname: '127890', fqdn: '127890.domainname.blank', canon: ['attrname'], ips: ['1.2.3.4', '5.6.7.8'] },
    list: ['127890.domainname.blank', '127890', '1.2.3.4', '5.6.7.8'],
  },
  {
    row: 6,
    name: 'test_generate_minion_id_duplicate',
    host: { node: 'hostname', hostname: 'hostname', fqdn: 'hostname', canon: ['hostname'], ips: ['1.2.3.4', '1.2.3.4', '1.2.3.4'] },
    list: ['hostname', '1.2.3.4'],
  },
];

interface IdRow {
  row: number;
  name: string;
  host: FakeHost;
  id: string;
  source: string;
}

// `generate_minion_id` returns the first element
const ID_ROWS: IdRow[] = [
  {
    row: 7,
    name: 'test_generate_minion_id_platform_used',
    host: { node: 'very.long.and.complex.domain.name', hostname: 'hostname', fqdn: '', canon: ['hostname'], ips: ['1.2.3.4', '1.2.3.4', '1.2.3.4'] },
    id: 'very.long.and.complex.domain.name',
    source: 'nodename',
  },
  {
    row: 8,
    name: 'test_generate_minion_id_platform_localhost_filtered',
    host: { node: 'localhost', hostname: 'pick.me', fqdn: 'hostname.domainname.blank', canon: ['hostname'], ips: ['1.2.3.4', '1.2.3.4', '1.2.3.4'] },
    id: 'hostname.domainname.blank',
    source: 'fqdn',
  },
  {
    row: 11,
    name: 'test_generate_minion_id_platform_fqdn',
    host: { node: 'localhost', hostname: 'ip6-loopback', fqdn: 'pick.me', canon: ['localhost'], ips: ['127.0.0.1', '::1', 'fe00::0', 'fe02::1'] },
    id: 'pick.me',
    source: 'fqdn',
  },
  {
    row: 13,
    name: 'test_generate_minion_id_platform_ip_addr_only',
    host: { node: 'localhost', hostname: 'ip6-loopback', fqdn: 'ip6-localhost', canon: ['localhost'], ips: ['127.0.0.1', '::1', 'fe00::0', 'fe02::1', '1.2.3.4'] },
    id: '1.2.3.4',
    source: 'ip_address',
  },
  {
    row: 23,
    name: 'config_test: all host names localhost, FQDN in /etc/hostname, /etc/hosts missing',
    host: { node: 'localhost', hostname: 'localhost', fqdn: 'localhost', canon: ['localhost'], files: { '/etc/hostname': 'very.long.complex.fqdn.that.is.crazy.extra.long.example.com\n' } },
    id: 'very.long.complex.fqdn.that.is.crazy.extra.long.example.com',
    source: 'etc_hostname',
  },
];

interface FunctionRow {
  row: number;
  value: string;
  opts: Partial<ResolveIdOptions>;
  id: string;
}

// config-level rows with id_function, injected as a generator
const FUNCTION_ROWS: FunctionRow[] = [
  { row: 17, value: 'KING_BOB', opts: { lowercase: true }, id: 'king_bob' },
  { row: 18, value: 'king_bob.foo.org', opts: { removeDomain: 'foo.org' }, id: 'king_bob' },
  { row: 19, value: 'king_bob.foo.org', opts: { removeDomain: 'bar.org' }, id: 'king_bob.foo.org' },
  { row: 20, value: 'king_bob.foo.org', opts: { removeDomain: true }, id: 'king_bob' },
  { row: 21, value: 'king_bob.foo.org', opts: { removeDomain: false }, id: 'king_bob.foo.org' },
];

describe('salt-reference §2.3: candidate lists', () => {
  for (const r of LIST_ROWS) {
    it(`row ${r.row}: ${r.name}`, async () => {
      const src = fakeSources(r.host);
      const list = await generateCandidates(src);
      assert.deepEqual(list.kept, r.list);
      assert.equal(src.canonCalls, 0, 'getaddrinfo(localhost) is not consulted when a host name survived');
    });
  }
});

describe('salt-reference §2.3: generated IDs', () => {
  for (const r of ID_ROWS) {
    it(`row ${r.row}: ${r.name}`, async () => {
      const res = await resolveMinionId(base({ sources: fakeSources(r.host) }));
      assert.equal(res.id, r.id);
      assert.equal(res.source, r.source);
      assert.equal(res.isIp, r.source === 'ip_address');
    });
  }
  it('rows 11 and 13 consult getaddrinfo(localhost) only because every host name was filtered', async () => {
    const src = fakeSources(ID_ROWS.find((r) => r.row === 13)!.host);
    await resolveMinionId(base({ sources: src }));
    assert.equal(src.canonCalls, 1);
  });
});

describe('salt-reference §2.3: id_function with lowercase and domain removal', () => {
  for (const r of FUNCTION_ROWS) {
    it(`row ${r.row}: ${r.value} with ${JSON.stringify(r.opts)} gives ${r.id}`, async () => {
      const res = await resolveMinionId(base({ ...r.opts, idFunction: async () => r.value, sources: fakeSources({}) }));
      assert.equal(res.id, r.id);
      assert.equal(res.source, 'id_function');
    });
  }
  it('row 17 docstring: lowercase does not apply to a static id: or a cached id', async () => {
    const cacheFile = path.join(tmp, 'row17', 'minion_id');
    fs.mkdirSync(path.dirname(cacheFile));
    fs.writeFileSync(cacheFile, 'Cached_BOB\n');
    const fromConfig = await resolveMinionId(base({ configuredId: 'KING_BOB', lowercase: true, sources: fakeSources({}) }));
    assert.equal(fromConfig.id, 'KING_BOB');
    const fromCache = await resolveMinionId(base({ cacheFile, caching: true, lowercase: true, sources: fakeSources({}) }));
    assert.deepEqual([fromCache.id, fromCache.source], ['Cached_BOB', 'cache']);
  });
});

describe('salt-reference §2.3: config and the real host', () => {
  it('row 22: YAML id: 1234 becomes the string "1234"', async () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'row22-'));
    fs.writeFileSync(path.join(dir, 'minion'), 'id: 1234\n');
    const opts = asMinionOptions(loadConfig('minion', { configDir: dir, env: {} }));
    const res = await resolveMinionId({ ...idOptionsFrom(opts), writeCache: true, sources: fakeSources({}) });
    assert.equal(res.id, '1234');
    assert.equal(typeof res.id, 'string');
    assert.equal(res.source, 'config');
    assert.equal(fs.existsSync(path.join(dir, 'minion_id')), false, 'a configured id is never cached');
  });

  it('row 1: on this host the generated ID is non-empty', async () => {
    const res = await resolveMinionId(base({ sources: systemIdSources }));
    assert.ok(res.id.length > 0);
    assert.ok(res.candidates.length > 0);
  });

  it('row 2: non-ASCII comments in /etc/hosts are no problem and the 127 line contributes its names', async () => {
    const hosts = '# 以下为主机名解析\n## ccc\n127.0.0.1       localhost thisismyhostname     # 本机\n';
    const src = { ...systemIdSources, readFile: async (f: string) => (f === '/etc/hosts' ? hosts : undefined) };
    const list = await generateCandidates(src);
    assert.ok(list.kept.includes('thisismyhostname'), JSON.stringify(list.kept));
  });

  it('row 14: a long localhost-prefixed hostname is filtered and something else is chosen', async () => {
    const long = 'localhost-abcdefghijklmnopqrstuvwxyz-abcdefghijklmnopqrstuvwxyz';
    const src = { ...systemIdSources, hostname: async () => long };
    const res = await resolveMinionId(base({ sources: src }));
    assert.notEqual(res.id, '');
    assert.notEqual(res.id, long);
    assert.equal(res.candidates.find((c) => c.source === 'hostname')?.verdict, 'localhost_like');
  });
});
