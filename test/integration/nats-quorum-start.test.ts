// A master started before its NATS cluster has a JetStream leader (issue 21 point 11): one of
// three servers runs, so the client connection works but nothing in JetStream answers. The
// master must wait and say why (NATS_UNAVAILABLE, no JetStream leader yet) instead of stopping
// with "INTERNAL: timeout", and become ready once the other servers start.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { natsSkip, startNats, type NatsFixture } from '../helpers/nats.js';
import { NatsBrine } from '../helpers/nats-brine.js';
import { nothingFor } from '../helpers/wait.js';

describe('a NATS master started before JetStream has a leader', { skip: natsSkip('the NATS quorum start-up test'), timeout: 180_000 }, () => {
  let nats: NatsFixture;
  let nb: NatsBrine;

  before(async () => {
    nats = await startNats(3, { startOnly: 1 });
    nb = await NatsBrine.create(nats);
  });
  after(async () => {
    await nb?.cleanup();
    await nats?.cleanup();
  });

  it('waits with a NATS_UNAVAILABLE warning naming no JetStream leader yet, then serves test.ping once the other servers start', async () => {
    const started = Date.now();
    const master = nb.spawnMaster(0);
    await master.waitForOutput(/no JetStream leader yet.*code=NATS_UNAVAILABLE/, 30_000).catch((err: Error) => {
      throw new Error(`${err.message.split('\n')[0]}; the master printed:\n${master.output}`);
    });
    // the old start-up gave up after 5 s (INTERNAL: timeout) or 20 s (NATS_UNAVAILABLE): still waiting past both
    await nothingFor(
      Math.max(0, started + 22_000 - Date.now()),
      'the master giving up on the missing JetStream leader',
      () => (!master.running || /INTERNAL|Please report/.test(master.output)) && master.output,
    );
    assert.equal(master.running, true, master.output);
    assert.doesNotMatch(master.output, /INTERNAL|Please report/);
    await nats.startDeferred();
    await master.waitForOutput(/brine master connected to NATS/, 60_000);
    await nb.startAcceptedMinion('quorum1', {}, undefined, 30_000);
    const ping = await nb.brine(['run', 'quorum1', 'test.ping', '--out', 'json']);
    assert.deepEqual(JSON.parse(ping.stdout), { quorum1: true }, ping.stderr);
  });
});
