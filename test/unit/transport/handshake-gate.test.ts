// Handshake pacing (issue 12, the reconnect storm): at most `concurrency` handshakes at once,
// brine dialers held briefly or told when to come back at spaced, reserved times, plain TLS
// dialers queued, and the rate learned from what the master actually completes. Fake clock.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../../src/util/clock.js';
import { HandshakeGate, type GateTicket } from '../../../src/transport/handshake-gate.js';

function makeGate(opts: Partial<{ concurrency: number; maxRatePerSecond: number; maxHoldMs: number; legacyWaitMs: number; loadSample: () => number }> = {}) {
  const clock = new FakeClock();
  const log: string[] = [];
  const busy: Array<{ id: string; ms: number }> = [];
  const gate = new HandshakeGate<string>(
    clock,
    { concurrency: 2, maxRatePerSecond: 100, maxHoldMs: 1000, legacyWaitMs: 5000, ...opts },
    {
      grant: (id) => log.push(`grant ${id}`),
      turnAway: (id, ms) => {
        log.push(`away ${id}`);
        busy.push({ id, ms });
      },
      expire: (id) => log.push(`expire ${id}`),
    },
    () => 0.5,
  );
  return { clock, gate, log, busy };
}

test('grants up to concurrency at once, queues the next in order, and hands each freed slot on', () => {
  const { gate, log } = makeGate();
  assert.deepEqual(gate.request('a', true, 5000), { kind: 'go' });
  assert.deepEqual(gate.request('b', true, 5000), { kind: 'go' });
  assert.equal(gate.request('c', true, 5000).kind, 'queued');
  assert.equal(gate.request('d', false).kind, 'queued');
  assert.equal(gate.handshakesInFlight, 2);
  assert.equal(gate.waiting, 2);
  gate.done();
  assert.deepEqual(log, ['grant c']);
  gate.done();
  assert.deepEqual(log, ['grant c', 'grant d']);
  assert.equal(gate.handshakesInFlight, 2);
  assert.equal(gate.waiting, 0);
  gate.done();
  gate.done();
  assert.equal(gate.handshakesInFlight, 0);
  // nobody waiting and a free slot: straight in
  assert.deepEqual(gate.request('e', true, 5000), { kind: 'go' });
});

test('a cancelled waiter (its connection closed) is skipped when a slot frees', () => {
  const { gate, log } = makeGate({ concurrency: 1 });
  gate.request('a', true, 5000);
  const b = gate.request('b', true, 5000) as { kind: 'queued'; ticket: GateTicket };
  gate.request('c', true, 5000);
  b.ticket.cancel();
  gate.done();
  assert.deepEqual(log, ['grant c']);
});

test('when the wait would exceed the hold, a brine dialer is told to come back, at spaced reserved times', () => {
  // 100 handshakes/s planned: each slot is 10 ms; hold 1000 ms covers 100 waiters
  const { gate } = makeGate({ concurrency: 1, maxRatePerSecond: 100, maxHoldMs: 1000 });
  gate.request('first', true, 5000);
  for (let i = 0; i < 100; i++) assert.equal(gate.request(`w${i}`, true, 5000).kind, 'queued');
  const answers = [];
  for (let i = 0; i < 5; i++) {
    const a = gate.request(`late${i}`, true, 5000);
    assert.equal(a.kind, 'busy');
    answers.push((a as { retryAfterMs: number }).retryAfterMs);
  }
  // behind 100 waiters and 1 in flight (1010 ms of work), then 10 ms apart each
  assert.equal(answers[0], 1020);
  for (let i = 1; i < answers.length; i++) assert.equal(answers[i]! - answers[i - 1]!, 10);
  assert.equal(gate.turnedAway, 5);
});

test("the hold is at most a quarter of the dialer's own patience", () => {
  const { gate } = makeGate({ concurrency: 1, maxRatePerSecond: 100, maxHoldMs: 1000 });
  gate.request('first', true, 5000);
  // one ahead = 20 ms of expected wait: fine for a patient dialer, too long for one of 60 ms
  assert.equal(gate.request('patient', true, 5000).kind, 'queued');
  assert.equal(gate.request('hasty', true, 60).kind, 'busy');
});

test('plain TLS dialers are never turned away, only queued, and dropped after legacyWaitMs', () => {
  const { gate, clock, log } = makeGate({ concurrency: 1, maxRatePerSecond: 1, maxHoldMs: 1000, legacyWaitMs: 3000 });
  gate.request('a', true, 5000);
  for (let i = 0; i < 10; i++) assert.equal(gate.request(`tls${i}`, false).kind, 'queued');
  clock.advance(2900);
  gate.sweep();
  assert.equal(log.length, 0);
  clock.advance(200);
  gate.sweep();
  assert.equal(log.filter((l) => l.startsWith('expire')).length, 10);
  assert.equal(gate.turnedAway, 0);
});

test('a brine dialer held past its deadline is turned away with a reserved time by the sweep', () => {
  const { gate, clock, log, busy } = makeGate({ concurrency: 1, maxRatePerSecond: 100, maxHoldMs: 500 });
  gate.request('a', true, 5000);
  assert.equal(gate.request('b', true, 5000).kind, 'queued');
  clock.advance(400);
  gate.sweep();
  assert.deepEqual(log, []);
  clock.advance(200);
  gate.sweep();
  assert.deepEqual(log, ['away b']);
  assert.ok(busy[0]!.ms >= 10, `a come-back time in the future: ${busy[0]!.ms}`);
  // its slot in the queue is gone: a freed slot grants nobody
  gate.done();
  assert.deepEqual(log, ['away b']);
});

test('learns the rate the master manages while saturated, and plans come-back times with it', () => {
  const { gate, clock } = makeGate({ concurrency: 4, maxRatePerSecond: 1000, maxHoldMs: 1000 });
  assert.equal(gate.plannedRate, 1000);
  for (let i = 0; i < 4; i++) gate.request(`s${i}`, true, 5000);
  // the master completes 100 handshakes a second, the gate full all the time
  for (let ms = 0; ms < 6000; ms += 10) {
    clock.advance(10);
    gate.done(40);
    gate.request(`n${ms}`, true, 5000);
    if (ms % 100 === 0) gate.sweep();
  }
  assert.ok(gate.plannedRate > 80 && gate.plannedRate < 130, `planned ${gate.plannedRate}/s, the master did 100/s`);
});

test('an idle gate learns nothing (a quiet master is not a slow one)', () => {
  const { gate, clock } = makeGate({ concurrency: 4, maxRatePerSecond: 1000 });
  for (let ms = 0; ms < 5000; ms += 100) {
    clock.advance(100);
    gate.request(`x${ms}`, true, 5000);
    gate.done(5);
    gate.sweep();
  }
  assert.equal(gate.plannedRate, 1000);
});

test('the limit adapts: it starts at 32, shrinks while handshakes are slower than the target, and grows back while they are fast and the gate is full', () => {
  const { gate, clock } = makeGate({ concurrency: 128, maxRatePerSecond: 1000, maxHoldMs: 1000 });
  assert.equal(gate.currentLimit, 32);
  let n = 0;
  const fill = () => {
    while (gate.request(`c${n++}`, false).kind === 'go');
  };
  fill();
  assert.equal(gate.handshakesInFlight, 32);
  // a starved side: every handshake takes 3 s
  for (let s = 0; s < 5; s++) {
    for (let k = 0; k < 10; k++) {
      clock.advance(100);
      gate.done(3000);
      fill();
      gate.sweep();
    }
  }
  assert.ok(gate.currentLimit <= 8, `shrunk to ${gate.currentLimit}`);
  assert.ok(gate.currentLimit >= 4, 'never below 4');
  // healthy again: 20 ms handshakes, always someone waiting
  for (let s = 0; s < 40; s++) {
    for (let k = 0; k < 10; k++) {
      clock.advance(100);
      for (let j = 0; j < gate.currentLimit; j++) gate.done(20);
      fill();
      gate.sweep();
    }
  }
  assert.equal(gate.currentLimit, 128, 'back to the configured most');
});

test('granted sign-ins that fail (dialers giving up) shrink the limit even when the ones that finish are fast', () => {
  const { gate, clock } = makeGate({ concurrency: 128, maxRatePerSecond: 1000, maxHoldMs: 1000 });
  let n = 0;
  const fill = () => {
    while (gate.request(`c${n++}`, false).kind === 'go');
  };
  fill();
  for (let s = 0; s < 3; s++) {
    for (let k = 0; k < 10; k++) {
      clock.advance(100);
      gate.done(50);
      gate.failed();
      gate.failed();
      fill();
      gate.sweep();
    }
  }
  assert.ok(gate.currentLimit < 32, `shrunk from 32 to ${gate.currentLimit}`);
});

/** Runs `seconds` of a full gate whose handshakes take `ms` each; `fail` of every 10 fail. */
function drive(gate: HandshakeGate<string>, clock: FakeClock, seconds: number, ms: number, fail = 0) {
  let n = 0;
  const fill = () => {
    while (gate.request(`d${n++}`, false).kind === 'go');
  };
  fill();
  for (let s = 0; s < seconds; s++) {
    for (let k = 0; k < 10; k++) {
      clock.advance(100);
      if (k < fail) gate.failed();
      else gate.done(ms);
      fill();
      gate.sweep();
    }
  }
}

test("slow sign-ins on a master with time to spare are the peers' doing: the limit does not shrink, it grows while they finish in time", () => {
  let load = 0.3;
  const { gate, clock } = makeGate({ concurrency: 128, maxRatePerSecond: 1000, maxHoldMs: 1000, loadSample: () => load });
  assert.equal(gate.currentLimit, 32);
  // 1.5 s sign-ins (a starved client), the master's event loop 30% busy
  drive(gate, clock, 5, 1500);
  assert.ok(gate.currentLimit > 32, `grew from 32 to ${gate.currentLimit}`);
  const grown = gate.currentLimit;
  // 3 s sign-ins: too close to a dialer's patience to add more, but not the master's fault
  drive(gate, clock, 3, 3000);
  assert.equal(gate.currentLimit, grown, 'held, neither shrunk nor grown');
  // the same slow sign-ins while the master is the busy side: now it shrinks
  load = 0.95;
  drive(gate, clock, 3, 1500);
  assert.ok(gate.currentLimit < grown * 0.5, `shrunk from ${grown} to ${gate.currentLimit}`);
});

test('on a master with time to spare, come-back times follow the limit up (slots / sign-in time), not only the rate learned while peers were slow', () => {
  let load = 0.3;
  const { gate, clock } = makeGate({ concurrency: 128, maxRatePerSecond: 1000, maxHoldMs: 1000, loadSample: () => load });
  // slow peers: 500 ms sign-ins, the gate full, 10 completed a second (what the master learns)
  drive(gate, clock, 8, 500);
  const limit = gate.currentLimit;
  assert.ok(limit > 64, `the limit grew to ${limit}`);
  // Little's law at the grown limit, not the early figure
  assert.ok(gate.plannedRate >= (limit * 1000) / 500 - 1, `planned ${gate.plannedRate}/s at limit ${limit}`);
  // the same figures on a busy master: only what it managed counts
  load = 0.95;
  drive(gate, clock, 1, 500);
  assert.ok(gate.plannedRate < (gate.currentLimit * 1000) / 500, `planned ${gate.plannedRate}/s on a busy master`);
});

test('failed sign-ins shrink the limit even on a master with time to spare', () => {
  const { gate, clock } = makeGate({ concurrency: 128, maxRatePerSecond: 1000, maxHoldMs: 1000, loadSample: () => 0.1 });
  drive(gate, clock, 3, 50, 3);
  assert.ok(gate.currentLimit < 32, `shrunk from 32 to ${gate.currentLimit}`);
  assert.ok(gate.currentLimit >= 4, 'never below 4');
});

test('no more handshakes start than maxRatePerSecond (auth_rate): the rest wait or are told at the door, before TLS', () => {
  const { gate, clock, log } = makeGate({ concurrency: 128, maxRatePerSecond: 20, maxHoldMs: 1000 });
  let started = 0;
  let toldAtOnce = 0;
  for (let i = 0; i < 200; i++) {
    const answer = gate.request(`r${i}`, true, 5000);
    if (answer.kind === 'go') started++;
    else if (answer.kind === 'busy') toldAtOnce++;
  }
  assert.equal(started, 20, 'a second of burst, then the rate');
  assert.ok(toldAtOnce > 150, `${toldAtOnce} told to come back at once`);
  // three seconds: sign-ins finish at once, so only the rate holds them back
  for (let step = 0; step < 30; step++) {
    clock.advance(100);
    while (gate.handshakesInFlight > 0) gate.done(5);
    gate.sweep();
  }
  const granted = log.filter((l) => l.startsWith('grant')).length;
  assert.ok(started + granted <= 20 + 3 * 20 + 1, `${started + granted} started in 3 s at 20/s`);
  assert.ok(granted >= 1, 'held waiters go as the bucket refills');
});

test('concurrency 0 turns pacing off', () => {
  const { gate } = makeGate({ concurrency: 0 });
  for (let i = 0; i < 1000; i++) assert.deepEqual(gate.request(`x${i}`, i % 2 === 0, 10), { kind: 'go' });
});
