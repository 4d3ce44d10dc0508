// NatsMinionLink under random sequences of network events (issue 24), as MasterConnection's and
// MasterLink's property tests: dials that connect, fail or are refused with nats.js's typed
// AuthorizationError, sign-in answers, disconnects and reconnects inside a session, closes,
// time passing, start and stop. Every state change must go through the link contract's table
// (recorded, contiguous from idle), at most one session is open, and once the network heals
// the link is ready again: no sequence leaves it stuck (incidents.md #1).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { AuthorizationError } from '@nats-io/transport-node';
import { canLinkTransition, type LinkState } from '../../../src/session/index.js';
import { isNatsAuthError } from '../../../src/nats/index.js';
import { ACCEPTED, PENDING, setup } from './link-fixture.js';
import { settle } from '../../helpers/wait.js';

type Step =
  | { kind: 'dial'; outcome: 'ok' | 'refused' | 'auth' }
  | { kind: 'answer'; with: 'accepted' | 'pending' | 'timeout' }
  | { kind: 'status'; type: 'disconnect' | 'reconnect' | 'staleConnection' }
  | { kind: 'close'; auth: boolean }
  | { kind: 'advance'; ms: number }
  | { kind: 'start' | 'forget' }
  | { kind: 'stop' };

// weighted towards the network's events: a stop ends a run's interesting part early
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('dial' as const), outcome: fc.constantFrom('ok' as const, 'ok' as const, 'ok' as const, 'refused' as const, 'auth' as const) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('answer' as const), with: fc.constantFrom('accepted' as const, 'pending' as const, 'timeout' as const) }) },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('status' as const), type: fc.constantFrom('disconnect' as const, 'reconnect' as const, 'staleConnection' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('close' as const), auth: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 30_000 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom('start' as const, 'forget' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('stop' as const) }) },
);

test("nats.js's typed authorisation errors are the link's auth refusals; a lost server is not", () => {
  assert.equal(isNatsAuthError(new AuthorizationError("'Authorization Violation'")), true);
  assert.equal(isNatsAuthError(new Error('Authorization Violation')), false, 'the text alone proves nothing');
  assert.equal(isNatsAuthError(undefined), false);
});

test('property: whatever the network does, every move goes through the table, one session at a time, and a healed network brings the link back', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-nats-prop-'));
  // how many runs reached each state: a property that never reaches a session proves little
  const reached = new Map<LinkState, number>();
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 8, maxLength: 24 }), fc.boolean(), async (steps, savedJwt) => {
        const s = setup(dir, savedJwt);
        s.link.start();
        await settle(6);
        let stopped = false;
        for (const st of steps) {
          const live = s.net.open().find((c) => !c.signingIn);
          switch (st.kind) {
            case 'dial': {
              const d = s.net.pending();
              if (d) s.net.settle(d, st.outcome);
              break;
            }
            case 'answer': {
              const c = s.net.open().find((x) => x.signingIn && x.requested);
              if (st.with === 'timeout') c?.requestTimesOut();
              else c?.signinAnswer.resolve(st.with === 'accepted' ? ACCEPTED : PENDING);
              break;
            }
            case 'status':
              live?.emit(st.type === 'staleConnection' ? { type: st.type } : { type: st.type, server: 'nats://127.0.0.1:4222' });
              break;
            case 'close':
              live?.finish(st.auth ? new AuthorizationError("'Authorization Violation'") : undefined);
              break;
            case 'advance':
              s.clock.advance(st.ms);
              break;
            case 'forget':
              // the saved JWT is lost or mangled: the next attempt signs in again
              fs.rmSync(s.jwtFile, { force: true });
              break;
            case 'start':
              s.link.start();
              break;
            case 'stop':
              s.link.stop();
              stopped = true;
              break;
          }
          await settle(6);
          assert.ok(s.net.open().filter((c) => !c.signingIn).length <= 1, `two sessions open after ${JSON.stringify(st)}`);
          // a session that lost its server, or ended, is never reported ready
          const lost = (st.kind === 'status' && st.type === 'disconnect') || st.kind === 'close';
          if (live !== undefined && lost) assert.equal(s.link.ready, false, `still ready after ${JSON.stringify(st)}`);
        }
        for (const st of new Set(s.transitions.map(([, to]) => to))) reached.set(st, (reached.get(st) ?? 0) + 1);
        // the network heals: dials connect, masters accept, a redialling client gets its server back
        s.net.auto = 'ok';
        for (const d of s.net.dials) if (d.outcome === undefined) s.net.settle(d, 'ok');
        for (let round = 0; round < 30 && !s.link.ready && !stopped; round++) {
          for (const c of s.net.open()) {
            if (c.signingIn && c.requested) c.signinAnswer.resolve(ACCEPTED);
            if (!c.signingIn && s.link.state === 'reconnecting') c.emit({ type: 'reconnect', server: 'nats://127.0.0.1:4222' });
          }
          s.clock.advance(45_000);
          await settle(6);
        }
        if (!stopped) assert.equal(s.link.state, 'ready', `stuck in ${s.link.state} after ${JSON.stringify(steps)}`);
        s.link.stop();
        await settle(6);
        // a sign-in request still waiting ends at nats.js's own deadline; the link must close it
        for (const c of s.net.open()) if (c.signingIn && c.requested) c.requestTimesOut();
        await settle(6);
        s.clock.advance(1_000_000);
        await settle(6);
        assert.equal(s.link.state, 'stopped');
        assert.equal(s.net.open().length, 0, 'every connection closed after stop');
        assert.equal(s.clock.pending, 0, 'no timer left behind');
        let at: LinkState = 'idle';
        for (const [from, to] of s.transitions) {
          assert.equal(from, at, `moved from ${from} while ${at}: the table was bypassed`);
          assert.ok(canLinkTransition(from, to), `${from} -> ${to}`);
          at = to;
        }
        assert.equal(at, 'stopped');
        assert.ok(!s.transitions.some(([, to]) => to === 'probing'), 'NATS has no failback probe');
      }),
      { numRuns: 250 },
    );
    assert.ok((reached.get('reconnecting') ?? 0) >= 10, `runs that reached reconnecting: ${reached.get('reconnecting') ?? 0}`);
    assert.ok((reached.get('ready') ?? 0) >= 40, `runs that reached ready: ${reached.get('ready') ?? 0}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
