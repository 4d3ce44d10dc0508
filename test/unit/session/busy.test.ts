// A master that is busy admitting sign-ins (auth_rate) answers `busy` with retryAfter; the link
// closes with auth_busy and tries again after exactly that delay, not its own backoff.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MasterLink } from '../../../src/session/index.js';
import { CONN_OPTS, FakeDeps, auth, flush } from './fakes.js';

test('busy: retry after the master-given delay, then connect', async () => {
  const deps = new FakeDeps();
  const retries: number[] = [];
  const downs: string[] = [];
  const link = new MasterLink(
    { host: 'salt', port: 4506 },
    deps,
    CONN_OPTS,
    { backoff: { baseMs: 1000, maxMs: 8000, randomize: false }, acceptanceWaitMs: 10_000, acceptanceWaitMaxMs: 0, rejectedRetry: false },
    { onRetryScheduled: (d) => retries.push(d), onDown: (o) => downs.push(o.reason) },
  );
  link.start();
  await flush();
  deps.lastChannel.deliver(auth('busy', { retryAfter: 7.25 }));
  assert.deepEqual(downs, ['auth_busy']);
  assert.deepEqual(retries, [7250]);
  deps.clock.advance(7249);
  await flush();
  assert.equal(deps.dials.length, 1);
  deps.clock.advance(1);
  await flush();
  deps.lastChannel.deliver(auth('accepted'));
  assert.equal(link.state, 'ready');
});
