// The master's mine over a real job cache file: merge and clear, the size bound (nothing stored
// when over it), allow_tgt evaluated for the asker with the master's grains, the mine loaded
// again after a restart, and dropped when its key is deleted or replaced (threats.md #6).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JobCache } from '../../../src/jobs/index.js';
import { MineStore } from '../../../src/master/mine-store.js';
import { FakeClock } from '../../../src/util/clock.js';
import { silentLogger } from '../../../src/util/logger.js';
import { BrineError } from '../../../src/util/errors.js';
import { freshPaths } from '../../helpers/paths.js';

const freshPath = freshPaths('jobs.sqlite');
const clock = new FakeClock(1_700_000_000_000);
const GRAINS: Record<string, Record<string, unknown>> = { web1: { role: 'web' }, web2: { role: 'web' }, db1: { role: 'db' } };
const targeting = () => ({ grains: (id: string) => GRAINS[id], dataCache: true, nodegroups: { dbs: 'G@role:db' } });

test('entries merge per minion, clear replaces, and the mine is loaded again after a restart', () => {
  const file = freshPath();
  const store = JobCache.open(file);
  const mine = new MineStore(store, clock, silentLogger(), targeting);
  mine.send('web1', 'fp1', { a: { data: 1 }, b: { data: 2 } }, false);
  mine.send('web1', 'fp1', { b: { data: 3 } }, false);
  assert.deepEqual(mine.mineOf('web1'), { a: { data: 1 }, b: { data: 3 } });
  mine.send('web1', 'fp1', { c: { data: 4 } }, true);
  assert.deepEqual(mine.mineOf('web1'), { c: { data: 4 } });
  mine.send('db1', 'fp2', { c: { data: 5 } }, false);
  store.close();

  const store2 = JobCache.open(file);
  const restarted = new MineStore(store2, clock, silentLogger(), targeting);
  assert.deepEqual(restarted.get('web2', { tgt: '*', tgtType: 'glob', funs: ['c'] }), { c: { db1: 5, web1: 4 } });
  store2.close();
});

test('mine.get: target types with cached grains and nodegroups; delete and flush touch only the caller', () => {
  const store = JobCache.open(freshPath());
  const mine = new MineStore(store, clock, silentLogger(), targeting);
  for (const id of ['web1', 'web2', 'db1']) mine.send(id, `fp-${id}`, { ip: { data: `${id}-ip` }, ping: { data: true } }, false);
  assert.deepEqual(mine.get('web1', { tgt: 'role:db', tgtType: 'grain', funs: ['ip'] }), { ip: { db1: 'db1-ip' } });
  assert.deepEqual(mine.get('web1', { tgt: 'dbs', tgtType: 'nodegroup', funs: ['ip'] }), { ip: { db1: 'db1-ip' } });
  assert.deepEqual(mine.get('web1', { tgt: 'G@role:web and not web1', tgtType: 'compound', funs: ['ip', 'ping'] }), { ip: { web2: 'web2-ip' }, ping: { web2: true } });
  assert.deepEqual(mine.get('web1', { tgt: ['web1', 'nosuch'], tgtType: 'list', funs: ['ip'] }), { ip: { web1: 'web1-ip' } });
  assert.throws(
    () => mine.get('web1', { tgt: 'G@role:web and (', tgtType: 'compound', funs: ['ip'] }),
    (e: unknown) => e instanceof BrineError && e.code === 'TARGET_INVALID',
  );
  mine.deleteFun('web2', 'fp-web2', 'ip');
  mine.flush('db1');
  assert.deepEqual(mine.get('web1', { tgt: '*', tgtType: 'glob', funs: ['ip', 'ping'] }), { ip: { web1: 'web1-ip' }, ping: { web1: true, web2: true } });
  store.close();
});

test('allow_tgt: only askers matching it see the entry; a bad expression allows nobody', () => {
  const store = JobCache.open(freshPath());
  const mine = new MineStore(store, clock, silentLogger(), targeting);
  mine.send('db1', 'fp', { pw: { data: 's3cret', allowTgt: 'G@role:web', allowTgtType: 'compound' }, list: { data: 1, allowTgt: ['web2'], allowTgtType: 'list' } }, false);
  mine.send('web1', 'fp', { broken: { data: 2, allowTgt: 'G@role:web and (', allowTgtType: 'compound' } }, false);
  assert.deepEqual(mine.get('web1', { tgt: '*', tgtType: 'glob', funs: ['pw', 'list'] }), { pw: { db1: 's3cret' }, list: {} });
  assert.deepEqual(mine.get('web2', { tgt: '*', tgtType: 'glob', funs: ['list'] }), { list: { db1: 1 } });
  assert.deepEqual(mine.get('db1', { tgt: '*', tgtType: 'glob', funs: ['pw'] }), { pw: {} });
  assert.deepEqual(mine.get('web2', { tgt: '*', tgtType: 'glob', funs: ['broken'] }), { broken: {} });
  // an asker without cached grains is not let in by the greedy rule (it could withhold its grains)
  assert.deepEqual(mine.get('nograins', { tgt: '*', tgtType: 'glob', funs: ['pw'] }), { pw: {} });
  store.close();
});

test('a mine over 1 MiB of JSON is refused as a whole and the old one is kept', () => {
  const store = JobCache.open(freshPath());
  const mine = new MineStore(store, clock, silentLogger(), targeting);
  mine.send('web1', 'fp', { a: { data: 'x'.repeat(600_000) } }, false);
  assert.throws(
    () => mine.send('web1', 'fp', { b: { data: 'y'.repeat(600_000) } }, false),
    (e: unknown) => e instanceof BrineError && e.code === 'MINE_DATA_TOO_LARGE',
  );
  assert.deepEqual(Object.keys(mine.mineOf('web1') ?? {}), ['a']);
  // with clear the old entries do not count
  mine.send('web1', 'fp', { b: { data: 'y'.repeat(600_000) } }, true);
  assert.deepEqual(Object.keys(mine.mineOf('web1') ?? {}), ['b']);
  store.close();
});

test('reconcile drops the mine of deleted keys and of keys replaced since; a new key starts from nothing', () => {
  const file = freshPath();
  const store = JobCache.open(file);
  const mine = new MineStore(store, clock, silentLogger(), targeting);
  mine.send('kept', 'fpK', { a: { data: 1 } }, false);
  mine.send('deleted', 'fpD', { a: { data: 2 } }, false);
  mine.send('replaced', 'old-fp', { a: { data: 3 } }, false);
  const keys = new Map([
    ['kept', 'fpK'],
    ['replaced', 'new-fp'],
  ]);
  const purged = mine.reconcile(new Set(keys.keys()), { fingerprintOf: (id) => keys.get(id) });
  assert.deepEqual(purged.sort(), ['deleted', 'replaced']);
  assert.deepEqual(mine.ids(), ['kept']);
  assert.deepEqual(
    store.listMine().map((r) => r.id),
    ['kept'],
  );
  // a send under another key than the stored mine's does not inherit its entries
  mine.send('kept', 'other-fp', { b: { data: 9 } }, false);
  assert.deepEqual(mine.mineOf('kept'), { b: { data: 9 } });
  store.close();
});

test('mine.get by pillar is PILLAR_DENIED unless mine_get_pillar_targets: the answer would be an oracle on other pillars', () => {
  const PILLAR: Record<string, Record<string, unknown>> = { web1: { pw: 'abc' }, db1: { pw: 'xyz' } };
  const withPillar = () => ({ ...targeting(), pillar: (id: string) => PILLAR[id], nodegroups: { dbs: 'G@role:db', bypw: 'I@pw:x*' } });
  const store = JobCache.open(freshPath());
  const closed = new MineStore(store, clock, silentLogger(), withPillar);
  for (const id of ['web1', 'db1']) closed.send(id, `fp-${id}`, { ping: { data: true } }, false);
  const denied = (e: unknown) => e instanceof BrineError && e.code === 'PILLAR_DENIED' && /mine_get_pillar_targets/.test(e.message);
  for (const [tgt, tgtType] of [
    ['pw:x*', 'pillar'],
    ['pw:^x', 'pillar_pcre'],
    ['pw:xyz', 'pillar_exact'],
    ['I@pw:x*', 'compound'],
    ['web* or ( not J@pw:^a )', 'compound'],
    [['G@role:db', 'and', 'I@pw:x*'], 'compound'],
  ] as const) {
    assert.throws(() => closed.get('web1', { tgt, tgtType, funs: ['ping'] }), denied, `${JSON.stringify(tgt)} ${tgtType}`);
  }
  // grains, IDs and the operator's nodegroups (even one written with I@) still work
  assert.deepEqual(closed.get('web1', { tgt: 'G@role:db or web1', tgtType: 'compound', funs: ['ping'] }), { ping: { db1: true, web1: true } });
  assert.deepEqual(closed.get('web1', { tgt: 'bypw', tgtType: 'nodegroup', funs: ['ping'] }), { ping: { db1: true } });
  // a compound that does not parse is still TARGET_INVALID
  assert.throws(
    () => closed.get('web1', { tgt: 'I@pw:x and (', tgtType: 'compound', funs: ['ping'] }),
    (e: unknown) => e instanceof BrineError && e.code === 'TARGET_INVALID',
  );
  // opted in: Salt's behaviour, from the master's pillar cache
  const open = new MineStore(store, clock, silentLogger(), withPillar, true);
  assert.deepEqual(open.get('web1', { tgt: 'pw:x*', tgtType: 'pillar', funs: ['ping'] }), { ping: { db1: true } });
  assert.deepEqual(open.get('web1', { tgt: 'J@pw:^a', tgtType: 'compound', funs: ['ping'] }), { ping: { web1: true } });
  store.close();
});
