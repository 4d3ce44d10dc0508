// NATS cluster routes (issue 21 point 1, threats.md #41): a peer that reaches a server's cluster
// port and introduces itself as another server must get nothing, neither the interest and
// messages of every account nor a way to inject a job. `brine nats server-config` makes routes
// require TLS with a certificate from the cluster CA and the route password; these tests speak
// the route protocol by hand against a real 3-node cluster on which a real minion runs.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { formatJid } from '../../src/jobs/jid.js';
import { natsSkip, startNats, type NatsFixture } from '../helpers/nats.js';
import { NatsBrine } from '../helpers/nats-brine.js';
import { RoutePeer } from '../helpers/nats-route-peer.js';

describe('NATS cluster routes', { skip: natsSkip('the NATS route tests'), timeout: 180_000 }, () => {
  let nats: NatsFixture;
  let nb: NatsBrine;
  let scratch: string;
  const peers: RoutePeer[] = [];

  before(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-nats-routes-'));
    nats = await startNats(3);
    nb = await NatsBrine.create(nats);
    await nb.startMaster(0);
    // the minion's only server is n1: a message a route hands to n1 reaches it
    const m = await nb.startMinion('route1', {}, [nats.urls[0]!]);
    await nb.cluster.waitForPending(['route1']);
    assert.equal((await nb.brine(['key', '-a', 'route1', '-y'])).code, 0);
    await m.waitForOutput(/connected to NATS server/, 20_000);
  });
  after(async () => {
    for (const p of peers) p.close();
    await nb?.cleanup();
    await nats?.cleanup();
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  async function peer(...args: Parameters<typeof RoutePeer.connect>): Promise<RoutePeer> {
    const p = await RoutePeer.connect(...args);
    peers.push(p);
    return p;
  }

  /** A job for route1 that touches `marker` if it ever runs. */
  function injectedJob(marker: string): string {
    return JSON.stringify({ t: 'job', jid: formatJid(Date.now() * 1000), fun: 'cmd.run', arg: [`touch ${marker}`], kwarg: {}, tgt: 'route1', tgtType: 'glob' });
  }

  it('a raw peer speaking the route protocol on the cluster port is refused, and the job it injects never runs', async () => {
    const marker = path.join(scratch, 'injected-plain');
    const p = await peer(nats.nodes[0]!.routePort);
    p.introduce('brine');
    p.inject(nats.accounts.brine, 'brine.job.route1', injectedJob(marker));
    await p.settled(10_000);
    // the minion still runs what a master sends, after whatever the peer sent
    const ping = await nb.brine(['run', 'route1', 'test.ping', '--out', 'json']);
    assert.deepEqual(JSON.parse(ping.stdout), { route1: true }, ping.stderr);
    await new Promise((r) => setTimeout(r, 1000));
    // a route that was taken answers PING with PONG and sends its subscriptions (RS+ lines)
    assert.deepEqual(
      { tookRoute: /PONG|RS\+|RMSG|LS\+/.test(p.output), closed: p.closed, injectedJobRan: fs.existsSync(marker) },
      { tookRoute: false, closed: true, injectedJobRan: false },
      `the server's bytes to the raw peer: ${JSON.stringify(p.output.slice(0, 300))}`,
    );
  });
});
