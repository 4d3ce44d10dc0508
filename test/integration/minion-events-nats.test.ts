// Issue 25 point 2 on transport: nats: a minion's event.send travels on brine.req.<id>.event, is
// fired once by the master with the ID of the NATS subject (the minion's credentials), never the
// payload's, and a reserved tag comes back refused with EVENT_TAG_RESERVED.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/cluster.js';
import { openEventStream, type EventTail } from '../helpers/event-tail.js';
import { natsSkip, startNats, type NatsFixture } from '../helpers/nats.js';
import { NatsBrine } from '../helpers/nats-brine.js';

describe('minion events on transport: nats', { skip: natsSkip('the NATS transport tests') }, () => {
  let nats: NatsFixture;
  let nb: NatsBrine;
  let stream: EventTail;
  const call = (args: string[]) => runCli(['call', ...args, '--out', 'json', '-c', nb.cluster.minionConfigDir('ne1')], { timeoutMs: 60_000 });

  before(async () => {
    nats = await startNats(1);
    nb = await NatsBrine.create(nats);
    await nb.startMaster();
    await nb.startAcceptedMinion('ne1');
    stream = await openEventStream(nb.cluster, 'ne1');
  });
  after(async () => {
    await stream?.close();
    await nb?.cleanup();
    await nats?.cleanup();
  });

  it('event.send arrives once with the session ID; a reserved tag is refused', async () => {
    const r = await call(['event.send', 'myco/nats/done', '{"id": "forged", "n": 1}']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const [e] = await stream.waitFor('myco/nats/done', 1, 20_000);
    assert.equal(e!.data.id, 'ne1');
    assert.equal(e!.data.cmd, '_minion_event');
    assert.deepEqual(e!.data.data, { id: 'forged', n: 1 });
    const bad = await call(['event.send', 'salt/auth', '{"n": 2}']);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stdout + bad.stderr, /may not fire "salt\/auth"/);
    // a later event proves the stream is past the refused one
    await call(['event.send', 'myco/nats/after']);
    await stream.waitFor('myco/nats/after', 1, 20_000);
    assert.equal(stream.lines('salt/auth').filter((l) => l.data.n === 2).length, 0);
    assert.equal(stream.lines('myco/nats/done').length, 1, 'fired once');
  });
});
