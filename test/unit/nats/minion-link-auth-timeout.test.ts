// Issue 27 point 5: after a nats-server's loss, its share of minions reconnects at once and the
// surviving servers answer some CONNECTs after their authorization timeout. nats-server replies
// 'Authentication Timeout', which nats.js types as an AuthorizationError (and gives up on a
// connection after two in a row). That is a slow handshake, not a revocation: the link must dial
// again with the JWT it has, not forget it and send the whole share to the masters to sign in.
// A real refusal ('Authorization Violation') still makes it sign in again.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AuthorizationError } from '@nats-io/transport-node';
import { isNatsAuthError, isNatsAuthTimeout } from '../../../src/nats/index.js';
import { MINION_JWT, setup } from './link-fixture.js';
import { settle } from '../../helpers/wait.js';

const withDir = async (fn: (dir: string) => Promise<void>) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-nats-authto-'));
  try {
    await fn(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
};

/** Runs the fake clock past the longest backoff until the link has dialled again. */
async function nextDial(s: ReturnType<typeof setup>, before: number) {
  for (let i = 0; i < 20 && s.net.dials.length === before; i++) {
    s.clock.advance(10_000);
    await settle(6);
  }
  const d = s.net.dials[before];
  assert.ok(d, 'the link never dialled again');
  return d;
}

test("nats.js's reading of the server's 'Authentication Timeout' is an AuthorizationError, and the link does not take it for a refusal", () => {
  // what nats.js makes of the server's -ERR line (its own parser, not our guess at its type)
  const fromServer = AuthorizationError.parse('Authentication Timeout');
  assert.ok(fromServer instanceof AuthorizationError);
  assert.equal(isNatsAuthTimeout(fromServer), true);
  assert.equal(isNatsAuthError(fromServer), false);
  const violation = AuthorizationError.parse('Authorization Violation');
  assert.equal(isNatsAuthTimeout(violation), false);
  assert.equal(isNatsAuthError(violation), true);
});

for (const when of ['the session', 'the dial'] as const) {
  test(`an 'Authentication Timeout' ending ${when}: the link dials a session again with the same JWT, no sign-in`, async () => {
    await withDir(async (dir) => {
      const s = setup(dir, true);
      s.link.start();
      await settle(6);
      const first = s.net.pending();
      assert.ok(first && !first.conn.signingIn, 'a minion with a saved JWT dials a session first');
      if (when === 'the session') {
        s.net.settle(first, 'ok');
        await settle(6);
        assert.equal(s.link.state, 'ready');
        first.conn.finish(new AuthorizationError('Authentication Timeout'));
      } else {
        s.net.settle(first, 'auth-timeout');
      }
      await settle(6);
      const again = await nextDial(s, 1);
      assert.equal(again.conn.signingIn, false, 'signed in again for a timeout');
      assert.equal(fs.readFileSync(s.jwtFile, 'utf8'), MINION_JWT, 'the JWT was forgotten');
      s.net.settle(again, 'ok');
      await settle(6);
      assert.equal(s.link.state, 'ready');
      s.link.stop();
      await settle(6);
    });
  });
}

test("an 'Authorization Violation' ending the session still makes the link sign in again (revoked credentials)", async () => {
  await withDir(async (dir) => {
    const s = setup(dir, true);
    s.link.start();
    await settle(6);
    const first = s.net.pending();
    assert.ok(first);
    s.net.settle(first, 'ok');
    await settle(6);
    first.conn.finish(new AuthorizationError('Authorization Violation'));
    await settle(6);
    const again = await nextDial(s, 1);
    assert.equal(again.conn.signingIn, true, 'a refused minion must ask a master again');
    assert.equal(fs.existsSync(s.jwtFile), false, 'the refused JWT was kept');
    s.link.stop();
    s.net.settle(again, 'refused');
    await settle(6);
  });
});
