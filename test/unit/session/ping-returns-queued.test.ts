// Issue 11 item 4: the minion reports its return-queue length with every heartbeat (the ping's
// optional `returnsQueued`), read at the moment the ping is sent; a minion that does not
// configure it sends pings without the field.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MasterConnection } from '../../../src/session/index.js';
import { pingSchema } from '../../../src/protocol/index.js';
import { CONN_OPTS, FakeDeps, auth, flush } from './fakes.js';

async function readyConnection(returnsQueued?: () => number) {
  const deps = new FakeDeps();
  const conn = new MasterConnection({ host: 'salt', port: 4506 }, deps, { ...CONN_OPTS, ...(returnsQueued ? { returnsQueued } : {}) }, { onClosed: () => undefined });
  conn.open();
  await flush();
  deps.lastChannel.deliver(auth('accepted'));
  return { deps, conn, ch: deps.lastChannel };
}

test('each ping carries the return-queue length at send time', async () => {
  let queued = 3;
  const { deps, conn, ch } = await readyConnection(() => queued);
  deps.clock.advance(CONN_OPTS.heartbeatIntervalMs);
  queued = 0;
  deps.clock.advance(CONN_OPTS.heartbeatIntervalMs);
  const pings = ch.sentOfType('ping');
  assert.deepEqual(
    pings.map((p) => p.returnsQueued),
    [3, 0],
  );
  // what goes on the wire passes the master's schema
  for (const p of pings) assert.equal(pingSchema.check(p, 'ping'), undefined);
  assert.match(pingSchema.check({ t: 'ping', seq: 1, returnsQueued: -1 }, 'ping') ?? '', /returnsQueued/);
  conn.close('shutdown');
});

test('without returnsQueued configured the ping has no such field', async () => {
  const { deps, conn, ch } = await readyConnection();
  deps.clock.advance(CONN_OPTS.heartbeatIntervalMs);
  const [ping] = ch.sentOfType('ping');
  assert.ok(ping);
  assert.equal('returnsQueued' in ping, false);
  conn.close('shutdown');
});
