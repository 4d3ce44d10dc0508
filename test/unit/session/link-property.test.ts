// The link contract's table (src/session/link-contract.ts), and MasterLink under random event
// sequences (issue 24), as MasterConnection's property test: dials that connect or fail, every
// auth answer, drops, time passing (failback probes included), start and stop. Every move must
// go through the table (recorded by onLinkState, contiguous from idle), a ready link has a ready
// connection, and once the masters answer again the link is ready: never stuck (incidents.md #1).
// The NATS link's twin is test/unit/nats/minion-link-property.test.ts.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { canLinkTransition, LINK_STATES, type LinkState, LinkStateMachine, MasterLink, MasterPool } from '../../../src/session/index.js';
import { isBrineError } from '../../../src/util/errors.js';
import { auth, CONN_OPTS, FakeChannel, FakeDeps, flush } from './fakes.js';

test('the link table: the moves both transports may make, stopped terminal, reconnecting only from and to a session', () => {
  const allowed = new Set([
    'idle>connecting',
    'idle>stopped',
    'connecting>ready',
    'connecting>waiting',
    'connecting>stopped',
    'ready>probing',
    'ready>reconnecting',
    'ready>waiting',
    'ready>stopped',
    'probing>ready',
    'probing>waiting',
    'probing>stopped',
    'reconnecting>ready',
    'reconnecting>waiting',
    'reconnecting>stopped',
    'waiting>connecting',
    'waiting>stopped',
  ]);
  for (const from of LINK_STATES) {
    for (const to of LINK_STATES) assert.equal(canLinkTransition(from, to), allowed.has(`${from}>${to}`), `${from} -> ${to}`);
  }
});

test('LinkStateMachine: an illegal move throws INTERNAL and changes nothing; observers see each legal one', () => {
  const seen: string[] = [];
  const m = new LinkStateMachine((from, to) => seen.push(`${from}>${to}`));
  assert.throws(
    () => m.move('ready'),
    (err) => isBrineError(err, 'INTERNAL'),
  );
  assert.equal(m.state, 'idle');
  m.move('connecting');
  m.move('ready');
  m.move('reconnecting');
  m.move('stopped');
  assert.throws(() => m.move('connecting'), /illegal link transition stopped -> connecting/);
  assert.equal(m.stopped, true);
  assert.deepEqual(seen, ['idle>connecting', 'connecting>ready', 'ready>reconnecting', 'reconnecting>stopped']);
});

type Step =
  | { kind: 'dial'; ok: boolean }
  | { kind: 'auth'; status: 'accepted' | 'pending' | 'rejected' | 'busy' }
  | { kind: 'drop'; which: number }
  | { kind: 'advance'; ms: number }
  | { kind: 'start' }
  | { kind: 'stop' };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('dial' as const), ok: fc.constantFrom(true, true, false) }) },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('auth' as const),
      status: fc.constantFrom('accepted' as const, 'accepted' as const, 'accepted' as const, 'pending' as const, 'rejected' as const, 'busy' as const),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('drop' as const), which: fc.nat(3) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 20_000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('start' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('stop' as const) }) },
);

/** With failback, each run starts ready on the second master, so the probe to the first is in reach. */
const ON_SECOND_MASTER: readonly Step[] = [
  { kind: 'dial', ok: false },
  { kind: 'advance', ms: 50 },
  { kind: 'dial', ok: true },
  { kind: 'auth', status: 'accepted' },
];

const M1 = { host: 'm1', port: 4501 };
const M2 = { host: 'm2', port: 4502 };

test('property: MasterLink moves only through the table, a ready link has a ready connection, and healed masters bring it back', async () => {
  const reached = new Map<LinkState, number>();
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 6, maxLength: 24 }), fc.boolean(), fc.boolean(), async (steps, failback, rejectedRetry) => {
      const deps = new FakeDeps({ autoDial: false });
      const transitions: Array<[LinkState, LinkState]> = [];
      let fatal = 0;
      const pool = failback ? new MasterPool([M1, M2], { failover: true, randomMaster: false, failback: true }) : MasterPool.single(M1);
      const link = new MasterLink(
        pool,
        deps,
        CONN_OPTS,
        { backoff: { baseMs: 1_000, maxMs: 8_000, randomize: true }, acceptanceWaitMs: 10_000, acceptanceWaitMaxMs: 40_000, rejectedRetry, failbackIntervalMs: 5_000 },
        { onLinkState: (from, to) => transitions.push([from, to]), onFatal: () => fatal++ },
      );
      const answered = new Set<FakeChannel>();
      const settleDial = (ok: boolean): void => {
        const dial = deps.dials.find((d) => !d.channel && !('done' in d));
        if (dial === undefined) return;
        Object.assign(dial, { done: true });
        if (!ok) {
          dial.result.reject(new Error('ECONNREFUSED'));
          return;
        }
        dial.onTcpConnected();
        dial.result.resolve(new FakeChannel());
      };
      link.start();
      await flush();
      let stopped = false;
      for (const st of failback ? [...ON_SECOND_MASTER, ...steps] : steps) {
        const open = deps.channels.filter((c) => !c.closed);
        switch (st.kind) {
          case 'dial':
            settleDial(st.ok);
            break;
          case 'auth': {
            const ch = open.find((c) => !answered.has(c));
            if (ch) {
              answered.add(ch);
              ch.deliver(auth(st.status));
            }
            break;
          }
          case 'drop':
            open[st.which % Math.max(1, open.length)]?.drop('reset');
            break;
          case 'advance':
            deps.clock.advance(st.ms);
            break;
          case 'start':
            link.start();
            break;
          case 'stop':
            link.stop();
            stopped = true;
            break;
        }
        await flush();
        assert.ok(deps.maxConcurrent <= (failback ? 2 : 1), `too many attempts at once after ${JSON.stringify(st)}`);
        if (link.ready) assert.equal(link.connection?.state, 'ready', `ready on a ${link.connection?.state} connection after ${JSON.stringify(st)}`);
      }
      for (const st of new Set(transitions.map(([, to]) => to))) reached.set(st, (reached.get(st) ?? 0) + 1);
      // the masters answer again: every dial connects, every new session is accepted
      for (let round = 0; round < 30 && !link.ready && !stopped && fatal === 0; round++) {
        settleDial(true);
        await flush();
        for (const ch of deps.channels.filter((c) => !c.closed && !answered.has(c))) {
          answered.add(ch);
          ch.deliver(auth('accepted'));
        }
        await flush();
        // time passes only until it is ready: the fake masters answer no pings
        if (link.ready) break;
        deps.clock.advance(45_000);
        await flush();
      }
      if (!stopped && fatal === 0) assert.ok(link.ready, `stuck in ${link.state} after ${JSON.stringify(steps)}`);
      if (fatal > 0) assert.equal(link.state, 'stopped', 'a fatal refusal ends the link');
      link.stop();
      for (const d of deps.dials) if (!d.channel && !('done' in d)) d.result.resolve(new FakeChannel());
      await flush();
      deps.clock.advance(1_000_000);
      await flush();
      assert.equal(deps.clock.pending, 0, 'no timer left behind');
      for (const ch of deps.channels) assert.equal(ch.closed, true, 'every channel closed');
      let at: LinkState = 'idle';
      for (const [from, to] of transitions) {
        assert.equal(from, at, `moved from ${from} while ${at}: the table was bypassed`);
        assert.ok(canLinkTransition(from, to), `${from} -> ${to}`);
        at = to;
      }
      assert.equal(at, 'stopped');
      assert.ok(!transitions.some(([, to]) => to === 'reconnecting'), 'a TLS link never reconnects inside a session: its semantics are unchanged');
    }),
    { numRuns: 300 },
  );
  assert.ok((reached.get('ready') ?? 0) >= 120, `runs that reached ready: ${reached.get('ready') ?? 0}`);
  assert.ok((reached.get('probing') ?? 0) >= 25, `runs that reached probing: ${reached.get('probing') ?? 0}`);
});
