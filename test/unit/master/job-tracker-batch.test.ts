// Issue 12: the returns of one event-loop turn are stored in one transaction, and each minion's
// ack goes out only after that commit. Also: nothing lost or stored twice, a failing batch costs
// only the return that cannot be stored, and a find_job answer or a close read after a return
// sees that return first.

import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { JidGenerator, JobCache } from '../../../src/jobs/index.js';
import { FIRST_FLUSH_SLICE, FLUSH_BUDGET_MS, JobTracker, type JobSink } from '../../../src/master/job-tracker.js';
import type { MinionSession } from '../../../src/master/minion-session.js';
import type { JobDone, JobReturn, MasterMessage, Return } from '../../../src/protocol/index.js';
import { FakeClock } from '../../../src/util/clock.js';
import { createLogger } from '../../../src/util/logger.js';

interface FakeSession {
  id: string;
  remoteAddress: string;
  sent: MasterMessage[];
  closed: string | undefined;
}

function setup(t: TestContext, ids: string[]) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-batch-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const clock = new FakeClock(Date.UTC(2024, 0, 1));
  const cache = JobCache.open(path.join(dir, 'jobs.sqlite'), { clock });
  t.after(() => cache.close());
  const lines: string[] = [];
  const logger = createLogger({ name: 'test', level: 'warning', format: 'json', write: (l) => lines.push(l) });
  const fakes = new Map<string, FakeSession>();
  const sessions = new Map<string, MinionSession>();
  for (const id of ids) {
    const f: FakeSession = { id, remoteAddress: `10.0.0.${fakes.size + 1}:4506`, sent: [], closed: undefined };
    fakes.set(id, f);
    const send = (m: MasterMessage) => {
      if (f.closed) return false;
      f.sent.push(m);
      return true;
    };
    const session = {
      get id() {
        return f.id;
      },
      get remoteAddress() {
        return f.remoteAddress;
      },
      sendJob: send,
      sendFindJob: (jid: string) => send({ t: 'find_job', jid }),
      sendAck: (jid: string) => void send({ t: 'ack', jid }),
      close: (reason: string) => {
        f.closed ??= reason;
      },
    };
    sessions.set(id, session as unknown as MinionSession);
  }
  const deferred: Array<() => void> = [];
  const tracker = new JobTracker({
    clock,
    logger,
    cache,
    jids: new JidGenerator(clock),
    acceptedIds: () => ids,
    session: (id) => (fakes.get(id)?.closed ? undefined : sessions.get(id)),
    defaultTimeoutS: 5,
    defer: (fn) => deferred.push(fn),
  });
  const returns: JobReturn[] = [];
  const dones: JobDone[] = [];
  const sink: JobSink = { onReturn: (r) => returns.push(r), onDone: (d) => dones.push(d) };
  const { jid } = tracker.publish({ t: 'publish', tgt: '*', tgtType: 'glob', fun: 'test.ping', arg: [], kwarg: {} }, sink);
  const ret = (): Return => ({ t: 'return', jid, fun: 'test.ping', ret: true, retcode: 0, success: true });
  const acks = (id: string) => fakes.get(id)!.sent.filter((m) => m.t === 'ack').length;
  const runDeferred = () => {
    for (const fn of deferred.splice(0)) fn();
  };
  return { clock, cache, tracker, sessions, fakes, deferred, runDeferred, returns, dones, jid, ret, acks, lines };
}

test('the returns of one turn are stored in one transaction, and acknowledged only after it', (t) => {
  const s = setup(t, ['web1', 'web2', 'web3']);
  const batches: number[] = [];
  const save = s.cache.saveReturns.bind(s.cache);
  s.cache.saveReturns = (rets) => {
    batches.push(rets.length);
    return save(rets);
  };
  s.tracker.handleReturn(s.sessions.get('web1')!, s.ret());
  s.tracker.handleReturn(s.sessions.get('web2')!, s.ret());
  assert.equal(s.deferred.length, 1, 'one flush is scheduled for the turn');
  assert.equal(s.acks('web1') + s.acks('web2'), 0, 'no ack before the commit');
  assert.equal(s.cache.getReturns(s.jid).length, 0);
  s.runDeferred();
  assert.deepEqual(batches, [2]);
  assert.deepEqual(
    s.cache.getReturns(s.jid).map((r) => r.minion),
    ['web1', 'web2'],
  );
  assert.equal(s.acks('web1'), 1);
  assert.equal(s.acks('web2'), 1);
  assert.deepEqual(
    s.returns.map((r) => r.minion),
    ['web1', 'web2'],
  );
  assert.equal(s.dones.length, 0, 'web3 is still awaited');
  s.tracker.handleReturn(s.sessions.get('web3')!, s.ret());
  assert.equal(s.deferred.length, 1, 'the next turn schedules its own flush');
  s.runDeferred();
  assert.deepEqual(batches, [2, 1]);
  assert.deepEqual(s.dones, [{ t: 'done', jid: s.jid, noResponse: [] }]);
});

test('a return sent twice in one turn is stored and streamed once, and acknowledged both times', (t) => {
  const s = setup(t, ['web1', 'web2']);
  s.tracker.handleReturn(s.sessions.get('web1')!, s.ret());
  s.tracker.handleReturn(s.sessions.get('web1')!, s.ret());
  s.runDeferred();
  assert.equal(s.cache.getReturns(s.jid).length, 1);
  assert.equal(s.returns.length, 1);
  assert.equal(s.acks('web1'), 2);
  // and again in a later turn (a resend after a lost ack)
  s.tracker.handleReturn(s.sessions.get('web1')!, s.ret());
  s.runDeferred();
  assert.equal(s.cache.getReturns(s.jid).length, 1);
  assert.equal(s.returns.length, 1);
  assert.equal(s.acks('web1'), 3);
});

test('when the batch cannot be stored, each return is tried alone and only the failing one costs its session', (t) => {
  const s = setup(t, ['web1', 'web2']);
  s.cache.saveReturns = () => {
    throw new Error('disk I/O error');
  };
  const saveOne = s.cache.saveReturn.bind(s.cache);
  s.cache.saveReturn = (r) => {
    if (r.minion === 'web1') throw new Error('disk I/O error');
    return saveOne(r);
  };
  s.tracker.handleReturn(s.sessions.get('web1')!, s.ret());
  s.tracker.handleReturn(s.sessions.get('web2')!, s.ret());
  s.runDeferred();
  assert.equal(s.acks('web1'), 0, 'a return that was not stored is not acknowledged (the minion resends it)');
  assert.equal(s.fakes.get('web1')!.closed, 'internal_error');
  assert.equal(s.acks('web2'), 1);
  assert.deepEqual(
    s.cache.getReturns(s.jid).map((r) => r.minion),
    ['web2'],
  );
  assert.ok(s.lines.some((l) => l.includes('closing a minion connection after an internal error')));
});

test('a find_job answer read after a return in the same turn sees the return first', (t) => {
  const s = setup(t, ['web1']);
  s.clock.advance(5000);
  // the timeout asked web1 whether it still runs the job
  assert.ok(s.fakes.get('web1')!.sent.some((m) => m.t === 'find_job'));
  s.tracker.handleReturn(s.sessions.get('web1')!, s.ret());
  s.tracker.handleJobStatus(s.sessions.get('web1')!, { t: 'job_status', jid: s.jid, running: false });
  assert.deepEqual(s.dones, [{ t: 'done', jid: s.jid, noResponse: [] }], 'web1 returned; it is not listed as not responding');
  assert.equal(s.returns.length, 1);
  s.runDeferred();
  assert.equal(s.acks('web1'), 1, 'the deferred flush finds nothing left to do');
});

test('stop stores and acknowledges what was read before it', (t) => {
  const s = setup(t, ['web1', 'web2']);
  s.tracker.handleReturn(s.sessions.get('web1')!, s.ret());
  s.tracker.stop();
  assert.equal(s.acks('web1'), 1);
  assert.equal(s.cache.getReturns(s.jid).length, 1);
  // issue 26: the CLI learns the master is stopping, so web2 is not reported as silent
  assert.deepEqual(s.dones, [{ t: 'done', jid: s.jid, noResponse: ['web2'], reason: 'master_shutdown' }]);
});

test('a burst larger than one turn is stored in slices sized by the time budget, in arrival order, each slice acknowledged after its commit; stop stores the rest at once', (t) => {
  const ids = Array.from({ length: 300 }, (_, i) => `m${String(i).padStart(3, '0')}`);
  const s = setup(t, ids);
  const batches: number[] = [];
  const save = s.cache.saveReturns.bind(s.cache);
  // each return costs 1 ms of the (fake) clock: a 40 KB state return is ~0.8 ms on this host
  s.cache.saveReturns = (rets) => {
    batches.push(rets.length);
    s.clock.advance(rets.length);
    return save(rets);
  };
  for (const id of ids) s.tracker.handleReturn(s.sessions.get(id)!, s.ret());
  assert.equal(s.deferred.length, 1, 'one flush is scheduled for the burst');
  s.runDeferred();
  assert.deepEqual(batches, [FIRST_FLUSH_SLICE], 'the first turn of a burst stores the first slice only');
  assert.equal(s.cache.getReturns(s.jid).length, FIRST_FLUSH_SLICE);
  const acked = ids.filter((id) => s.acks(id) === 1);
  assert.deepEqual(acked, ids.slice(0, FIRST_FLUSH_SLICE), 'the oldest slice is acknowledged, and only it');
  assert.equal(s.deferred.length, 1, 'the rest waits for the next turn');
  s.runDeferred();
  s.runDeferred();
  const perTurn = FLUSH_BUDGET_MS / 1;
  assert.deepEqual(batches, [FIRST_FLUSH_SLICE, perTurn, perTurn], 'later turns fit the budget at the measured 1 ms per return');
  assert.deepEqual(
    ids.filter((id) => s.acks(id) === 1),
    ids.slice(0, FIRST_FLUSH_SLICE + 2 * perTurn),
    'acknowledged in arrival order, slice by slice',
  );
  // stop stores everything left at once
  s.tracker.stop();
  const rest = ids.length - FIRST_FLUSH_SLICE - 2 * perTurn;
  assert.deepEqual(batches, [FIRST_FLUSH_SLICE, perTurn, perTurn, rest]);
  assert.equal(s.cache.getReturns(s.jid).length, ids.length);
  assert.ok(
    ids.every((id) => s.acks(id) === 1),
    'every return acknowledged once',
  );
  assert.deepEqual(
    s.returns.map((r) => r.minion),
    ids,
    'streamed in arrival order',
  );
  s.runDeferred();
  assert.deepEqual(batches, [FIRST_FLUSH_SLICE, perTurn, perTurn, rest], 'a leftover deferred flush finds nothing');
});

test('cheap returns grow the slice by at most double per turn up to the budget; dear ones shrink it at once', (t) => {
  const ids = Array.from({ length: 1500 }, (_, i) => `m${String(i).padStart(4, '0')}`);
  const s = setup(t, ids);
  const batches: number[] = [];
  let msPerReturn = 0.0625;
  const save = s.cache.saveReturns.bind(s.cache);
  s.cache.saveReturns = (rets) => {
    batches.push(rets.length);
    s.clock.advance(rets.length * msPerReturn);
    return save(rets);
  };
  for (const id of ids.slice(0, 1000)) s.tracker.handleReturn(s.sessions.get(id)!, s.ret());
  while (s.deferred.length > 0) s.runDeferred();
  // 1/16 ms each (exact in binary): the budget allows 16 per ms, reached by doubling from the first slice
  const byBudget = FLUSH_BUDGET_MS * 16;
  const expected: number[] = [];
  for (let slice = FIRST_FLUSH_SLICE, left = 1000; left > 0; slice = Math.min(slice * 2, byBudget)) {
    expected.push(Math.min(slice, left));
    left -= slice;
  }
  assert.deepEqual(batches, expected);
  assert.ok(expected.length >= 5 && expected.includes(byBudget), `grew to the budget: ${expected.join(', ')}`);
  // the next burst costs 2 ms per return: its first slice is still the first-slice cap, then the budget holds
  batches.length = 0;
  msPerReturn = 2;
  for (const id of ids.slice(1000)) s.tracker.handleReturn(s.sessions.get(id)!, s.ret());
  s.runDeferred();
  s.runDeferred();
  assert.deepEqual(batches, [FIRST_FLUSH_SLICE, Math.floor(FLUSH_BUDGET_MS / 2)]);
  while (s.deferred.length > 0) s.runDeferred();
  assert.equal(s.cache.getReturns(s.jid).length, ids.length);
  assert.deepEqual(
    s.returns.map((r) => r.minion),
    ids,
    'streamed in arrival order',
  );
});
