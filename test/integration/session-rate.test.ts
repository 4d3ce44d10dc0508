// Issue 8 point 3, threats.md #26: an authenticated minion that floods the master with messages
// is throttled (excess dropped and counted, a rate-limited log line), then disconnected with the
// coded reason rate_limited, while a normal minion on the same master is unaffected.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type Cluster, waitUntil, type Proc } from '../helpers/cluster.js';
import { frame } from '../helpers/raw-client.js';
import { RawPeerFixture } from '../helpers/raw-peer.js';

const RATE = { minion_msg_rate: 100, minion_msg_burst: 200, minion_msg_grace: 2 };

describe('a hyperactive authenticated minion is throttled, then disconnected (threats.md #26)', () => {
  let fx: RawPeerFixture;
  let cluster: Cluster;
  let master: Proc;

  before(async () => {
    fx = await RawPeerFixture.start({ auto_accept: true, ...RATE });
    ({ cluster, master } = fx);
  });
  after(() => fx.close());

  it('a raw client sending 2000 pings/s gets fewer pongs, a bye rate_limited and a close; the real minion keeps working', async () => {
    const c = await fx.connect();
    c.send({ t: 'hello', versions: [1], id: 'noisy', agent: 'raw-client' });
    assert.equal((await c.nextFrame(5000))?.status, 'accepted');

    // 100 pings every 50 ms until the master hangs up (bounded: 10 s)
    let sent = 0;
    const started = Date.now();
    const timer = setInterval(() => {
      if (c.isClosed || Date.now() - started > 10_000) return;
      const batch: Buffer[] = [];
      for (let i = 0; i < 100; i++) batch.push(frame({ t: 'ping', seq: sent++ }));
      c.write(Buffer.concat(batch));
    }, 50);
    try {
      await master.waitForOutput(/minion noisy sends messages faster than minion_msg_rate \(100\/s, burst 200\); dropping the excess/, 5000);
      assert.ok(await c.closedWithin(10_000), 'the flooding client is still connected after 10 s');
    } finally {
      clearInterval(timer);
    }
    const closedAfter = Date.now() - started;
    // what arrived before the close: pongs for the admitted pings, then the coded bye
    const frames: Record<string, unknown>[] = [];
    for (let f = await c.nextFrame(100); f; f = await c.nextFrame(100)) frames.push(f);
    const pongs = frames.filter((f) => f.t === 'pong').length;
    assert.deepEqual(frames.at(-1), { t: 'bye', reason: 'rate_limited' });
    assert.ok(sent > 2 * pongs, `throttled: ${pongs} pongs for ${sent} pings`);
    assert.ok(pongs <= 200 + (100 * closedAfter) / 1000 + 50, `${pongs} pongs in ${closedAfter} ms exceed burst + rate`);
    // not at the first excess: only after minion_msg_grace seconds over the limit
    assert.ok(closedAfter >= 1500, `disconnected after ${closedAfter} ms, before the 2 s grace`);

    const line = await master.waitForOutput(/^.*minion noisy disconnected \(rate_limited\).*$/m);
    assert.match(line[0], /sent more than minion_msg_rate \(100\/s, burst 200\) for 2 s in a row; \d+ messages were dropped/);
    // the throttling line is itself rate-limited: one per session per 10 s, not one per dropped ping
    assert.equal(master.output.split('\n').filter((l) => l.includes('minion noisy sends messages faster')).length, 1);

    const r = await cluster.brine(['run', 'good', 'test.ping', '-t', '10']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(r.stdout, 'good:\n    True\n');
    assert.doesNotMatch(master.output, /minion good disconnected/);
    let noisyRow: { droppedMessages?: number } | undefined;
    let noisyRows: Array<{ id: string; droppedMessages?: number }> | undefined;
    const goodRow = (rows: Array<{ id: string; droppedMessages?: number }>) => rows.find((row) => row.id === 'good');
    await waitUntil(
      async () => {
        const s = await cluster.brine(['minions', 'status', '--out', 'sessions']);
        const rows = JSON.parse(s.stdout) as Array<{ id: string; state: string; lastDisconnectReason?: string; droppedMessages?: number }>;
        noisyRows = rows;
        noisyRow = rows.find((row) => row.id === 'noisy' && row.state === 'disconnected' && row.lastDisconnectReason === 'rate_limited');
        return noisyRow;
      },
      5000,
      'brine minions status to show noisy disconnected with rate_limited',
    );
    // the dropped-message counter is surfaced per minion: at least what the disconnect line counted
    const droppedAtClose = Number(/(\d+) messages were dropped/.exec(line[0])![1]);
    assert.ok(droppedAtClose > 0, line[0]);
    assert.ok((noisyRow!.droppedMessages ?? 0) >= droppedAtClose, `${JSON.stringify(noisyRow)} vs ${droppedAtClose} dropped at close`);
    assert.equal(goodRow(noisyRows!)?.droppedMessages, undefined, 'the well-behaved minion dropped nothing');
    const table = await cluster.brine(['minions', 'status']);
    assert.match(table.stdout, /DROPPED MSGS/, table.stdout);
    assert.match(table.stdout, new RegExp(`^noisy\\s.*\\s${noisyRow!.droppedMessages}\\s+rate_limited`, 'm'), table.stdout);
  });
});
