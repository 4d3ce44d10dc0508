// MasterConnection, the per-attempt state machine, driven through fake DNS, dial and channel:
// every path ends in exactly one onClosed with a reason, and illegal transitions cannot happen.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CONNECTION_STATES, MasterConnection, canTransition, type ConnectionEvents, type ConnectionOutcome, type ConnectionState } from '../../../src/session/index.js';
import type { Job, MasterMessage } from '../../../src/protocol/index.js';
import { BrineError, isBrineError } from '../../../src/util/errors.js';
import { CONN_OPTS, FakeDeps, auth, flush, keyChanged, type FakeDepsOptions } from './fakes.js';

const JOB: Job = { t: 'job', jid: '20240101000000000001', fun: 'test.ping', arg: [], kwarg: {}, tgt: '*', tgtType: 'glob' };

function setup(depOpts: FakeDepsOptions = {}, extra: Partial<ConnectionEvents> = {}) {
  const deps = new FakeDeps(depOpts);
  const transitions: Array<[ConnectionState, ConnectionState]> = [];
  const outcomes: ConnectionOutcome[] = [];
  const messages: unknown[] = [];
  let readyCalls = 0;
  const conn = new MasterConnection({ host: 'salt', port: 4506 }, deps, CONN_OPTS, {
    onStateChange: (from, to) => transitions.push([from, to]),
    onReady: () => readyCalls++,
    onMessage: (m) => messages.push(m),
    onClosed: (o) => outcomes.push(o),
    ...extra,
  });
  return { deps, conn, transitions, outcomes, messages, readyCalls: () => readyCalls };
}

async function toAuthenticating(s: ReturnType<typeof setup>): Promise<void> {
  s.conn.open();
  await flush();
  assert.equal(s.conn.state, 'authenticating');
}

test('happy path: every state in order, hello sent, frame limit raised, bye on shutdown', async () => {
  const s = setup();
  s.conn.open();
  assert.equal(s.conn.state, 'resolving');
  await flush();
  assert.equal(s.deps.resolves[0]!.host, 'salt');
  assert.deepEqual(
    s.deps.dials.map((d) => [d.address, d.port]),
    [['192.0.2.10', 4506]],
  );
  assert.equal(s.conn.resolvedAddress, '192.0.2.10');
  const ch = s.deps.lastChannel;
  assert.deepEqual(ch.sent, [{ t: 'hello', versions: [1], id: 'web1', agent: 'brine-test/1' }]);
  assert.equal(s.deps.trustCalls, 1);
  assert.equal(s.conn.send({ t: 'bye', reason: 'x' }), false, 'nothing but hello before ready');

  ch.deliver(auth('accepted'));
  assert.equal(s.conn.state, 'ready');
  assert.equal(s.readyCalls(), 1);
  assert.deepEqual(ch.maxFrames, [CONN_OPTS.maxFrame]);
  assert.equal(s.conn.masterFingerprint, 'ab:cd:ef');
  const ret = { t: 'return', jid: JOB.jid, fun: 'test.ping', ret: true, retcode: 0, success: true } as const;
  assert.equal(s.conn.send(ret), true);

  s.deps.clock.advance(1_234);
  s.conn.close('shutdown');
  assert.deepEqual(s.transitions, [
    ['resolving', 'connecting'],
    ['connecting', 'handshaking'],
    ['handshaking', 'authenticating'],
    ['authenticating', 'ready'],
    ['ready', 'closed'],
  ]);
  assert.equal(s.outcomes.length, 1);
  const o = s.outcomes[0]!;
  assert.equal(o.reason, 'shutdown');
  assert.equal(o.wasReady, true);
  assert.equal(o.lastState, 'ready');
  assert.equal(o.readyForMs, 1_234);
  assert.equal(o.address, '192.0.2.10');
  assert.equal(o.auth?.status, 'accepted');
  assert.deepEqual(ch.sent.at(-1), { t: 'bye', reason: 'shutdown' });
  assert.equal(ch.closed, true);
  assert.equal(s.conn.send(ret), false);
  assert.equal(s.deps.clock.pending, 0, 'heartbeat and auth timers gone');
});

test('ping from the master is answered with a pong of the same seq; jobs reach onMessage when ready', async () => {
  const s = setup();
  await toAuthenticating(s);
  const ch = s.deps.lastChannel;
  ch.deliver(auth('accepted'));
  ch.deliver({ t: 'ping', seq: 41 });
  assert.deepEqual(ch.sent.at(-1), { t: 'pong', seq: 41 });
  ch.deliver(JOB);
  ch.deliver({ t: 'ack', jid: JOB.jid });
  ch.deliver({ t: 'acks', jids: [JOB.jid] });
  assert.deepEqual(s.messages, [JOB, { t: 'ack', jid: JOB.jid }, { t: 'acks', jids: [JOB.jid] }]);
});

test('with carryAcks in the options the hello announces it (issue 27; without, the happy path shows none)', async () => {
  const deps = new FakeDeps();
  const conn = new MasterConnection({ host: 'salt', port: 4506 }, deps, { ...CONN_OPTS, carryAcks: true }, { onClosed: () => undefined });
  conn.open();
  await flush();
  assert.deepEqual(deps.lastChannel.sent, [{ t: 'hello', versions: [1], id: 'web1', agent: 'brine-test/1', carryAcks: true }]);
  conn.close('shutdown');
});

test('pending: authenticating -> pending -> closed with reason auth_pending', async () => {
  const s = setup();
  await toAuthenticating(s);
  s.deps.lastChannel.deliver(auth('pending', { retryAfter: 10 }));
  assert.deepEqual(s.transitions.slice(-2), [
    ['authenticating', 'pending'],
    ['pending', 'closed'],
  ]);
  assert.equal(s.outcomes.length, 1);
  assert.equal(s.outcomes[0]!.reason, 'auth_pending');
  assert.equal(s.outcomes[0]!.lastState, 'pending');
  assert.equal(s.outcomes[0]!.wasReady, false);
  assert.equal(s.outcomes[0]!.auth?.status, 'pending');
  assert.equal(s.readyCalls(), 0);
  assert.equal(s.deps.lastChannel.closed, true);
  assert.equal(s.deps.clock.pending, 0);
});

const REFUSALS = [
  ['rejected', 'auth_rejected', 'AUTH_REJECTED', undefined],
  ['rejected', 'auth_rejected', 'KEY_TYPE_UNSUPPORTED', 'KEY_TYPE_UNSUPPORTED'],
  ['denied', 'auth_denied', 'AUTH_DENIED', undefined],
  ['invalid_id', 'invalid_id', 'INVALID_ID', undefined],
  ['full', 'auth_rejected', 'AUTH_FULL', undefined],
  ['full', 'auth_rejected', 'AUTH_PENDING_LIMIT', 'AUTH_PENDING_LIMIT'],
  ['error', 'protocol_error', 'PROTOCOL_VERSION', undefined],
] as const;

for (const [status, reason, code, masterCode] of REFUSALS) {
  test(`auth ${status}${masterCode ? ` with code ${masterCode}` : ''} closes with reason ${reason} and a ${code} error carrying the master's message`, async () => {
    const s = setup();
    await toAuthenticating(s);
    s.deps.lastChannel.deliver(auth(status, { message: `the master says ${status}`, ...(masterCode ? { code: masterCode } : {}) }));
    assert.equal(s.outcomes.length, 1);
    const o = s.outcomes[0]!;
    assert.equal(o.reason, reason);
    assert.ok(isBrineError(o.error, code), `error code ${String((o.error as BrineError | undefined)?.code)}`);
    assert.equal(o.error.message, `the master says ${status}`);
    assert.equal(s.conn.state, 'closed');
    assert.equal(s.deps.lastChannel.closeCalls[0]?.reason, reason, 'the channel is told why');
  });
}

test('no auth answer within authTimeoutMs: handshake_timeout, not a moment earlier', async () => {
  const s = setup();
  await toAuthenticating(s);
  s.deps.clock.advance(CONN_OPTS.authTimeoutMs - 1);
  assert.equal(s.conn.state, 'authenticating');
  s.deps.clock.advance(1);
  assert.equal(s.outcomes.length, 1);
  assert.equal(s.outcomes[0]!.reason, 'handshake_timeout');
  assert.ok(isBrineError(s.outcomes[0]!.error, 'HANDSHAKE_TIMEOUT'));
  assert.equal(s.deps.lastChannel.closeCalls[0]?.reason, 'handshake_timeout');
});

test('an auth answer in time cancels the auth deadline', async () => {
  const s = setup();
  await toAuthenticating(s);
  s.deps.lastChannel.deliver(auth('accepted'));
  s.deps.lastChannel.deliver({ t: 'ping', seq: 1 }); // keep the heartbeat fed past the auth deadline
  s.deps.clock.advance(CONN_OPTS.authTimeoutMs * 2);
  assert.equal(s.conn.state, 'ready');
});

for (const [label, failure, reason] of [
  ['DNS failure (coded)', new BrineError('CONNECT_FAILED', "Master hostname 'salt' not found"), 'connect_failed'],
  ['DNS failure (plain Error)', Object.assign(new Error('getaddrinfo ENOTFOUND salt'), { code: 'ENOTFOUND' }), 'connect_failed'],
] as const) {
  test(`${label} ends in closed with reason ${reason}`, async () => {
    const s = setup({ autoResolve: false });
    s.conn.open();
    s.deps.resolves[0]!.result.reject(failure);
    await flush();
    assert.equal(s.conn.state, 'closed');
    assert.deepEqual(s.transitions, [['resolving', 'closed']]);
    assert.equal(s.outcomes.length, 1);
    assert.equal(s.outcomes[0]!.reason, reason);
    assert.ok(s.outcomes[0]!.error instanceof Error);
    assert.equal(s.deps.dials.length, 0);
  });
}

for (const [label, failure, reason] of [
  ['refused TCP connect', new BrineError('CONNECT_FAILED', 'connection to 192.0.2.10:4506 failed: ECONNREFUSED'), 'connect_failed'],
  ['TLS failure', new BrineError('TLS_ERROR', 'TLS handshake failed'), 'tls_error'],
  ['TLS handshake timeout', new BrineError('HANDSHAKE_TIMEOUT', 'TLS handshake did not finish'), 'handshake_timeout'],
  ['plain Error from the dialer', new Error('EHOSTUNREACH'), 'connect_failed'],
] as const) {
  test(`dial failure (${label}) ends in closed with reason ${reason}`, async () => {
    const s = setup({ autoDial: false });
    s.conn.open();
    await flush();
    assert.equal(s.conn.state, 'connecting');
    s.deps.dials[0]!.result.reject(failure);
    await flush();
    assert.equal(s.conn.state, 'closed');
    assert.equal(s.outcomes.length, 1);
    assert.equal(s.outcomes[0]!.reason, reason);
    assert.equal(s.outcomes[0]!.lastState, 'connecting');
    assert.equal(s.deps.clock.pending, 0);
  });
}

test('a DNS lookup that never answers cannot wedge the attempt: closed after authTimeoutMs', async () => {
  const s = setup({ autoResolve: false });
  s.conn.open();
  await flush();
  s.deps.clock.advance(CONN_OPTS.authTimeoutMs);
  assert.equal(s.conn.state, 'closed');
  assert.equal(s.outcomes.length, 1);
  assert.equal(s.outcomes[0]!.reason, 'connect_failed');
  // a late answer changes nothing and dials nothing
  s.deps.resolves[0]!.result.resolve('192.0.2.99');
  await flush();
  assert.equal(s.deps.dials.length, 0);
  assert.equal(s.outcomes.length, 1);
});

test('a dial that never finishes cannot wedge the attempt: the dial is aborted', async () => {
  const s = setup({ autoDial: false });
  s.conn.open();
  await flush();
  assert.equal(s.deps.dials[0]!.signal?.aborted, false);
  s.deps.clock.advance(CONN_OPTS.authTimeoutMs);
  assert.equal(s.conn.state, 'closed');
  assert.equal(s.outcomes[0]?.reason, 'connect_failed');
  assert.equal(s.deps.dials[0]!.signal?.aborted, true, 'the dialer is told to give up');
  await flush();
  assert.equal(s.outcomes.length, 1);
});

test('a dialer that ignores the abort: its late channel is closed at once, unused', async () => {
  const s = setup({ autoDial: false, ignoreAbort: true });
  s.conn.open();
  await flush();
  s.deps.dials[0]!.onTcpConnected();
  assert.equal(s.conn.state, 'handshaking');
  s.deps.clock.advance(CONN_OPTS.authTimeoutMs);
  assert.equal(s.conn.state, 'closed');
  assert.equal(s.outcomes.length, 1);
  assert.equal(s.outcomes[0]!.reason, 'handshake_timeout');
  const { FakeChannel } = await import('./fakes.js');
  const late = new FakeChannel();
  s.deps.dials[0]!.result.resolve(late);
  await flush();
  assert.equal(late.closed, true);
  assert.equal(late.sent.length, 0, 'no hello on a channel nobody owns');
  assert.equal(s.outcomes.length, 1);
});

test('trustMaster refusing the key: master_key_changed, no hello, channel closed', async () => {
  const s = setup({ trustMaster: keyChanged });
  s.conn.open();
  await flush();
  assert.equal(s.conn.state, 'closed');
  assert.equal(s.outcomes.length, 1);
  assert.equal(s.outcomes[0]!.reason, 'master_key_changed');
  assert.ok(isBrineError(s.outcomes[0]!.error, 'MASTER_KEY_CHANGED'));
  const ch = s.deps.lastChannel;
  assert.equal(ch.sent.length, 0);
  assert.equal(ch.closed, true);
  assert.equal(s.deps.clock.pending, 0);
});

test('a master_finger mismatch is also master_key_changed', async () => {
  const s = setup({
    trustMaster: () => {
      throw new BrineError('MASTER_FINGER_MISMATCH', 'fingerprint differs from master_finger');
    },
  });
  s.conn.open();
  await flush();
  assert.equal(s.outcomes[0]?.reason, 'master_key_changed');
});

// Issue 8 item 6: a master's key is pinned only once it accepts, and the outcome says whether
// the key was trusted (pinned or master_finger) so a refusal from an unknown master is not believed.
for (const status of ['accepted', 'pending', 'rejected', 'denied'] as const) {
  for (const trust of ['pinned', 'unpinned'] as const) {
    test(`${trust} master answering ${status}: pinned only when accepted; masterTrusted = ${trust === 'pinned'}`, async () => {
      const s = setup({ trustMaster: () => trust });
      await toAuthenticating(s);
      s.deps.lastChannel.deliver(auth(status));
      assert.deepEqual(s.deps.pinned, status === 'accepted' ? ['salt:4506'] : []);
      s.conn.close('shutdown');
      assert.equal(s.outcomes.length, 1);
      assert.equal(s.outcomes[0]!.masterTrusted, trust === 'pinned');
    });
  }
}

for (const early of [JOB, { t: 'ack', jid: JOB.jid }, { t: 'acks', jids: [JOB.jid] }] satisfies MasterMessage[]) {
  test(`a "${early.t}" before authentication is a protocol_error and never reaches onMessage`, async () => {
    const s = setup();
    await toAuthenticating(s);
    s.deps.lastChannel.deliver(early);
    assert.equal(s.outcomes.length, 1);
    assert.equal(s.outcomes[0]!.reason, 'protocol_error');
    assert.ok(isBrineError(s.outcomes[0]!.error, 'MESSAGE_UNEXPECTED'));
    assert.deepEqual(s.messages, []);
  });
}

test('a second auth after ready is a protocol_error', async () => {
  const s = setup();
  await toAuthenticating(s);
  s.deps.lastChannel.deliver(auth('accepted'));
  s.deps.lastChannel.deliver(auth('accepted'));
  assert.equal(s.outcomes[0]?.reason, 'protocol_error');
  assert.equal(s.outcomes[0]?.wasReady, true);
});

test('an error frame from the master closes with protocol_error; bye maps to shutdown / peer_closed', async () => {
  const cases = [
    [{ t: 'error', code: 'MESSAGE_INVALID', message: 'what?' }, 'protocol_error'],
    [{ t: 'bye', reason: 'shutdown' }, 'shutdown'],
    [{ t: 'bye', reason: 'replaced' }, 'peer_closed'],
  ] as const;
  for (const [message, reason] of cases) {
    const s = setup();
    await toAuthenticating(s);
    s.deps.lastChannel.deliver(auth('accepted'));
    s.deps.lastChannel.deliver(message);
    assert.equal(s.outcomes.length, 1);
    assert.equal(s.outcomes[0]!.reason, reason, message.t);
  }
});

test('after ready, silence for heartbeatTimeoutMs closes with heartbeat_timeout; pings went out meanwhile', async () => {
  const s = setup();
  await toAuthenticating(s);
  const ch = s.deps.lastChannel;
  ch.deliver(auth('accepted'));
  s.deps.clock.advance(CONN_OPTS.heartbeatIntervalMs);
  assert.deepEqual(
    ch.sentOfType('ping').map((p) => p.seq),
    [0],
  );
  s.deps.clock.advance(100);
  ch.deliver({ t: 'pong', seq: 0 });
  assert.equal(s.conn.rttMs, 100);
  const lastHeard = s.deps.clock.monotonic();
  s.deps.clock.advance(CONN_OPTS.heartbeatTimeoutMs - 1);
  assert.equal(s.conn.state, 'ready');
  assert.equal(ch.sentOfType('ping').at(-1)?.rtt, 100, 'pings carry the last RTT');
  s.deps.clock.advance(1);
  assert.equal(s.deps.clock.monotonic() - lastHeard, CONN_OPTS.heartbeatTimeoutMs);
  assert.equal(s.outcomes.length, 1);
  assert.equal(s.outcomes[0]!.reason, 'heartbeat_timeout');
  assert.equal(s.outcomes[0]!.wasReady, true);
  assert.equal(ch.closeCalls[0]?.reason, 'heartbeat_timeout');
  assert.equal(s.deps.clock.pending, 0);
});

test('the channel dropping while ready reports its reason', async () => {
  const s = setup();
  await toAuthenticating(s);
  s.deps.lastChannel.deliver(auth('accepted'));
  s.deps.lastChannel.drop('reset');
  assert.equal(s.outcomes.length, 1);
  assert.equal(s.outcomes[0]!.reason, 'reset');
  assert.equal(s.outcomes[0]!.wasReady, true);
  assert.equal(s.deps.clock.pending, 0);
});

test('open() twice throws; open() after close() dials nothing', async () => {
  const s = setup();
  s.conn.open();
  assert.throws(
    () => s.conn.open(),
    (err: unknown) => isBrineError(err, 'INTERNAL'),
  );
  const t = setup();
  t.conn.close('shutdown');
  assert.equal(t.outcomes.length, 1);
  t.conn.open();
  await flush();
  assert.equal(t.deps.resolves.length, 0);
  assert.equal(t.deps.dials.length, 0);
  assert.equal(t.outcomes.length, 1);
});

test('the transition table: forward only, closed reachable from everywhere, closed is terminal', () => {
  const allowed = new Set([
    'resolving>connecting',
    'resolving>closed',
    'connecting>handshaking',
    'connecting>closed',
    'handshaking>authenticating',
    'handshaking>closed',
    'authenticating>pending',
    'authenticating>ready',
    'authenticating>closed',
    'pending>closed',
    'ready>closed',
  ]);
  for (const from of CONNECTION_STATES) {
    for (const to of CONNECTION_STATES) {
      assert.equal(canTransition(from, to), allowed.has(`${from}>${to}`), `${from} -> ${to}`);
    }
  }
});

test('observer callbacks that throw never cost the single onClosed', async () => {
  const boom = () => {
    throw new Error('observer bug');
  };
  const s = setup({}, { onStateChange: boom, onReady: boom, onMessage: boom });
  s.conn.open();
  await flush();
  s.deps.lastChannel.deliver(auth('accepted'));
  s.deps.lastChannel.deliver(JOB);
  s.deps.lastChannel.drop('reset');
  s.deps.clock.advance(100_000);
  assert.equal(s.outcomes.length, 1);
  assert.equal(s.conn.state, 'closed');
  assert.equal(s.deps.clock.pending, 0);
});

type Step =
  | { kind: 'resolve'; ok: boolean }
  | { kind: 'dial'; ok: boolean }
  | { kind: 'tcp' }
  | { kind: 'auth'; status: 'accepted' | 'pending' | 'rejected' | 'denied' }
  | { kind: 'msg'; which: 'job' | 'ping' | 'pong' | 'bye' | 'error' }
  | { kind: 'drop' }
  | { kind: 'close' }
  | { kind: 'advance'; ms: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('resolve' as const), ok: fc.boolean() }),
  fc.record({ kind: fc.constant('dial' as const), ok: fc.boolean() }),
  fc.record({ kind: fc.constant('tcp' as const) }),
  fc.record({ kind: fc.constant('auth' as const), status: fc.constantFrom('accepted' as const, 'pending' as const, 'rejected' as const, 'denied' as const) }),
  fc.record({ kind: fc.constant('msg' as const), which: fc.constantFrom('job' as const, 'ping' as const, 'pong' as const, 'bye' as const, 'error' as const) }),
  fc.record({ kind: fc.constant('drop' as const) }),
  fc.record({ kind: fc.constant('close' as const) }),
  fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 40_000 }) }),
);

test('property: whatever happens in whatever order, exactly one onClosed and only legal transitions', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(step, { maxLength: 14 }), fc.boolean(), fc.boolean(), async (steps, throwing, distrust) => {
      const boom = () => {
        throw new Error('observer bug');
      };
      const transitions: Array<[ConnectionState, ConnectionState]> = [];
      const record = (from: ConnectionState, to: ConnectionState) => {
        transitions.push([from, to]);
        if (throwing) boom();
      };
      const s = setup(
        { autoResolve: false, autoDial: false, ...(distrust ? { trustMaster: keyChanged } : {}) },
        throwing ? { onStateChange: record, onReady: boom, onMessage: boom } : { onStateChange: record },
      );
      const { FakeChannel } = await import('./fakes.js');
      s.conn.open();
      for (const st of steps) {
        const pendingResolve = s.deps.resolves.find((r) => !('done' in r));
        const dial = s.deps.dials.at(-1);
        const ch = s.deps.channels.at(-1);
        switch (st.kind) {
          case 'resolve':
            if (pendingResolve) {
              Object.assign(pendingResolve, { done: true });
              if (st.ok) pendingResolve.result.resolve('192.0.2.10');
              else pendingResolve.result.reject(new Error('ENOTFOUND'));
            }
            break;
          case 'dial':
            if (dial && !dial.channel && !('done' in dial)) {
              Object.assign(dial, { done: true });
              if (st.ok) dial.result.resolve(new FakeChannel());
              else dial.result.reject(new BrineError('CONNECT_FAILED', 'refused'));
            }
            break;
          case 'tcp':
            dial?.onTcpConnected();
            break;
          case 'auth':
            ch?.deliver(auth(st.status));
            break;
          case 'msg': {
            const m = { job: JOB, ping: { t: 'ping', seq: 1 }, pong: { t: 'pong', seq: 0 }, bye: { t: 'bye', reason: 'shutdown' }, error: { t: 'error', code: 'X', message: 'y' } } as const;
            ch?.deliver(m[st.which]);
            break;
          }
          case 'drop':
            ch?.drop('reset');
            break;
          case 'close':
            s.conn.close('shutdown');
            break;
          case 'advance':
            s.deps.clock.advance(st.ms);
            break;
        }
        await flush();
        assert.ok(s.outcomes.length <= 1, 'onClosed more than once');
      }
      // whatever is still open, a shutdown ends it
      s.conn.close('shutdown');
      await flush();
      for (const d of s.deps.dials) if (!d.channel && !('done' in d)) d.result.resolve(new FakeChannel());
      for (const r of s.deps.resolves) if (!('done' in r)) r.result.resolve('192.0.2.10');
      await flush();
      s.deps.clock.advance(1_000_000);
      assert.equal(s.outcomes.length, 1);
      assert.equal(s.conn.state, 'closed');
      assert.equal(s.deps.clock.pending, 0);
      for (const ch of s.deps.channels) assert.equal(ch.closed, true, 'every channel closed');
      let state: ConnectionState = 'resolving';
      for (const [from, to] of transitions) {
        assert.equal(from, state);
        assert.ok(canTransition(from, to), `${from} -> ${to}`);
        state = to;
      }
      assert.equal(state, 'closed');
      assert.equal(s.outcomes[0]!.lastState, transitions.at(-1)![0]);
    }),
    { numRuns: 300 },
  );
});
