// The master samples how many minions are connected (src/master/features/presence.ts) for the web
// view's one-day chart: once at start, then every SAMPLE_MS, never after stop. Fake clock, real
// job cache, key store and session table.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { JobCache } from '../../../src/jobs/index.js';
import { EventBus } from '../../../src/master/event-bus.js';
import { Presence, SAMPLE_MS } from '../../../src/master/features/presence.js';
import { KeyStore } from '../../../src/pki/index.js';
import type { CloseReason } from '../../../src/protocol/index.js';
import { FakeClock } from '../../../src/util/clock.js';
import { createLogger } from '../../../src/util/logger.js';
import { tempDir } from '../pki/helpers.js';

test('a sample at start, one every SAMPLE_MS with the connected count, none after stop', (t) => {
  const dir = tempDir(t);
  const clock = new FakeClock();
  const cache = JobCache.open(join(dir, 'jobs.sqlite'), { clock });
  t.after(() => cache.close());
  const presence = new Presence({ cache, keys: new KeyStore(join(dir, 'pki')), events: new EventBus(clock), logger: createLogger({ name: 'master', level: 'error', write: () => {} }), clock });
  const start = clock.now();
  presence.start();
  assert.deepEqual(cache.presenceSamples(0), [{ at: start, connected: 0, known: 0 }]);

  presence.sessions.attach({
    id: 'web1',
    remoteAddress: '10.0.0.7:4506',
    fingerprint: 'ab:cd',
    agent: 'brine/0.1.0',
    protocolVersion: 1,
    rttMs: 1,
    lastSeen: clock.now(),
    close: (_r: CloseReason) => undefined,
  });
  clock.advance(SAMPLE_MS - 1);
  assert.equal(cache.presenceSamples(0).length, 1, 'not before SAMPLE_MS');
  clock.advance(1);
  assert.deepEqual(cache.presenceSamples(0).at(-1), { at: start + SAMPLE_MS, connected: 1, known: 1 });

  presence.stop();
  clock.advance(SAMPLE_MS * 3);
  assert.equal(cache.presenceSamples(0).length, 2, 'the sampler stopped');
});
