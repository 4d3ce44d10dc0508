// One case per rule of Salt's ID algorithm beyond the §2.3 table: config as is, the cache (first
// line, BOM, localhost, machine id), the candidate order and filter, the files, the addresses,
// the fallback, lowercase, domain removal and append_domain.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { appendDomain, generateCandidates, readIdCache, removeDomain, resolveMinionId, type ResolveIdOptions } from '../../../src/minion/index.js';
import { fakeSources, type FakeHost } from './id-fakes.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-idrules-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

let n = 0;
function cacheIn(content?: string): string {
  const file = path.join(tmp, `c${++n}`, 'minion_id');
  if (content !== undefined) {
    fs.mkdirSync(path.dirname(file));
    fs.writeFileSync(file, content);
  }
  return file;
}

function resolve(host: FakeHost, extra: Partial<ResolveIdOptions> = {}) {
  return resolveMinionId({ configuredId: '', cacheFile: cacheIn(), caching: true, writeCache: true, lowercase: false, removeDomain: false, sources: fakeSources(host), ...extra });
}

describe('config id', () => {
  it('is used as is: no lowercase, no domain removal, no caching, no generation', async () => {
    const cacheFile = cacheIn('cached\n');
    const src = fakeSources({ hostname: 'web7' });
    let generated = false;
    src.hostname = async () => {
      generated = true;
      return 'web7';
    };
    const r = await resolveMinionId({ configuredId: 'Web1.Example.com', cacheFile, caching: true, writeCache: true, lowercase: true, removeDomain: true, sources: src });
    assert.deepEqual([r.id, r.source], ['Web1.Example.com', 'config']);
    assert.equal(generated, false, 'the daemon does not generate when id: is set');
    assert.equal(fs.readFileSync(cacheFile, 'utf8'), 'cached\n');
  });

  it('gets append_domain (a configured IPv4 id too: only a generated one counts as an IP)', async () => {
    assert.equal((await resolve({}, { configuredId: 'web1', appendDomain: 'example.com' })).id, 'web1.example.com');
    assert.equal((await resolve({}, { configuredId: '10.0.0.1', appendDomain: 'example.com' })).id, '10.0.0.1.example.com');
  });
});

describe('the minion_id cache', () => {
  it('wins over generation; only the first line counts, stripped, with one BOM removed after stripping', async () => {
    assert.deepEqual(await resolve({ hostname: 'web7' }, { cacheFile: cacheIn('\uFEFFcached-id  \r\nsecond\n') }).then((r) => [r.id, r.source]), ['cached-id', 'cache']);
    // Python strips whitespace first and removes the BOM after: a space behind the BOM stays, so
    // the ID would contain a space (JavaScript's trim() would have eaten the BOM first)
    assert.equal((await resolve({}, { cacheFile: cacheIn('  \uFEFF id\n') })).id, ' id');
    // Python's strip() also removes \x1c-\x1f, which trim() does not
    assert.equal((await resolve({}, { cacheFile: cacheIn('\x1cweb\x1f\n') })).id, 'web');
  });

  it('ignores a cached "localhost" and an empty first line, but keeps other localhost-like values (seed 001)', async () => {
    assert.equal((await resolve({ hostname: 'web7' }, { cacheFile: cacheIn('localhost\n') })).id, 'web7');
    assert.equal((await resolve({ hostname: 'web7' }, { cacheFile: cacheIn('\nweb-other\n') })).id, 'web7');
    const seed = await resolve({ hostname: 'web7' }, { cacheFile: cacheIn('localhost.localdomain\n') });
    assert.deepEqual([seed.id, seed.source], ['localhost.localdomain', 'cache']);
    assert.equal(seed.generated?.id, 'web7', 'what the host gives today is still worked out');
  });

  it('is neither read nor written with minion_id_caching off', async () => {
    const cacheFile = cacheIn('cached\n');
    const r = await resolve({ hostname: 'web7' }, { cacheFile, caching: false });
    assert.equal(r.id, 'web7');
    assert.equal(fs.readFileSync(cacheFile, 'utf8'), 'cached\n');
  });

  it('stores a generated ID after lowercase and domain removal, before append_domain, with the machine id on line 2', async () => {
    const cacheFile = cacheIn();
    const r = await resolve({ hostname: 'Web7.Corp.Example', machineId: 'abc123' }, { cacheFile, lowercase: true, removeDomain: 'corp.example', appendDomain: 'prod' });
    assert.equal(r.id, 'web7.prod');
    assert.equal(r.cachedTo, cacheFile);
    assert.equal(fs.readFileSync(cacheFile, 'utf8'), 'web7\nmachine_id: abc123\n');
    assert.deepEqual(readIdCache(cacheFile), { value: 'web7', machineId: 'abc123' });
    assert.deepEqual(r.steps, [
      'minion_id_lowercase changed Web7.Corp.Example to web7.corp.example',
      'minion_id_remove_domain changed web7.corp.example to web7',
      'append_domain changed web7 to web7.prod',
    ]);
  });

  it('is not written by a read-only resolution (brine doctor id), nor for an ID brine refuses', async () => {
    const ro = cacheIn();
    await resolve({ hostname: 'web7' }, { cacheFile: ro, writeCache: false });
    assert.equal(fs.existsSync(ro), false);
    const refused = cacheIn();
    const r = await resolve({ hostname: 'localhost', node: 'localhost', fqdn: 'localhost' }, { cacheFile: refused });
    assert.equal(r.id, 'localhost');
    assert.equal(fs.existsSync(refused), false, 'a cached refusal would outlive the fix');
  });

  it('reports a write failure instead of throwing, as Salt logs and carries on', async () => {
    const blocker = path.join(tmp, 'blocker');
    fs.writeFileSync(blocker, 'a file, not a directory');
    const r = await resolve({ hostname: 'web7' }, { cacheFile: path.join(blocker, 'minion_id') });
    assert.equal(r.id, 'web7');
    assert.ok(r.cache.writeError);
    assert.equal(r.cachedTo, undefined);
  });

  it('does not append the domain to the cache but does append to a cached ID (cached ids are never IPs)', async () => {
    const r = await resolve({}, { cacheFile: cacheIn('10.1.2.3\n'), appendDomain: 'example.com' });
    assert.equal(r.id, '10.1.2.3.example.com');
  });
});

describe('candidates', () => {
  it('keeps Salt order and filters with a case-sensitive prefix match', async () => {
    const list = await generateCandidates(fakeSources({ fqdn: 'LOCALHOST', node: 'localhost-foo', hostname: 'ipv6-x', ips: ['9.9.9.9'] }));
    assert.deepEqual(list.kept, ['LOCALHOST', '9.9.9.9']);
    assert.deepEqual(
      list.candidates.slice(0, 3).map((c) => [c.source, c.verdict]),
      [
        ['fqdn', 'kept'],
        ['nodename', 'localhost_like'],
        ['hostname', 'localhost_like'],
      ],
    );
  });

  it('records why each value was skipped: empty, duplicate (naming the first), localhost-like', async () => {
    const list = await generateCandidates(fakeSources({ fqdn: '', node: 'web7', hostname: 'web7' }));
    assert.deepEqual(
      list.candidates.map((c) => [c.source, c.value, c.verdict]),
      [
        ['fqdn', '', 'empty'],
        ['nodename', 'web7', 'kept'],
        ['hostname', 'web7', 'duplicate'],
      ],
    );
    assert.match(list.candidates[2]!.detail ?? '', /same as nodename/);
  });

  it('asks for the canonical names of localhost only when the three host names were all filtered', async () => {
    const src = fakeSources({ fqdn: 'localhost', node: 'localhost', hostname: 'localhost', canon: ['box.example.com'] });
    const r = await resolveMinionId({ configuredId: '', cacheFile: cacheIn(), caching: false, writeCache: false, lowercase: false, removeDomain: false, sources: src });
    assert.deepEqual([r.id, r.source], ['box.example.com', 'localhost_canonname']);
    const failing = await generateCandidates(fakeSources({ fqdn: 'localhost', node: 'localhost', hostname: 'localhost', canon: new Error('EAI_NONAME') }));
    assert.equal(failing.candidates.find((c) => c.source === 'localhost_canonname')?.verdict, 'unresolved');
  });

  it('reads /etc/hostname, /etc/nodename and /etc/hosts: all tokens of 127.*, ::1 and single-token lines only', async () => {
    const files = {
      '/etc/hostname': '  # comment only\nfrom-hostname\ntwo tokens\n',
      '/etc/nodename': 'from-nodename # trailing comment\n',
      '/etc/hosts': '10.0.0.100 myhost\n127.0.1.1 box.example.com box # c\n::1 six\n::1abc notloopback\n127foo bar\nsingle\n',
    };
    const list = await generateCandidates(fakeSources({ fqdn: 'localhost', node: 'localhost', hostname: 'localhost', canon: ['localhost'], files }));
    assert.deepEqual(list.kept, ['from-hostname', 'from-nodename', 'box.example.com', 'box', 'six', 'single']);
    const skipped = list.candidates.filter((c) => c.verdict === 'not_loopback_line').map((c) => c.value);
    assert.deepEqual(skipped, ['tokens', 'myhost', 'notloopback', 'bar']);
    const box = list.candidates.find((c) => c.value === 'box.example.com');
    assert.deepEqual([box?.source, box?.detail], ['etc_hosts', '/etc/hosts line 2']);
  });

  it('adds IPv4 addresses in the order ip_addrs() gives, dropping loopback, after every name', async () => {
    const list = await generateCandidates(
      fakeSources({ fqdn: 'localhost', node: 'localhost', hostname: 'localhost', ips: ['127.0.0.1', '10.0.0.2', '10.0.0.10'], files: { '/etc/hostname': 'named\n' } }),
    );
    assert.deepEqual(list.kept, ['named', '10.0.0.2', '10.0.0.10']);
    assert.equal(list.candidates.find((c) => c.value === '127.0.0.1' && c.source === 'ip_address')?.verdict, 'loopback_address');
  });

  it('falls back to the literal localhost when nothing survives', async () => {
    const r = await resolve({ fqdn: 'localhost', node: 'localhost', hostname: 'localhost', canon: ['localhost'] }, { caching: false });
    assert.deepEqual([r.id, r.source, r.isIp], ['localhost', 'fallback', false]);
  });

  it('marks an IPv4 ID and then skips append_domain', async () => {
    const r = await resolve({ fqdn: 'localhost', node: 'localhost', hostname: 'localhost', ips: ['192.0.2.7'] }, { caching: false, appendDomain: 'example.com' });
    assert.deepEqual([r.id, r.source, r.isIp], ['192.0.2.7', 'ip_address', true]);
  });
});

describe('lowercase, minion_id_remove_domain and append_domain', () => {
  it('lower-cases a generated ID', async () => {
    assert.equal((await resolve({ hostname: 'WEB7', node: 'WEB7', fqdn: 'WEB7' }, { lowercase: true })).id, 'web7');
  });

  it('removeDomain: true cuts at the first dot; a string removes that suffix case-insensitively', () => {
    assert.equal(removeDomain('a.b.c', true), 'a');
    assert.equal(removeDomain('plain', true), 'plain');
    assert.equal(removeDomain('web.CORP.example', 'corp.EXAMPLE'), 'web');
    assert.equal(removeDomain('web.corp.example', 'example'), 'web.corp');
    assert.equal(removeDomain('webcorp.example', 'corp.example'), 'webcorp.example', 'only a whole .domain suffix');
    assert.equal(removeDomain('web.corp.example', false), 'web.corp.example');
  });

  it('appendDomain uses a plain endswith and leaves a trailing dot alone', () => {
    assert.equal(appendDomain('web', 'example.com'), 'web.example.com');
    assert.equal(appendDomain('web.example.com', 'example.com'), 'web.example.com');
    assert.equal(appendDomain('webexample.com', 'example.com'), 'webexample.com', 'no dot check, as in Salt');
    assert.equal(appendDomain('web.', 'example.com'), 'web.');
  });

  it('applies lowercase before domain removal (Salt order)', async () => {
    assert.equal((await resolve({ fqdn: 'Web.CORP.Example' }, { lowercase: true, removeDomain: 'corp.example' })).id, 'web');
  });
});
