// The master's session router (issue 24): every session moment reaches the feature list, and a
// feature that throws during a session's moment makes the hook throw once every feature had the
// moment, so the session closes itself with internal_error as it did before the daemon was split.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FeatureList, type Feature } from '../../../src/util/features.js';
import { createLogger } from '../../../src/util/logger.js';
import { systemClock } from '../../../src/util/clock.js';
import type { MinionMessage } from '../../../src/protocol/index.js';
import { AuthAdmission } from '../../../src/master/admission.js';
import { LiveSessions } from '../../../src/master/live-sessions.js';
import type { MinionSession } from '../../../src/master/minion-session.js';
import { RefusalLog } from '../../../src/master/refusal-log.js';
import { HookFailures, sessionHooks } from '../../../src/master/session-router.js';

type TestFeature = Feature<MinionSession, MinionMessage>;

function capture(): { logger: ReturnType<typeof createLogger>; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ name: 'master', level: 'debug', format: 'json', write: (l) => lines.push(JSON.parse(l) as Record<string, unknown>) });
  return { logger, lines };
}

/** A session as the router sees it: an ID, an address, whether it was a probe. */
function session(id: string): MinionSession {
  return { id, remoteAddress: '127.0.0.1:5000', probed: false, ready: true } as unknown as MinionSession;
}

function router(features: TestFeature[]) {
  const { logger, lines } = capture();
  const failures = new HookFailures(logger);
  const list = new FeatureList<MinionSession, MinionMessage>(features, failures.onError);
  const refusals = new RefusalLog(logger, systemClock);
  const verdict = () => ({ status: 'accepted' as const, message: '' });
  const hooks = sessionHooks({
    features: () => list,
    failures,
    live: new LiveSessions(),
    authorize: verdict,
    probe: verdict,
    admission: new AuthAdmission(systemClock, 0, Math.random, 0),
    refusals,
    logger,
  });
  return { hooks, list, failures, lines, dispose: () => refusals.stop() };
}

describe('session router', () => {
  it('routes sign-in, each message kind and a signed-in close to the features; a close before sign-in reaches none', (t) => {
    const seen: string[] = [];
    const r = router([
      {
        name: 'rec',
        onReady: (s) => void seen.push(`ready ${s.id}`),
        onDown: (s, reason) => void seen.push(`down ${s.id} ${reason}`),
        onMessage: (m, s) => {
          seen.push(`${m.t} ${s.id}${m.t === 'grains' ? ` ${JSON.stringify(m.grains)}` : ''}`);
          return true;
        },
      },
    ]);
    t.after(r.dispose);
    const s = session('web1');
    r.hooks.onAuthenticated(s);
    r.hooks.onGrains?.(s, { os: 'Debian' });
    r.hooks.onHeartbeat?.(s, { t: 'ping', seq: 1 });
    r.hooks.onPillarRequest?.(s, { t: 'pillar_request', rid: 1 } as never);
    r.hooks.onClosed(s, { reason: 'heartbeat_timeout', local: true }, true);
    r.hooks.onClosed(session('stranger'), { reason: 'handshake_timeout', local: true }, false);
    assert.deepEqual(seen, ['ready web1', 'grains web1 {"os":"Debian"}', 'ping web1', 'pillar_request web1', 'down web1 heartbeat_timeout']);
  });

  it('a feature that throws on a message: the later features still see it, then the hook throws it (the session closes itself)', (t) => {
    const seen: string[] = [];
    const r = router([
      {
        name: 'broken',
        onMessage: () => {
          throw new Error('jobs broke');
        },
      },
      {
        name: 'after',
        onMessage: (m) => {
          seen.push(m.t);
          return true;
        },
      },
    ]);
    t.after(r.dispose);
    assert.throws(() => r.hooks.onHeartbeat?.(session('web1'), { t: 'ping', seq: 1 }), /jobs broke/);
    assert.deepEqual(seen, ['ping']);
    assert.equal(
      r.lines.some((l) => l.feature === 'broken'),
      false,
      'thrown to the session, which logs it when it closes; not logged twice',
    );
  });

  it('a failure in a nested moment (a sign-in closing the session it replaces) is thrown to the nested caller only', (t) => {
    const old = session('web1');
    let innerError: unknown;
    const r = router([
      {
        name: 'presence',
        onReady: () => {
          try {
            r.hooks.onClosed(old, { reason: 'replaced', local: true }, true);
          } catch (err) {
            innerError = err;
          }
        },
        onDown: () => {
          throw new Error('detach broke');
        },
      },
    ]);
    t.after(r.dispose);
    r.hooks.onAuthenticated(session('web1'));
    assert.match(String(innerError), /detach broke/);
  });

  it('outside a session moment (start, stop) a failing hook is logged with its feature and hook, and the others still stop', async (t) => {
    const stopped: string[] = [];
    const r = router([
      { name: 'presence', stop: () => void stopped.push('presence') },
      {
        name: 'api',
        stop: () => {
          throw new Error('close failed');
        },
      },
    ]);
    t.after(r.dispose);
    await r.list.stop();
    assert.deepEqual(stopped, ['presence']);
    const line = r.lines.find((l) => l.feature === 'api');
    assert.equal(line?.hook, 'stop');
    assert.match(String(line?.msg), /master feature api: stop failed/);
    assert.match(String((r.failures.stopFailure?.err as Error | undefined)?.message), /close failed/, 'kept for Master.stop to fail with (exit 1) once the others stopped');
  });
});
