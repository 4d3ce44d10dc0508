// The one per-source key (pre-auth caps, sign-in rate, pending keys per address): ports and the
// IPv4-mapped prefix do not matter, and an IPv6 host's /64 is one source.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatAddress, sourceKey } from '../../../src/transport/index.js';

test('sourceKey: IPv4 with or without port, IPv4-mapped IPv6, IPv6 grouped by /64, bracketed with port', () => {
  assert.equal(sourceKey('10.0.0.5'), '10.0.0.5');
  assert.equal(sourceKey('10.0.0.5:4506'), '10.0.0.5');
  assert.equal(sourceKey('::ffff:10.0.0.5'), '10.0.0.5', 'the raw socket address of an IPv4 peer on a dual-stack listener');
  assert.equal(sourceKey(formatAddress('::ffff:10.0.0.5', 999)), '10.0.0.5', 'the same peer as the session sees it');
  assert.equal(sourceKey('2001:db8:0:1::1'), '2001:db8:0:1::/64');
  assert.equal(sourceKey('2001:0db8:0000:0001:ffff:1:2:3'), '2001:db8:0:1::/64', 'another interface identifier, the same /64');
  assert.equal(sourceKey('[2001:db8:0:1:aaaa::9]:4506'), '2001:db8:0:1::/64');
  assert.equal(sourceKey(formatAddress('2001:db8:0:1:bbbb::7', 1)), '2001:db8:0:1::/64');
  assert.notEqual(sourceKey('2001:db8:0:2::1'), sourceKey('2001:db8:0:1::1'), 'another /64 is another source');
  assert.equal(sourceKey('[::1]:5555'), sourceKey('::1'));
  assert.equal(sourceKey('unknown'), 'unknown');
});
