// Issue 24: one contract for both ways to the masters. The same steps run against a MasterLink
// over loopback TLS to a real `brine master` and a NatsMinionLink to a real nats-server: sign in,
// lose the far side without a goodbye, come back by itself, stop for good. Every state change
// must go through the shared table (recorded by onLinkState, contiguous from idle), and what a
// daemon reads (ready, connection, onDown's readyForMs and masterTrusted) must be real figures.
// Last, the NATS link's refusals: nats.js's typed errors from a real nats-server (issue 24 point 3).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { AuthorizationError, connect } from '@nats-io/transport-node';
import { canLinkTransition, type LinkState } from '../../src/session/index.js';
import { isNatsAuthError } from '../../src/nats/index.js';
import { freePort, waitUntil } from '../helpers/cluster.js';
import { natsSkip, nkeyAuth } from '../helpers/nats.js';
import { type LinkHarness, natsLink, tlsLink } from '../helpers/link-harness.js';

const PING = { t: 'ping', seq: 1 } as const;

/** Every recorded move is allowed by the table and starts where the previous one ended. */
function assertThroughTable(h: LinkHarness): void {
  let at: LinkState = 'idle';
  for (const [from, to] of h.log.transitions) {
    assert.equal(from, at, `a move from ${from} while the link was ${at}: the table was bypassed (${JSON.stringify(h.log.transitions)})`);
    assert.ok(canLinkTransition(from, to), `${from} -> ${to}`);
    at = to;
  }
  assert.equal(at, h.link.state, 'the last recorded move ends in the state the link reports');
}

function contract(name: string, make: () => Promise<LinkHarness>, skip: string | false): void {
  describe(`link contract: ${name}`, { skip }, () => {
    let h: LinkHarness;
    before(async () => {
      h = await make();
    });
    after(() => h?.cleanup());

    it('starts idle, signs in, and reports where: ready, a connection view, send goes out', async () => {
      assert.equal(h.link.state, 'idle');
      assert.equal(h.link.ready, false);
      assert.equal(h.link.send(PING), false, 'nothing goes out before the link is ready');
      h.link.start();
      await waitUntil(() => h.link.ready, 20_000, `${name} link ready`);
      assert.equal(h.link.state, 'ready');
      assert.equal(h.log.readies.length, 1);
      assert.match(h.log.readies[0]!.resolvedAddress ?? '', /127\.0\.0\.1/, 'onReady says where it signed in');
      assert.equal(h.link.connection?.state, 'ready');
      assert.ok(h.link.attempts >= 1);
      assert.equal(h.link.send(PING), true);
      const attempts = h.link.attempts;
      h.link.start();
      assert.equal(h.link.attempts, attempts, 'start() on a running link is a no-op');
      assertThroughTable(h);
    });

    it('loses the far side: one onDown with real figures, send refused, then ready again by itself', async () => {
      const readyAt = Date.now();
      await waitUntil(() => Date.now() - readyAt >= 300, 2_000, 'some time ready');
      await h.takeDown();
      await waitUntil(() => h.log.downs.length > 0, 20_000, `${name} link to notice the loss`);
      // the loss of a ready connection comes first; TLS also reports each failed redial after it
      const down = h.log.downs[0]!;
      assert.equal(down.wasReady, true);
      assert.equal(down.lastState, 'ready');
      assert.equal(down.masterTrusted, true, 'the far side was proven (master_finger / the enrolment file)');
      assert.ok(down.readyForMs >= 300, `readyForMs ${down.readyForMs} counts the time it was ready`);
      assert.ok(down.readyForMs <= Date.now() - readyAt + 20_000, `readyForMs ${down.readyForMs} is not made up`);
      assert.notEqual(h.link.state, 'ready');
      assert.equal(h.link.ready, false);
      assert.equal(h.link.send(PING), false, 'a message is kept by the caller while down');
      await h.bringBack();
      await waitUntil(() => h.link.ready, 30_000, `${name} link ready again`);
      assert.equal(h.log.readies.length, 2);
      assert.equal(h.log.downs.filter((d) => d.wasReady).length, 1, 'one loss of a ready link, one onDown for it');
      assert.equal(h.link.send(PING), true);
      assert.equal(h.log.fatal.length, 0);
      assertThroughTable(h);
    });

    it('stop() is terminal and idempotent: no onDown, nothing sent, start() never revives it', async () => {
      const downs = h.log.downs.length;
      h.link.stop();
      assert.equal(h.link.state, 'stopped');
      h.link.stop();
      h.link.start();
      assert.equal(h.link.state, 'stopped');
      assert.equal(h.link.ready, false);
      assert.equal(h.link.send(PING), false);
      assert.equal(h.log.downs.length, downs, 'a deliberate stop is not a down');
      assert.deepEqual(h.log.transitions.at(-1)?.[1], 'stopped');
      assertThroughTable(h);
    });
  });
}

contract('TLS (MasterLink, real brine master)', tlsLink, false);
contract('NATS (NatsMinionLink, real nats-server)', natsLink, natsSkip('the NATS link contract'));

describe('NATS link: refused credentials are recognised by nats.js error class, not by message text', { skip: natsSkip('NATS typed errors') }, () => {
  let h: Awaited<ReturnType<typeof natsLink>>;
  before(async () => {
    h = await natsLink({ jwtIssuer: 'stranger' });
  });
  after(() => h?.cleanup());

  it('a real nats-server refusing a JWT no trusted key signed raises AuthorizationError; a closed port does not', async () => {
    // the minion's own key signs the nonce: only the JWT's issuer is wrong
    const jwt = fs.readFileSync(h.jwtFile, 'utf8');
    const refused = await connect({ servers: h.urls, authenticator: nkeyAuth(h.signer, jwt), reconnect: false }).then(
      (nc) => nc.close().then(() => undefined),
      (err: unknown) => err,
    );
    assert.ok(refused instanceof AuthorizationError, `refused with ${String(refused)}`);
    assert.equal(isNatsAuthError(refused), true);
    const closedPort = await connect({ servers: `nats://127.0.0.1:${await freePort()}`, reconnect: false, timeout: 2_000 }).then(
      (nc) => nc.close().then(() => undefined),
      (err: unknown) => err,
    );
    assert.ok(closedPort instanceof Error);
    assert.equal(isNatsAuthError(closedPort), false, `${String(closedPort)} is no refusal of the credentials`);
  });

  it('the link drops the refused JWT to sign in again, and keeps retrying: no fatal, never ready', async () => {
    h.link.start();
    await waitUntil(() => !fs.existsSync(h.jwtFile), 15_000, 'the refused JWT to be dropped');
    // no master answers the sign-in on this bare server: the link waits and asks again
    await waitUntil(() => h.link.attempts >= 2, 15_000, 'a second attempt');
    assert.equal(h.link.ready, false);
    assert.notEqual(h.link.state, 'stopped');
    assert.equal(h.log.fatal.length, 0);
    assert.equal(h.log.readies.length, 0);
  });
});
