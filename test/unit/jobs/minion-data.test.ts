// The minion_data table of the job cache file: grains per minion with the sending key's
// fingerprint, replaced on update, kept across reopening, added to files made before it existed.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { JobCache } from '../../../src/jobs/index.js';
import { isBrineError } from '../../../src/util/errors.js';
import { freshPaths } from '../../helpers/paths.js';

const freshPath = freshPaths('jobs.sqlite');

test('grains round-trip, an update replaces them, and they survive reopening', () => {
  const file = freshPath();
  const cache = JobCache.open(file);
  cache.saveMinionData({ id: 'web1', fingerprint: 'aa:bb', grains: { os: 'Debian', roles: ['web'], nested: { a: [1, null] } }, updatedAt: 1000 });
  cache.saveMinionData({ id: 'db1', fingerprint: 'cc:dd', grains: { os: 'Fedora' }, updatedAt: 1001 });
  cache.saveMinionData({ id: 'web1', fingerprint: 'ee:ff', grains: { os: 'Ubuntu' }, updatedAt: 2000 });
  assert.deepEqual(cache.getMinionData('web1'), { id: 'web1', fingerprint: 'ee:ff', grains: { os: 'Ubuntu' }, updatedAt: 2000 });
  cache.close();

  const again = JobCache.open(file);
  assert.deepEqual(
    again.listMinionData().map((r) => [r.id, r.grains.os]),
    [
      ['db1', 'Fedora'],
      ['web1', 'Ubuntu'],
    ],
  );
  assert.equal(again.deleteMinionData('web1'), true);
  assert.equal(again.deleteMinionData('web1'), false);
  assert.equal(again.getMinionData('web1'), undefined);
  again.close();
});

test('an invalid minion ID is refused before any write', () => {
  const cache = JobCache.open(freshPath());
  assert.throws(
    () => cache.saveMinionData({ id: '../etc', fingerprint: 'x', grains: {}, updatedAt: 0 }),
    (e: unknown) => isBrineError(e, 'INVALID_ID'),
  );
  assert.deepEqual(cache.listMinionData(), []);
  cache.close();
});

test('a job cache file made before minion_data existed gets the table on open', () => {
  const file = freshPath();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.exec(`CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (1);`);
  db.close();
  const cache = JobCache.open(file);
  cache.saveMinionData({ id: 'old1', fingerprint: 'f', grains: { a: 1 }, updatedAt: 5 });
  assert.equal(cache.getMinionData('old1')?.grains.a, 1);
  cache.close();
});
