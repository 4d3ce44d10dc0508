// The presence history in the job cache file (issue 8 point 10): it survives reopening the file
// (a master restart), and it is bounded: one hour, a cap per minion and a cap in total.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { JobCache, PRESENCE_WINDOW_MS } from '../../../src/jobs/index.js';
import { PRESENCE_SCHEMA, PresenceHistoryTable } from '../../../src/jobs/presence-history.js';
import { SessionTable, type LiveSession } from '../../../src/master/session-table.js';
import type { CloseReason } from '../../../src/protocol/index.js';
import { FakeClock } from '../../../src/util/clock.js';
import { freshPaths } from '../../helpers/paths.js';

const freshPath = freshPaths('jobs.sqlite');

function session(id: string, clock: FakeClock, remote = '10.0.0.7:4506'): LiveSession {
  return { id, remoteAddress: remote, fingerprint: 'ab:cd', agent: 'brine/0.1.0', protocolVersion: 1, rttMs: 1.5, lastSeen: clock.now(), close: (_r: CloseReason) => undefined };
}

test('drops, reconnects and the last disconnect survive reopening the cache (a master restart)', () => {
  const file = freshPath();
  const clock = new FakeClock();
  let cache = JobCache.open(file, { clock });
  let table = new SessionTable(clock, { store: cache });
  // up 240 s, then dropped by a middlebox: three times, with a clean stop in between
  for (let i = 0; i < 3; i++) {
    const s = session('web1', clock);
    table.attach(s);
    clock.advance(240_000);
    table.detach(s, 'heartbeat_timeout');
    clock.advance(5_000);
  }
  const planned = session('web1', clock);
  table.attach(planned);
  clock.advance(1_000);
  table.detach(planned, 'shutdown');
  const before = table.info('web1')!;
  assert.equal(before.drops, 3);
  assert.equal(before.flapping, true);
  cache.close();

  cache = JobCache.open(file, { clock });
  table = new SessionTable(clock, { store: cache });
  const info = table.info('web1')!;
  assert.deepEqual(info, before);
  assert.equal(info.state, 'disconnected');
  assert.equal(info.reconnects, 3);
  assert.equal(info.typicalConnectedMs, 240_000);
  assert.equal(info.lastDisconnectReason, 'shutdown');
  assert.equal(info.remote, '10.0.0.7:4506');
  assert.equal(info.rttMs, 1.5);

  // an hour later the history has aged out, in memory and in the file
  clock.advance(PRESENCE_WINDOW_MS);
  assert.equal(table.info('web1')!.drops, undefined);
  cache.close();
  cache = JobCache.open(file, { clock });
  const reloaded = new SessionTable(clock, { store: cache }).info('web1')!;
  assert.equal(reloaded.drops, undefined);
  assert.equal(reloaded.reconnects, 0);
  cache.close();
});

test('forget removes the ID from the file too (a deleted key leaves no history behind)', () => {
  const file = freshPath();
  const clock = new FakeClock();
  const cache = JobCache.open(file, { clock });
  const table = new SessionTable(clock, { store: cache });
  const s = session('gone', clock);
  table.attach(s);
  table.detach(s, 'reset');
  table.forget('gone');
  assert.deepEqual(cache.loadPresence(), []);
  assert.equal(new SessionTable(clock, { store: cache }).info('gone'), undefined);
  cache.close();
});

test('bounded: at most perMinion rows of each kind per minion, and total rows across minions', () => {
  const db = new Database(':memory:');
  db.exec(PRESENCE_SCHEMA);
  const t = new PresenceHistoryTable(db, { perMinion: 5, total: 12 });
  const now = 1_700_000_000_000;
  for (let i = 0; i < 20; i++) {
    t.connect('busy', now + i, { remote: `10.0.0.1:${i}` });
    t.disconnect('busy', { lastDisconnectReason: 'reset', lastDisconnectAt: now + i }, { at: now + i, reason: 'reset', connectedForMs: i, silentForMs: 0 });
  }
  const [busy] = t.load(0);
  assert.deepEqual(
    busy!.connects,
    [15, 16, 17, 18, 19].map((i) => now + i),
    'the newest five connects',
  );
  assert.deepEqual(
    busy!.drops.map((d) => d.connectedForMs),
    [15, 16, 17, 18, 19],
  );
  assert.deepEqual([busy!.last.lastDisconnectReason, busy!.last.lastDisconnectAt], ['reset', now + 19], 'the last row is replaced, not appended');

  ['a', 'b', 'c'].forEach((id, k) => {
    for (let i = 0; i < 5; i++) t.connect(id, now + 100 + k * 10 + i, {});
  });
  t.prune(now + 200);
  const count = (db.prepare('SELECT COUNT(*) AS n FROM presence_history').get() as { n: number }).n;
  assert.equal(count, 12, 'the total bound keeps the newest rows');
  const kept = t.load(0);
  assert.equal(kept.find((r) => r.id === 'busy')?.connects.length ?? 0, 0, 'the oldest rows went first');
  assert.deepEqual(
    kept.filter((r) => r.connects.length > 0).map((r) => [r.id, r.connects.length]),
    [
      ['a', 2],
      ['b', 5],
      ['c', 5],
    ],
  );

  t.prune(now + PRESENCE_WINDOW_MS + 1_000);
  assert.equal((db.prepare('SELECT COUNT(*) AS n FROM presence_history').get() as { n: number }).n, 0, 'nothing older than the window');
  db.close();
});

test('a failing store is reported, and presence keeps working from memory', () => {
  const clock = new FakeClock();
  const errors: string[] = [];
  const store = {
    recordConnect: () => {
      throw new Error('disk full');
    },
    recordDisconnect: () => {
      throw new Error('disk full');
    },
    loadPresence: () => [],
    forgetPresence: () => undefined,
  };
  const table = new SessionTable(clock, { store, onStoreError: (_e, doing) => errors.push(doing) });
  const s = session('web1', clock);
  table.attach(s);
  table.detach(s, 'reset');
  assert.deepEqual(errors, ['recording the connect of web1', 'recording the disconnect of web1']);
  assert.equal(table.info('web1')!.drops, 1);
});

test('batchWrites: the presence changes of one turn are committed together at its end, and flush() writes them at once', async () => {
  const file = freshPath();
  const clock = new FakeClock();
  const cache = JobCache.open(file, { clock });
  let batches = 0;
  const store = {
    recordConnect: cache.recordConnect.bind(cache),
    recordDisconnect: cache.recordDisconnect.bind(cache),
    loadPresence: cache.loadPresence.bind(cache),
    forgetPresence: cache.forgetPresence.bind(cache),
    batch: (fn: () => void) => {
      batches++;
      cache.batch(fn);
    },
  };
  const table = new SessionTable(clock, { store, batchWrites: true });
  for (let i = 0; i < 50; i++) table.attach(session(`m${i}`, clock));
  assert.deepEqual(cache.loadPresence(), [], 'nothing written within the turn');
  assert.equal(table.connectedCount, 50, 'memory is up to date at once');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(batches, 1, 'one transaction for the 50 sign-ins');
  assert.equal(cache.loadPresence().length, 50);
  // a stop flushes what the turn has not written yet
  const s = table.get('m0')!;
  table.detach(s, 'heartbeat_timeout');
  table.flush();
  assert.equal(batches, 2);
  assert.equal(cache.loadPresence().find((r) => r.id === 'm0')?.last.lastDisconnectReason, 'heartbeat_timeout');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(batches, 2, 'nothing left for the scheduled flush');
  cache.close();
});

test('batchWrites: a failing write is reported and the others of its batch are kept', async () => {
  const file = freshPath();
  const clock = new FakeClock();
  const cache = JobCache.open(file, { clock });
  const errors: string[] = [];
  const store = {
    recordConnect: (id: string, at: number, last: Parameters<JobCache['recordConnect']>[2]) => {
      if (id === 'bad') throw new Error('disk full');
      cache.recordConnect(id, at, last);
    },
    recordDisconnect: cache.recordDisconnect.bind(cache),
    loadPresence: cache.loadPresence.bind(cache),
    forgetPresence: cache.forgetPresence.bind(cache),
    batch: cache.batch.bind(cache),
  };
  const table = new SessionTable(clock, { store, batchWrites: true, onStoreError: (_e, doing) => errors.push(doing) });
  table.attach(session('good1', clock));
  table.attach(session('bad', clock));
  table.attach(session('good2', clock));
  table.flush();
  assert.deepEqual(errors, ['recording the connect of bad']);
  assert.deepEqual(
    cache
      .loadPresence()
      .map((r) => r.id)
      .sort(),
    ['good1', 'good2'],
  );
  cache.close();
});
