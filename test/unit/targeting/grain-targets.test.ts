// grain, grain_pcre and ipcidr targets: the master's greedy rule over cached grains (a minion
// with no data stays expected; minion_data_cache off expects everyone), and the minion's re-check.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { matchTarget, minionMatches, type TargetType } from '../../../src/targeting/index.js';
import { isBrineError } from '../../../src/util/errors.js';
import { GRAINS, IDS, lookup } from './fleet.js';

const matched = (tgt: string, type: TargetType, opts: { delimiter?: string; dataCache?: boolean } = {}) => matchTarget(tgt, type, IDS, { grains: lookup, ...opts }).matched;

// [type, target, expected among the five minions with data]; fresh1 (no data) is always added
const TABLE: Array<[TargetType, string, string[]]> = [
  ['grain', 'os:Debian', ['web1', 'db1', 'cache1']],
  ['grain', 'os:debian', ['web1', 'db1', 'cache1']],
  ['grain', 'os:*u*', ['web2']],
  ['grain', 'roles:web', ['web1', 'web2']],
  ['grain', 'roles:cache', ['web2', 'cache1']],
  ['grain', 'env:prod', ['web1', 'db1', 'cache1']],
  ['grain', 'nosuch:grain', []],
  ['grain_pcre', 'os:(debian|fedora)$', ['web1', 'db1', 'db2', 'cache1']],
  ['grain_pcre', 'roles:^c', ['web2', 'cache1']],
  ['grain_pcre', 'id:.*1$', ['web1', 'db1', 'cache1']],
  ['ipcidr', '10.0.0.0/16', ['web1', 'web2', 'db1', 'db2']],
  ['ipcidr', '10.0.2.0/24', ['db1', 'db2']],
  ['ipcidr', '10.0.1.12', ['web2']],
  ['ipcidr', '127.0.0.1', ['web1', 'web2']],
  ['ipcidr', '192.168.0.0/16', ['cache1']],
  ['ipcidr', '0.0.0.0/0', ['web1', 'web2', 'db1', 'db2', 'cache1']],
  ['ipcidr', 'fd00::/64', ['web1', 'db1']],
  ['ipcidr', 'fd00:0:0:0::21', ['db1']],
  ['ipcidr', '::/0', ['web1', 'web2', 'db1']],
];

test('grain, grain_pcre and ipcidr select by cached grains; a minion with no data stays expected', () => {
  for (const [type, tgt, expected] of TABLE) {
    assert.deepEqual(matched(tgt, type), [...expected, 'fresh1'], `${type} ${tgt}`);
  }
});

test('the minion re-check agrees with the master for every minion that has grains', () => {
  for (const [type, tgt, expected] of TABLE) {
    for (const [id, grains] of Object.entries(GRAINS)) {
      assert.equal(minionMatches(tgt, type, id, grains), expected.includes(id), `${type} ${tgt} on ${id}`);
    }
  }
});

test('with minion_data_cache off every accepted minion is expected', () => {
  for (const type of ['grain', 'grain_pcre'] as const) assert.deepEqual(matched('os:Nothing', type, { dataCache: false }), IDS);
  assert.deepEqual(matched('172.16.0.0/12', 'ipcidr', { dataCache: false }), IDS);
  assert.deepEqual(matched('os:Nothing', 'grain', { dataCache: true }), ['fresh1']);
});

test('--delimiter splits grain keys', () => {
  const nested = { id: 'n1', a: { 'b:c': 'x', b: { c: 'y' } } };
  const opts = { grains: () => nested };
  assert.deepEqual(matchTarget('a|b:c|x', 'grain', ['n1'], { ...opts, delimiter: '|' }).matched, ['n1']);
  assert.deepEqual(matchTarget('a:b:c:x', 'grain', ['n1'], opts).matched, [], 'with ":" the key a:b:c is y, not x');
  assert.equal(minionMatches('a|b|c|y', 'grain', 'n1', nested, '|'), true);
  assert.equal(minionMatches('a|b|c|x', 'grain', 'n1', nested, '|'), false);
});

test('bad grain and ipcidr targets are TARGET_INVALID naming the problem', () => {
  const bad: Array<[TargetType, string, RegExp]> = [
    ['grain', 'os', /not key:value/],
    ['grain', ':Debian', /not key:value/],
    ['grain_pcre', 'os:(deb', /not a valid regular expression/],
    ['ipcidr', '10.0.0.1/8', /host bits set; the network is 10\.0\.0\.0\/8/],
    ['ipcidr', '10.0.0.0/33', /prefix length/],
    ['ipcidr', 'web1', /not an IPv4 or IPv6 address/],
    ['ipcidr', '010.0.0.1', /not an IPv4 or IPv6 address/],
  ];
  for (const [type, tgt, message] of bad) {
    assert.throws(
      () => matched(tgt, type),
      (e: unknown) => isBrineError(e, 'TARGET_INVALID') && message.test(e.message),
      `${type} ${tgt}`,
    );
    assert.throws(
      () => minionMatches(tgt, type, 'web1', GRAINS.web1),
      (e: unknown) => isBrineError(e, 'TARGET_INVALID'),
      `minion ${type} ${tgt}`,
    );
  }
  assert.throws(
    () => matchTarget(['os:Debian'], 'grain', IDS),
    (e: unknown) => isBrineError(e, 'TARGET_INVALID'),
  );
});

test('a --delimiter missing from the expression is named in the error', () => {
  assert.throws(
    () => matched('os:Debian', 'grain', { delimiter: '|' }),
    (e: unknown) => isBrineError(e, 'TARGET_INVALID') && /"\|"/.test(e.message),
  );
});
