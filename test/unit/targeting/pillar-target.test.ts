// Pillar targets (-I, -J, pillar_exact, I@/J@ in compound): the master's cached pillar with
// Salt's greedy rule, and the minion's own re-check against its pillar.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { matchTarget, minionMatches } from '../../../src/targeting/index.js';

const PILLAR: Record<string, Record<string, unknown>> = {
  web1: { role: 'web', app: { tier: 'Front' }, users: ['alice', 'bob'] },
  db1: { role: 'db', app: { tier: 'back' } },
};
const ids = ['web1', 'db1', 'new1'];
const expected = (tgt: string, type: 'pillar' | 'pillar_pcre' | 'pillar_exact' | 'compound', extra: { dataCache?: boolean; delimiter?: string } = {}) =>
  matchTarget(tgt, type, ids, { pillar: (id) => PILLAR[id], grains: () => ({ os: 'Debian' }), ...extra }).matched;

test('pillar: glob on the value, nested keys, lists; a minion with no cached pillar stays expected', () => {
  assert.deepEqual(expected('role:web', 'pillar'), ['web1', 'new1']);
  assert.deepEqual(expected('app:tier:front', 'pillar'), ['web1', 'new1']);
  assert.deepEqual(expected('users:bob', 'pillar'), ['web1', 'new1']);
  assert.deepEqual(expected('role:*', 'pillar'), ['web1', 'db1', 'new1']);
});

test('pillar_pcre and pillar_exact', () => {
  assert.deepEqual(expected('role:w.b', 'pillar_pcre'), ['web1', 'new1']);
  assert.deepEqual(expected('app:tier:front', 'pillar_exact'), ['new1']);
  assert.deepEqual(expected('app:tier:Front', 'pillar_exact'), ['web1', 'new1']);
});

test('--delimiter applies to pillar targets', () => {
  assert.deepEqual(expected('app;tier;back', 'pillar', { delimiter: ';' }), ['db1', 'new1']);
});

test('I@ and J@ in compound, combined with grains; minion_data_cache off expects everyone', () => {
  assert.deepEqual(expected('I@role:db and G@os:Debian', 'compound'), ['db1', 'new1']);
  assert.deepEqual(expected('not I@role:db', 'compound'), ['web1']);
  assert.deepEqual(expected('J@role:^d', 'compound'), ['db1', 'new1']);
  assert.deepEqual(expected('I@role:db', 'pillar', { dataCache: false }), ids);
});

test('the minion re-checks against its own pillar', () => {
  assert.equal(minionMatches('role:web', 'pillar', 'web1', {}, undefined, PILLAR.web1), true);
  assert.equal(minionMatches('role:web', 'pillar', 'db1', {}, undefined, PILLAR.db1), false);
  assert.equal(minionMatches('I@role:db or web*', 'compound', 'db1', {}, undefined, PILLAR.db1), true);
  assert.equal(minionMatches('role:web', 'pillar', 'x', {}), false);
});

test('a pillar target without key:value is TARGET_INVALID', () => {
  assert.throws(
    () => expected('role', 'pillar'),
    (e: { code: string; message: string }) => e.code === 'TARGET_INVALID' && /-I target/.test(e.message),
  );
});
