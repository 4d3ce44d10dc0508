// The master's minion data cache over a real job cache file: grains kept in memory and on disk,
// loaded again after a restart, nothing kept when minion_data_cache is off, and data dropped
// when its key is no longer accepted or was replaced (threats.md #6).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JobCache } from '../../../src/jobs/index.js';
import { MinionDataCache } from '../../../src/master/minion-data-cache.js';
import { FakeClock } from '../../../src/util/clock.js';
import { silentLogger } from '../../../src/util/logger.js';
import { freshPaths } from '../../helpers/paths.js';

const freshPath = freshPaths('jobs.sqlite');
const clock = new FakeClock(1_700_000_000_000);

test('grains are kept in memory and on disk, and loaded again after a restart', () => {
  const file = freshPath();
  const store = JobCache.open(file);
  const cache = new MinionDataCache(store, clock, silentLogger(), true);
  cache.put('web1', 'fp1', { os: 'Debian' });
  cache.put('web1', 'fp1', { os: 'Ubuntu' });
  assert.deepEqual(cache.grainsOf('web1'), { os: 'Ubuntu' });
  assert.equal(cache.grainsOf('db1'), undefined);
  store.close();

  const store2 = JobCache.open(file);
  const restarted = new MinionDataCache(store2, clock, silentLogger(), true);
  assert.deepEqual(restarted.grainsOf('web1'), { os: 'Ubuntu' });
  assert.equal(store2.getMinionData('web1')?.updatedAt, clock.now());
  store2.close();
});

test('with minion_data_cache off nothing is kept or loaded', () => {
  const file = freshPath();
  const store = JobCache.open(file);
  store.saveMinionData({ id: 'old', fingerprint: 'f', grains: { a: 1 }, updatedAt: 0 });
  const cache = new MinionDataCache(store, clock, silentLogger(), false);
  assert.equal(cache.grainsOf('old'), undefined);
  cache.put('web1', 'fp', { os: 'Debian' });
  assert.equal(cache.grainsOf('web1'), undefined);
  assert.equal(store.getMinionData('web1'), undefined);
  store.close();
});

test('reconcile drops IDs no longer accepted and data sent under a replaced key', () => {
  const store = JobCache.open(freshPath());
  const cache = new MinionDataCache(store, clock, silentLogger(), true);
  cache.put('kept', 'fpK', { a: 1 });
  cache.put('deleted', 'fpD', { a: 2 });
  cache.put('replaced', 'old-fp', { a: 3 });
  const keys = new Map([
    ['kept', { fp: 'fpK' }],
    ['replaced', { fp: 'new-fp' }],
  ]);
  const view = { fingerprintOf: (id: string) => keys.get(id)?.fp };
  const purged = cache.reconcile(new Set(keys.keys()), cache.ids(), view);
  assert.deepEqual(purged.sort(), ['deleted', 'replaced']);
  assert.deepEqual(cache.ids(), ['kept']);
  assert.equal(store.getMinionData('deleted'), undefined, 'purged on disk too');
  assert.equal(store.getMinionData('replaced'), undefined);
  assert.deepEqual(store.getMinionData('kept')?.grains, { a: 1 });

  assert.deepEqual(cache.reconcile(new Set(keys.keys()), cache.ids(), view), [], 'unchanged keys keep their data');
  keys.set('kept', { fp: 'other' });
  assert.deepEqual(cache.reconcile(new Set(keys.keys()), cache.ids(), view), ['kept'], 'a new key file is checked');
  store.close();
});

test('purge forgets one minion', () => {
  const store = JobCache.open(freshPath());
  const cache = new MinionDataCache(store, clock, silentLogger(), true);
  cache.put('a', 'f', { x: 1 });
  assert.equal(cache.purge('a'), true);
  assert.equal(cache.purge('a'), false);
  assert.equal(cache.grainsOf('a'), undefined);
  store.close();
});
