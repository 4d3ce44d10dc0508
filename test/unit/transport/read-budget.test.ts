// The process-wide read budget (src/transport/read-budget.ts) over real loopback TCP: a burst
// read from many signed-in sockets (readUnderBudget) in one poll phase is handled READ_BUDGET_MS
// of work per event-loop turn, the rest held (the sockets paused) and handled oldest first in
// later turns, each socket's messages in order; a socket not under the budget (still signing in)
// is never held; a chunk held when its peer closes is handled before the close.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type * as net from 'node:net';
import { MASTER_MESSAGES, MINION_MESSAGES, type ChannelClose, type MasterMessage, type MinionMessage } from '../../../src/protocol/index.js';
import { FramedSocket } from '../../../src/transport/index.js';
import { MAX_HOLD_MS, READ_BUDGET_MS, heldReaders, setReadClockForTests } from '../../../src/transport/read-budget.js';
import { tcpPair } from './helpers.js';
import { waitUntil } from '../../helpers/wait.js';

type MasterSide = FramedSocket<MinionMessage, MasterMessage>;
const masterSide = (socket: net.Socket, budgeted = true): MasterSide => {
  const f = new FramedSocket<MinionMessage, MasterMessage>(socket, { remoteAddress: 'test', peerFingerprint: 'fp', maxFrame: 4096, schemas: MINION_MESSAGES });
  if (budgeted) f.readUnderBudget();
  return f;
};
const minionSide = (socket: net.Socket) => new FramedSocket<MasterMessage, MinionMessage>(socket, { remoteAddress: 'test', peerFingerprint: 'fp', maxFrame: 4096, schemas: MASTER_MESSAGES });

/** Blocks the event loop (not a sleep in the test's logic: it lets every peer's bytes reach the kernel before one poll phase). */
function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

/** Counts event-loop turns (check phases) until stopped. */
function turnCounter(t: { after(fn: () => void): void }): { now(): number } {
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
  return { now: () => turnNo };
}

test('a burst from 40 signed-in sockets is handled a budget per turn, the rest in later turns, each socket in order', async (t) => {
  // every handled message costs 3 ms of a fake clock: 5 per budget, 360 ms in all (under MAX_HOLD_MS)
  let fake = 0;
  setReadClockForTests(() => fake);
  t.after(() => setReadClockForTests(undefined));
  const cost = 3;
  const pairs = await Promise.all(Array.from({ length: 40 }, () => tcpPair(t)));
  const turns = turnCounter(t);
  const got: Array<{ socket: number; seq: number; turn: number }> = [];
  pairs.forEach(({ server }, i) => {
    masterSide(server).onMessage((m) => {
      fake += cost;
      if (m.t === 'ping') got.push({ socket: i, seq: m.seq, turn: turns.now() });
    });
  });
  const minions = pairs.map(({ client }) => minionSide(client));
  for (const m of minions) for (let seq = 0; seq < 3; seq++) m.send({ t: 'ping', seq });
  busy(50);
  await waitUntil(() => got.length === 120, 10_000, 'all 120 pings');
  const perTurn = new Map<number, number>();
  for (const g of got) perTurn.set(g.turn, (perTurn.get(g.turn) ?? 0) + 1);
  // one socket's three pings may be one chunk (9 ms): a budget window takes at most 15 ms + one
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
  assert.equal(heldReaders(), 0);
  for (const m of minions) m.close('shutdown');
});

test('a socket still signing in is never held, even in a turn whose budget is spent', async (t) => {
  let fake = 0;
  setReadClockForTests(() => fake);
  t.after(() => setReadClockForTests(undefined));
  const pairs = await Promise.all(Array.from({ length: 20 }, () => tcpPair(t)));
  const turns = turnCounter(t);
  const got: Array<{ socket: number; turn: number }> = [];
  pairs.forEach(({ server }, i) => {
    // none signed in: every message spends a whole budget
    masterSide(server, false).onMessage(() => {
      fake += READ_BUDGET_MS;
      got.push({ socket: i, turn: turns.now() });
    });
  });
  const minions = pairs.map(({ client }) => minionSide(client));
  for (const m of minions) m.send({ t: 'ping', seq: 1 });
  busy(50);
  await waitUntil(() => got.length === 20, 10_000, 'all 20 pings');
  // all read in the poll phase that found them (a budget would have taken 20 turns)
  assert.ok(new Set(got.map((g) => g.turn)).size <= 3, `read in at most 3 turns: ${got.map((g) => g.turn).join(',')}`);
  assert.equal(heldReaders(), 0);
  for (const m of minions) m.close('shutdown');
});

test('no socket is held longer than MAX_HOLD_MS: past it the held ones are handled in the next turn', async (t) => {
  // every message spends a whole budget (one socket per turn) and moves the fake clock by it
  let fake = 0;
  setReadClockForTests(() => fake);
  t.after(() => setReadClockForTests(undefined));
  const n = 2 * Math.ceil(MAX_HOLD_MS / READ_BUDGET_MS);
  const pairs = await Promise.all(Array.from({ length: n }, () => tcpPair(t)));
  const turns = turnCounter(t);
  const got: Array<{ at: number; turn: number }> = [];
  for (const { server } of pairs) {
    masterSide(server).onMessage(() => {
      got.push({ at: fake, turn: turns.now() });
      fake += READ_BUDGET_MS;
    });
  }
  const minions = pairs.map(({ client }) => minionSide(client));
  for (const m of minions) m.send({ t: 'ping', seq: 1 });
  busy(50);
  await waitUntil(() => got.length === n, 10_000, `all ${n} pings`);
  // one a turn would take n turns; once the oldest has waited MAX_HOLD_MS of the fake clock
  // (~MAX_HOLD_MS / READ_BUDGET_MS handled), the next turn handles every held one
  const turnsUsed = new Set(got.map((g) => g.turn)).size;
  assert.ok(turnsUsed <= MAX_HOLD_MS / READ_BUDGET_MS + 4, `handled in ${turnsUsed} turns: ${got.map((g) => `${g.at}@${g.turn}`).join(' ')}`);
  assert.equal(heldReaders(), 0);
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
  assert.ok(events.indexOf('b:ping') >= 0 && events.indexOf('b:ping') < events.findIndex((e) => e.startsWith('b closed')), `b's ping before its close: ${events.join(', ')}`);
});
