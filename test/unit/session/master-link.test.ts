// MasterLink, the single-flight reconnect loop for one master, on fake DNS/dial and a fake
// clock: backoff bounds, acceptance waits, fatal refusals, callbacks that throw, and stop().

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MasterLink, type LinkEvents, type LinkOptions, type LinkState } from '../../../src/session/index.js';
import type { BrineError } from '../../../src/util/errors.js';
import { isBrineError } from '../../../src/util/errors.js';
import { CONN_OPTS, FakeDeps, auth, flush, keyChanged, type FakeDepsOptions } from './fakes.js';

const LINK_OPTS: LinkOptions = {
  backoff: { baseMs: 1_000, maxMs: 8_000, randomize: true, floorMs: 50 },
  acceptanceWaitMs: 10_000,
  acceptanceWaitMaxMs: 40_000,
  rejectedRetry: false,
};

function setup(opts: { link?: Partial<LinkOptions>; deps?: FakeDepsOptions; events?: LinkEvents; random?: () => number } = {}) {
  const deps = new FakeDeps(opts.deps);
  const retries: number[] = [];
  const fatal: BrineError[] = [];
  const downs: string[] = [];
  const link = new MasterLink(
    { host: 'salt', port: 4506 },
    deps,
    CONN_OPTS,
    { ...LINK_OPTS, ...opts.link },
    {
      onRetryScheduled: (delay) => retries.push(delay),
      onFatal: (err) => fatal.push(err),
      onDown: (o) => downs.push(o.reason),
      ...opts.events,
    },
    opts.random ?? (() => 0.5),
  );
  return { deps, link, retries, fatal, downs };
}

/** Lets the current attempt reach authenticating, then answers it. */
async function answer(s: ReturnType<typeof setup>, status: Parameters<typeof auth>[0]): Promise<void> {
  await flush();
  s.deps.lastChannel.deliver(auth(status));
}

test('after a drop the link reconnects once the jittered delay has passed, not before', async () => {
  const s = setup({ random: () => 0.3 });
  s.link.start();
  await answer(s, 'accepted');
  assert.equal(s.link.state, 'ready');
  s.deps.lastChannel.drop('reset');
  assert.equal(s.link.state, 'waiting');
  assert.deepEqual(s.downs, ['reset']);
  assert.deepEqual(s.retries, [300], 'first retry after a good connection: 0.3 x recon_default');
  s.deps.clock.advance(299);
  await flush();
  assert.equal(s.deps.dials.length, 1);
  s.deps.clock.advance(1);
  await flush();
  assert.equal(s.deps.dials.length, 2);
  await answer(s, 'accepted');
  assert.equal(s.link.state, 'ready');
  assert.equal(s.link.attempts, 2);
});

test('consecutive failures back off within [floor, min(recon_max, recon_default * 2^n)]', async () => {
  const draws = [0.99, 0.01, 0.5, 0.99, 0.7, 0.99, 0];
  let i = 0;
  const s = setup({ deps: { autoDial: false }, random: () => draws[i++]! });
  s.link.start();
  for (let n = 0; n < draws.length; n++) {
    await flush();
    s.deps.dials[n]!.result.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    await flush();
    const bound = Math.min(8_000, 1_000 * 2 ** n);
    const delay = s.retries[n]!;
    assert.ok(delay >= 50 && delay <= bound, `retry ${n}: ${delay} not in [50, ${bound}]`);
    assert.equal(delay, Math.max(50, Math.round(draws[n]! * bound)));
    s.deps.clock.advance(delay);
  }
  assert.deepEqual(s.downs, Array(draws.length).fill('connect_failed'));
  assert.equal(s.fatal.length, 0);
});

test('a good connection resets the backoff', async () => {
  const s = setup({ link: { backoff: { baseMs: 1_000, maxMs: 60_000, randomize: false } }, deps: { autoDial: false } });
  s.link.start();
  for (let n = 0; n < 3; n++) {
    await flush();
    s.deps.dials[n]!.result.reject(new Error('refused'));
    await flush();
    s.deps.clock.advance(s.retries[n]!);
  }
  assert.deepEqual(s.retries, [1_000, 2_000, 4_000]);
  await flush();
  const { FakeChannel } = await import('./fakes.js');
  s.deps.dials[3]!.onTcpConnected();
  s.deps.dials[3]!.result.resolve(new FakeChannel());
  await answer(s, 'accepted');
  s.deps.lastChannel.drop('reset');
  assert.equal(s.retries.at(-1), 1_000);
});

test('single flight: never two attempts at once, whatever the sequence of drops, failures and restarts', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.constantFrom('accept', 'pending', 'drop', 'fail', 'start', 'advance', 'timeout', 'stop'), { maxLength: 25 }), async (actions) => {
      const s = setup({ deps: { autoDial: false }, link: { rejectedRetry: true } });
      const { FakeChannel } = await import('./fakes.js');
      s.link.start();
      await flush();
      for (const a of actions) {
        const dial = s.deps.dials.at(-1);
        const open = dial && !dial.channel && !('done' in dial);
        switch (a) {
          case 'accept':
          case 'pending':
            if (open) {
              Object.assign(dial, { done: true });
              dial.onTcpConnected();
              dial.result.resolve(new FakeChannel());
              await flush();
            }
            s.deps.channels.at(-1)?.deliver(auth(a === 'accept' ? 'accepted' : 'pending'));
            break;
          case 'drop':
            s.deps.channels.at(-1)?.drop('reset');
            break;
          case 'fail':
            if (open) {
              Object.assign(dial, { done: true });
              dial.result.reject(new Error('refused'));
            }
            break;
          case 'start':
            s.link.start();
            break;
          case 'advance':
            s.deps.clock.advance(50_000);
            break;
          case 'timeout':
            s.deps.clock.advance(CONN_OPTS.authTimeoutMs);
            break;
          case 'stop':
            s.link.stop();
            break;
        }
        await flush();
        assert.ok(s.deps.maxConcurrent <= 1, `two attempts at once after ${a}`);
        const state: LinkState = s.link.state;
        assert.ok(['connecting', 'ready', 'waiting', 'stopped'].includes(state), state);
      }
      s.link.stop();
      for (const d of s.deps.dials) if (!d.channel && !('done' in d)) d.result.resolve(new FakeChannel());
      await flush();
      s.deps.clock.advance(1_000_000);
      await flush();
      assert.equal(s.deps.clock.pending, 0);
      for (const ch of s.deps.channels) assert.equal(ch.closed, true);
      assert.ok(s.deps.maxConcurrent <= 1);
    }),
    { numRuns: 150 },
  );
});

test('pending: waits acceptance_wait_time, doubling up to acceptance_wait_time_max', async () => {
  const s = setup();
  s.link.start();
  for (let n = 0; n < 5; n++) {
    await answer(s, 'pending');
    const wait = s.retries[n]!;
    s.deps.clock.advance(wait - 1);
    await flush();
    assert.equal(s.deps.dials.length, n + 1, `no retry before ${wait} ms`);
    s.deps.clock.advance(1);
  }
  assert.deepEqual(s.retries, [10_000, 20_000, 40_000, 40_000, 40_000]);
  assert.deepEqual(new Set(s.downs), new Set(['auth_pending']));
  assert.equal(s.fatal.length, 0);
});

test('pending with acceptance_wait_time_max 0: the wait never grows', async () => {
  const s = setup({ link: { acceptanceWaitMaxMs: 0 } });
  s.link.start();
  for (let n = 0; n < 3; n++) {
    await answer(s, 'pending');
    s.deps.clock.advance(s.retries[n]!);
  }
  assert.deepEqual(s.retries, [10_000, 10_000, 10_000]);
});

test('acceptance wait starts over after the key was accepted', async () => {
  const s = setup();
  s.link.start();
  await answer(s, 'pending');
  s.deps.clock.advance(s.retries[0]!);
  await answer(s, 'pending');
  s.deps.clock.advance(s.retries[1]!);
  await answer(s, 'accepted');
  s.deps.lastChannel.deliver({ t: 'bye', reason: 'shutdown' });
  s.deps.clock.advance(s.retries[2]!);
  await answer(s, 'pending');
  assert.deepEqual(s.retries, [10_000, 20_000, 500, 10_000]);
});

for (const status of ['rejected', 'denied', 'invalid_id'] as const) {
  test(`${status} without rejected_retry is fatal: onFatal once, stopped, no more dials`, async () => {
    const s = setup();
    s.link.start();
    await answer(s, status);
    assert.equal(s.fatal.length, 1);
    assert.ok(isBrineError(s.fatal[0], status === 'rejected' ? 'AUTH_REJECTED' : status === 'denied' ? 'AUTH_DENIED' : 'INVALID_ID'));
    assert.equal(s.link.state, 'stopped');
    assert.deepEqual(s.retries, []);
    s.deps.clock.advance(10_000_000);
    await flush();
    assert.equal(s.deps.dials.length, 1);
    assert.equal(s.deps.clock.pending, 0);
  });
}

test('rejected with rejected_retry: retries after acceptance_wait_time instead of giving up', async () => {
  const s = setup({ link: { rejectedRetry: true } });
  s.link.start();
  await answer(s, 'rejected');
  assert.equal(s.fatal.length, 0);
  assert.equal(s.link.state, 'waiting');
  assert.deepEqual(s.retries, [10_000]);
  s.deps.clock.advance(10_000);
  await flush();
  assert.equal(s.deps.dials.length, 2);
  await answer(s, 'accepted');
  assert.equal(s.link.state, 'ready');
});

test('a full master is not fatal even without rejected_retry', async () => {
  const s = setup();
  s.link.start();
  await answer(s, 'full');
  assert.equal(s.fatal.length, 0);
  assert.equal(s.retries.length, 1);
});

test('a master at its pending-key limit (full, AUTH_PENDING_LIMIT) is retried, not a refusal', async () => {
  const s = setup();
  s.link.start();
  await flush();
  s.deps.lastChannel.deliver(auth('full', { code: 'AUTH_PENDING_LIMIT', message: 'too many pending keys' }));
  await flush();
  assert.equal(s.fatal.length, 0);
  assert.equal(s.retries.length, 1);
});

test('a changed master key is refused and retried with backoff, not fatal (issue 8 item 6)', async () => {
  const untrusted: string[] = [];
  const s = setup({ deps: { trustMaster: keyChanged }, events: { onUntrustedMaster: (m, err) => untrusted.push(`${m.host}:${err.code}`) }, random: () => 1 });
  s.link.start();
  await flush();
  assert.equal(s.fatal.length, 0);
  assert.deepEqual(untrusted, ['salt:MASTER_KEY_CHANGED']);
  assert.equal(s.link.state, 'waiting');
  assert.deepEqual(s.retries, [1_000], 'the reconnect backoff, not a busy loop');
  s.deps.clock.advance(1_000);
  await flush();
  assert.equal(s.deps.dials.length, 2);
  assert.deepEqual(s.retries, [1_000, 2_000], 'and it grows');
  assert.deepEqual(untrusted, ['salt:MASTER_KEY_CHANGED', 'salt:MASTER_KEY_CHANGED']);
});

test('a changed master key is fatal with untrusted_master_exit', async () => {
  const s = setup({ deps: { trustMaster: keyChanged }, link: { untrustedMasterFatal: true } });
  s.link.start();
  await flush();
  assert.equal(s.fatal.length, 1);
  assert.ok(isBrineError(s.fatal[0], 'MASTER_KEY_CHANGED'));
  assert.equal(s.link.state, 'stopped');
  s.deps.clock.advance(1_000_000);
  await flush();
  assert.equal(s.deps.dials.length, 1);
});

test('a rejection from a master never signed in with (unpinned) is not fatal: no hello believed, retried with backoff', async () => {
  const untrusted: string[] = [];
  const s = setup({ deps: { trustMaster: () => 'unpinned' }, events: { onUntrustedMaster: (_m, err) => untrusted.push(err.code) } });
  s.link.start();
  await answer(s, 'rejected');
  assert.equal(s.fatal.length, 0);
  assert.deepEqual(untrusted, ['AUTH_REJECTED']);
  assert.equal(s.link.state, 'waiting');
  assert.deepEqual(s.retries, [10_000]);
  s.deps.clock.advance(10_000);
  await answer(s, 'denied');
  assert.deepEqual(untrusted, ['AUTH_REJECTED', 'AUTH_DENIED']);
  assert.deepEqual(s.retries, [10_000, 20_000], 'the acceptance wait grows');
  // with the opt-in it ends the link as before
  const t = setup({ deps: { trustMaster: () => 'unpinned' }, link: { untrustedMasterFatal: true } });
  t.link.start();
  await answer(t, 'rejected');
  assert.equal(t.fatal.length, 1);
  assert.ok(isBrineError(t.fatal[0], 'AUTH_REJECTED'));
});

test('a trusted rejection asks giveUpOnRefusal: false retries, true ends the link', async () => {
  let answerWith = false;
  const asked: string[] = [];
  const s = setup({
    link: {
      giveUpOnRefusal: (m, err) => {
        asked.push(`${m.host}:${err.code}`);
        return answerWith;
      },
    },
  });
  s.link.start();
  await answer(s, 'rejected');
  assert.deepEqual(asked, ['salt:AUTH_REJECTED']);
  assert.equal(s.fatal.length, 0);
  assert.equal(s.link.state, 'waiting');
  answerWith = true;
  s.deps.clock.advance(s.retries[0]!);
  await answer(s, 'rejected');
  assert.equal(s.fatal.length, 1);
  assert.equal(s.link.state, 'stopped');
});

// Issue 3: an exception from any event callback must leave the link reconnecting, never stuck.
for (const name of ['onReady', 'onMessage', 'onDown', 'onRetryScheduled', 'onConnectionState'] as const) {
  test(`a throwing ${name} callback: the link still goes ready -> backoff -> ready`, async () => {
    let calls = 0;
    const throwing: LinkEvents = {
      [name]: () => {
        calls++;
        throw new Error(`${name} exploded`);
      },
    };
    const s = setup({ events: throwing });
    const states: LinkState[] = [];
    s.link.start();
    await answer(s, 'accepted');
    states.push(s.link.state);
    s.deps.lastChannel.deliver({ t: 'job', jid: '20240101000000000001', fun: 'test.ping', arg: [], kwarg: {}, tgt: '*', tgtType: 'glob' });
    states.push(s.link.state);
    s.deps.lastChannel.drop('reset');
    states.push(s.link.state);
    s.deps.clock.advance(LINK_OPTS.backoff.maxMs);
    await answer(s, 'accepted');
    states.push(s.link.state);
    assert.deepEqual(states, ['ready', 'ready', 'waiting', 'ready']);
    assert.equal(s.deps.dials.length, 2);
    assert.ok(calls > 0, `${name} was called`);
    assert.ok(s.deps.maxConcurrent <= 1);
  });
}

test('stop() during backoff cancels the retry timer; no dial ever follows', async () => {
  const s = setup();
  s.link.start();
  await answer(s, 'accepted');
  s.deps.lastChannel.drop('reset');
  assert.equal(s.link.state, 'waiting');
  assert.equal(s.deps.clock.pending, 1);
  s.link.stop();
  assert.equal(s.link.state, 'stopped');
  assert.equal(s.deps.clock.pending, 0);
  s.deps.clock.advance(10_000_000);
  await flush();
  assert.equal(s.deps.dials.length, 1);
  s.link.start(); // a stopped link stays stopped
  await flush();
  assert.equal(s.deps.dials.length, 1);
});

test('stop() while ready says bye and closes; stop() while dialling closes the late channel', async () => {
  const s = setup();
  s.link.start();
  await answer(s, 'accepted');
  const ch = s.deps.lastChannel;
  s.link.stop();
  assert.deepEqual(ch.sent.at(-1), { t: 'bye', reason: 'shutdown' });
  assert.equal(ch.closed, true);
  assert.deepEqual(s.downs, [], 'a deliberate stop is not a "down"');

  const t = setup({ deps: { autoDial: false, ignoreAbort: true } });
  t.link.start();
  await flush();
  t.link.stop();
  const { FakeChannel } = await import('./fakes.js');
  const late = new FakeChannel();
  t.deps.dials[0]!.result.resolve(late);
  await flush();
  assert.equal(late.closed, true);
  assert.equal(t.deps.clock.pending, 0);
});

test('send() goes through only while ready', async () => {
  const s = setup();
  const ret = { t: 'return', jid: '20240101000000000001', fun: 'test.ping', ret: true, retcode: 0, success: true } as const;
  assert.equal(s.link.send(ret), false);
  s.link.start();
  await answer(s, 'accepted');
  assert.equal(s.link.send(ret), true);
  s.deps.lastChannel.drop('reset');
  assert.equal(s.link.send(ret), false);
});
