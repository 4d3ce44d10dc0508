// The process-wide read budget (src/transport/read-budget.ts) over real loopback TCP: a burst
// read from many sockets in one poll phase is handled READ_BUDGET_MS of work per event-loop turn,
// the rest held (the sockets paused) and handled oldest first in later turns, each socket's
// messages in order; a chunk held when its peer closes is handled before the close.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type * as net from 'node:net';
import { MASTER_MESSAGES, MINION_MESSAGES, type ChannelClose, type MasterMessage, type MinionMessage } from '../../../src/protocol/index.js';
import { FramedSocket } from '../../../src/transport/index.js';
import { READ_BUDGET_MS, setReadClockForTests } from '../../../src/transport/read-budget.js';
import { tcpPair } from './helpers.js';
import { waitUntil } from '../../helpers/wait.js';

type MasterSide = FramedSocket<MinionMessage, MasterMessage>;
const masterSide = (socket: net.Socket): MasterSide =>
  new FramedSocket<MinionMessage, MasterMessage>(socket, { remoteAddress: 'test', peerFingerprint: 'fp', maxFrame: 4096, schemas: MINION_MESSAGES });
const minionSide = (socket: net.Socket) => new FramedSocket<MasterMessage, MinionMessage>(socket, { remoteAddress: 'test', peerFingerprint: 'fp', maxFrame: 4096, schemas: MASTER_MESSAGES });

/** Blocks the event loop (not a sleep in the test's logic: it lets every peer's bytes reach the kernel before one poll phase). */
function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

test('a burst from 40 sockets is handled a budget per turn, the rest in later turns, each socket in order', async (t) => {
  // every handled message costs 5 ms of a fake clock: 4 per budget
  let fake = 0;
  setReadClockForTests(() => fake);
  t.after(() => setReadClockForTests(undefined));
  const cost = 5;
  const pairs = await Promise.all(Array.from({ length: 40 }, () => tcpPair(t)));
  let turnNo = 0;
  let counting = true;
  const count = () => {
    turnNo++;
    if (counting) setImmediate(count);
  };
  setImmediate(count);
  t.after(() => {
    counting = false;
  });
  const got: Array<{ socket: number; seq: number; turn: number }> = [];
  pairs.forEach(({ server }, i) => {
    masterSide(server).onMessage((m) => {
      fake += cost;
      if (m.t === 'ping') got.push({ socket: i, seq: m.seq, turn: turnNo });
    });
  });
  const minions = pairs.map(({ client }) => minionSide(client));
  for (const m of minions) for (let seq = 0; seq < 3; seq++) m.send({ t: 'ping', seq });
  busy(50);
  await waitUntil(() => got.length === 120, 10_000, 'all 120 pings');
  const perTurn = new Map<number, number>();
  for (const g of got) perTurn.set(g.turn, (perTurn.get(g.turn) ?? 0) + 1);
  // one socket's three pings may be one chunk (15 ms): a budget window takes at most 20 ms + one
  // chunk, and a counted turn spans at most two budget windows
  const most = Math.max(...perTurn.values());
  assert.ok(most <= 2 * (READ_BUDGET_MS / cost + 3), `at most two budgets of pings in one turn, got ${most}`);
  assert.ok(perTurn.size >= 120 / (2 * (READ_BUDGET_MS / cost + 3)), `spread over turns: ${perTurn.size}`);
  for (let i = 0; i < 40; i++) {
    assert.deepEqual(
      got.filter((g) => g.socket === i).map((g) => g.seq),
      [0, 1, 2],
      `socket ${i} in order`,
    );
  }
  for (const m of minions) m.close('shutdown');
});

test('a chunk held when its peer closes is handled before the close', async (t) => {
  let fake = 0;
  setReadClockForTests(() => fake);
  t.after(() => setReadClockForTests(undefined));
  const a = await tcpPair(t);
  const b = await tcpPair(t);
  const events: string[] = [];
  const ma = masterSide(a.server);
  ma.onMessage(() => {
    // the first message spends far more than a turn's budget
    fake += 10 * READ_BUDGET_MS;
    events.push('a');
  });
  const mb = masterSide(b.server);
  mb.onMessage((m) => events.push(`b:${m.t}`));
  mb.onClose((c: ChannelClose) => events.push(`b closed:${c.reason}`));
  minionSide(a.client).send({ t: 'ping', seq: 1 });
  const cb = minionSide(b.client);
  cb.send({ t: 'ping', seq: 2 });
  b.client.destroy();
  busy(50);
  await waitUntil(() => events.some((e) => e.startsWith('b closed')), 10_000, 'b closed');
  assert.deepEqual(events.slice(0, 1), ['a']);
  assert.ok(events.indexOf('b:ping') > 0 && events.indexOf('b:ping') < events.findIndex((e) => e.startsWith('b closed')), `b's ping before its close: ${events.join(', ')}`);
});
