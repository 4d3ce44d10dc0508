// Address and network parsing for ipcidr targets, as Python's ipaddress accepts them.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatIp, inNetwork, parseIpAddress, parseIpNetwork } from '../../../src/targeting/index.js';

test('valid addresses parse and print in canonical form', () => {
  const cases: Array<[string, string]> = [
    ['10.0.0.1', '10.0.0.1'],
    ['0.0.0.0', '0.0.0.0'],
    ['255.255.255.255', '255.255.255.255'],
    ['::1', '::1'],
    ['::', '::'],
    ['FD00:0:0:0:0:0:0:21', 'fd00::21'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['fe80::1%eth0', 'fe80::1'],
    // an IPv4-mapped address keeps its dotted tail (RFC 5952 section 5, Python 3.13's str())
    ['::ffff:10.0.0.1', '::ffff:10.0.0.1'],
    ['::ffff:a00:1', '::ffff:10.0.0.1'],
    ['1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8'],
  ];
  for (const [text, canonical] of cases) {
    const a = parseIpAddress(text);
    assert.ok(a, text);
    assert.equal(formatIp(a), canonical, text);
  }
});

test('invalid addresses are refused', () => {
  for (const text of ['', '10.0.0', '10.0.0.256', '010.0.0.1', '1.2.3.4.5', 'a.b.c.d', '1:2:3:4:5:6:7:8:9', '1::2::3', '1:2:3:4:5:6:7::8', '12345::', '1.2.3.4::', ':::', 'web1', ' 10.0.0.1']) {
    assert.equal(parseIpAddress(text), undefined, JSON.stringify(text));
  }
});

test('networks: prefix bounds, strict host bits, membership by family', () => {
  const net = parseIpNetwork('10.1.0.0/16');
  assert.ok('network' in net);
  assert.equal(inNetwork(parseIpAddress('10.1.255.3')!, net.network), true);
  assert.equal(inNetwork(parseIpAddress('10.2.0.1')!, net.network), false);
  assert.equal(inNetwork(parseIpAddress('::a01:1')!, net.network), false, 'an IPv6 address is never in an IPv4 network');
  const v6 = parseIpNetwork('fd00::/8');
  assert.ok('network' in v6);
  assert.equal(inNetwork(parseIpAddress('fdff::1')!, v6.network), true);
  assert.equal(inNetwork(parseIpAddress('fe00::1')!, v6.network), false);
  const host = parseIpNetwork('10.0.0.5');
  assert.ok('network' in host && host.network.prefix === 32);
  assert.deepEqual(parseIpNetwork('10.0.0.5/24'), { problem: '10.0.0.5/24 has host bits set; the network is 10.0.0.0/24' });
  assert.ok('problem' in parseIpNetwork('10.0.0.0/33'));
  assert.ok('problem' in parseIpNetwork('::/129'));
  assert.ok('problem' in parseIpNetwork('10.0.0.0/'));
  assert.ok('problem' in parseIpNetwork('10.0.0.0/a'));
});

test('node:net-backed details: IPv6 host bits name the network, a mapped IPv6 address is not in an IPv4 network', () => {
  assert.deepEqual(parseIpNetwork('fd00::1/8'), { problem: 'fd00::1/8 has host bits set; the network is fd00::/8' });
  assert.deepEqual(parseIpNetwork('2001:db8::ffff:1/100'), { problem: '2001:db8::ffff:1/100 has host bits set; the network is 2001:db8::f000:0/100' });
  const v4 = parseIpNetwork('10.0.0.0/8');
  assert.ok('network' in v4);
  // BlockList alone would say yes here; Python's ipaddress never compares across families
  assert.equal(inNetwork(parseIpAddress('::ffff:10.1.2.3')!, v4.network), false);
  const mapped = parseIpNetwork('::ffff:10.0.0.0/104');
  assert.ok('network' in mapped);
  assert.equal(inNetwork(parseIpAddress('::ffff:10.9.9.9')!, mapped.network), true);
  assert.equal(inNetwork(parseIpAddress('::ffff:11.0.0.1')!, mapped.network), false);
});
