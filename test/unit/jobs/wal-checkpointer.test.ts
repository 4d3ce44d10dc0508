import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { JobCache, JidGenerator } from '../../../src/jobs/index.js';
import { FakeClock } from '../../../src/util/clock.js';
import { freshPaths } from '../../helpers/paths.js';
import { waitUntil } from '../../helpers/wait.js';

const freshPath = freshPaths('jobs', 'cache.sqlite');

/** ~1 MiB of returns in 8 commits: far below any automatic checkpoint of the writing connection. */
function storeReturns(cache: JobCache, clock: FakeClock): string {
  const jid = new JidGenerator(clock).next();
  cache.saveJob({ jid, fun: 'state.apply', arg: [], kwarg: {}, tgt: 'emu-*', tgtType: 'glob', user: 'root', minions: [], startedAt: clock.now() });
  const ret = { states: 'x'.repeat(40_000) };
  for (let c = 0; c < 8; c++) {
    const batch = Array.from({ length: 3 }, (_, i) => ({ jid, minion: `emu-${c * 3 + i}`, fun: 'state.apply', return: ret, retcode: 0, success: true, receivedAt: clock.now() }));
    assert.deepEqual(cache.saveReturns(batch), [true, true, true]);
  }
  return jid;
}

test('checkpointInWorker: a worker thread copies the WAL into the database file while the writing connection never checkpoints', async () => {
  const file = freshPath();
  const clock = new FakeClock(Date.UTC(2026, 11, 7));
  const cache = JobCache.open(file, { clock, checkpointInWorker: true });
  let closed = false;
  try {
    const before = fs.statSync(file).size;
    const jid = storeReturns(cache, clock);
    // the returns live in the WAL until a checkpoint copies them: the database file grows only then
    assert.ok(fs.statSync(`${file}-wal`).size > 900_000, 'the returns are in the WAL');
    await waitUntil(() => fs.statSync(file).size > before + 900_000, 20_000, 'the worker to copy the WAL into the database file');
    await waitUntil(() => (cache.walCheckpointer?.checkpoints ?? 0) > 0, 20_000, 'the worker to report its checkpoint');
    assert.equal(cache.countReturns(jid), 24);
    cache.close();
    closed = true;
    // the worker closes its connection and exits: nothing is left running
    await cache.walCheckpointer?.close();
    const again = JobCache.open(file);
    try {
      assert.equal(again.countReturns(jid), 24);
    } finally {
      again.close();
    }
  } finally {
    if (!closed) cache.close();
    await cache.walCheckpointer?.close();
  }
});

test('without checkpointInWorker (the CLI readers) there is no worker and the WAL stays until the connection checkpoints', async () => {
  const file = freshPath();
  const clock = new FakeClock(Date.UTC(2026, 11, 7));
  const cache = JobCache.open(file, { clock });
  try {
    assert.equal(cache.walCheckpointer, undefined);
    const before = fs.statSync(file).size;
    storeReturns(cache, clock);
    assert.equal(fs.statSync(file).size, before, 'no checkpoint ran below the automatic one');
  } finally {
    cache.close();
  }
});
