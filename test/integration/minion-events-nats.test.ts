// Issue 25 point 2 on transport: nats: a minion's event.send travels on brine.req.<id>.event, is
// fired once by the master with the ID of the NATS subject (the minion's credentials), never the
// payload's, and a reserved tag comes back refused with EVENT_TAG_RESERVED. State progress
// (state_events) travels the same subject.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
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

  it('state_events: the state_progress messages travel on brine.req.<id>.event and are fired as salt/job/<jid>/prog/<id>/<n>', async () => {
    const roots = path.join(nb.masterRoot(0), 'srv', 'salt');
    fs.mkdirSync(roots, { recursive: true });
    fs.writeFileSync(path.join(roots, 'prog.sls'), 'a:\n  test.succeed_without_changes\nb:\n  test.succeed_with_changes\n');
    const r = await nb.brine(['run', 'ne1', 'state.apply', 'prog', 'state_events=True', '--out', 'json', '--show-jid'], 0, { timeoutMs: 60_000 });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const jid = /jid: (\d{20})/.exec(r.stdout)?.[1];
    assert.ok(jid, r.stdout);
    const prog = await stream.waitFor(`salt/job/${jid}/prog/`, 2, 20_000);
    assert.deepEqual(
      prog.map((e) => e.tag),
      [`salt/job/${jid}/prog/ne1/0`, `salt/job/${jid}/prog/ne1/1`],
    );
    assert.equal(prog[0]!.data.id, 'ne1');
    assert.equal((prog[1]!.data.data as { len: number }).len, 2);
    assert.equal((prog[1]!.data.data as { ret: { __id__: string } }).ret.__id__, 'b');
  });
});
