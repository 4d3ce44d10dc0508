// The seed scenarios on `transport: nats` (issue 13): a FaultProxy between a minion and its
// nats-server plays a NAT that silently forgets idle flows, and a path that goes black. The
// minion's NATS pings come from heartbeat_timeout (a quarter of it), so a NAT that forgets
// flows after more than that never sees one idle; one that forgets sooner, or a black hole,
// is noticed within heartbeat_timeout, the minion reconnects by itself, and the master marks it
// disconnected (heartbeat_timeout) meanwhile. A return finished during the black hole arrives once.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { waitUntil, type Proc } from '../helpers/cluster.js';
import { natsSkip, startNats, type NatsFixture } from '../helpers/nats.js';
import { NatsBrine } from '../helpers/nats-brine.js';
import { FaultProxy } from './index.js';
import { nothingFor } from '../helpers/wait.js';

const MASTER_TIMEOUT_S = 8;

interface Row {
  id: string;
  state: string;
  reconnects: number;
  lastDisconnectReason?: string;
  drops?: number;
}

describe('transport: nats through a NAT and a black hole (seed scenarios)', { skip: natsSkip('the NATS path faults') }, () => {
  let nats: NatsFixture;
  let nb: NatsBrine;
  const proxies: FaultProxy[] = [];

  const row = async (id: string): Promise<Row | undefined> => (JSON.parse((await nb.brine(['minions', 'status', '--out', 'sessions'])).stdout) as Row[]).find((r) => r.id === id);
  /** A minion whose only way to NATS is a fresh FaultProxy (one server: nothing else to discover). */
  const proxiedMinion = async (id: string, liveness: Record<string, number>): Promise<{ minion: Proc; proxy: FaultProxy }> => {
    const url = new URL(nats.urls[0]!);
    const proxy = await FaultProxy.start({ target: { host: url.hostname, port: Number(url.port) } });
    proxies.push(proxy);
    const minion = await nb.startMinion(id, { recon_default: 100, recon_max: 1000, auth_timeout: 2, ...liveness }, [`nats://127.0.0.1:${proxy.port}`]);
    await nb.cluster.waitForPending([id]);
    assert.equal((await nb.brine(['key', '-a', id, '-y'])).code, 0);
    await minion.waitForOutput(/connected to NATS server/, 20_000);
    await waitUntil(async () => (await row(id))?.state === 'connected' || undefined, 15_000, `${id} connected`);
    return { minion, proxy };
  };

  before(async () => {
    nats = await startNats(1);
    nb = await NatsBrine.create(nats);
    // the master's silence limit must exceed the slowest minion heartbeat below (6 s)
    await nb.startMaster(0, { heartbeat_interval: 0.5, heartbeat_timeout: MASTER_TIMEOUT_S });
  });
  after(async () => {
    await Promise.all(proxies.map((p) => p.close()));
    await nb?.cleanup();
    await nats?.cleanup();
  });

  it('a 2 s NAT never forgets a minion whose heartbeat_timeout is 4.5 s: its NATS pings keep the flow busy', async () => {
    // on the built-in transport this liveness (a heartbeat every 3 s) lost the flow every cycle
    const { proxy } = await proxiedMinion('steady', { heartbeat_interval: 3, heartbeat_timeout: 4.5 });
    const opened = proxy.stats.flowsOpened;
    proxy.idleDrop(2000);
    await nothingFor(8000, 'an idle drop or a new session flow', () => (proxy.stats.idleDrops > 0 || proxy.stats.flowsOpened !== opened) && { ...proxy.stats });
    assert.equal(proxy.stats.idleDrops, 0, 'the flow never went idle');
    assert.equal(proxy.stats.flowsOpened, opened, 'the same session flow the whole time');
    assert.equal((await row('steady'))?.reconnects, 0);
    const ping = await nb.brine(['run', 'steady', 'test.ping', '--out', 'json']);
    assert.deepEqual(JSON.parse(ping.stdout), { steady: true }, ping.stderr);
  });

  it('a NAT that forgets flows sooner than the pings: lost within heartbeat_timeout, reconnected by itself', async () => {
    // pings every 2 s (heartbeat_timeout 8 s), heartbeats every 6 s: the 1 s NAT drops the flow
    const { minion, proxy } = await proxiedMinion('sleepy', { heartbeat_interval: 6, heartbeat_timeout: 8 });
    const opened = proxy.stats.flowsOpened;
    proxy.idleDrop(1000);
    await minion.waitForOutput(/no answer to pings within 8 s/, 8000 + 10_000);
    await waitUntil(() => proxy.stats.flowsOpened > opened || undefined, 10_000, 'a new flow');
    assert.ok(proxy.stats.idleDrops >= 1, 'the proxy did drop the idle flow');
    // with the NAT gone the minion stays connected and answers
    proxy.idleDrop(null);
    await waitUntil(async () => (await row('sleepy'))?.state === 'connected' || undefined, 20_000, 'sleepy connected again');
    const ping = await nb.brine(['run', 'sleepy', 'test.ping', '--out', 'json']);
    assert.deepEqual(JSON.parse(ping.stdout), { sleepy: true }, ping.stderr);
    assert.ok(minion.running, 'the minion never exited');
  });

  it('a black hole: the master marks the minion gone within heartbeat_timeout, and the return finished meanwhile arrives once', async () => {
    const { minion, proxy } = await proxiedMinion('dark', { heartbeat_interval: 0.5, heartbeat_timeout: 3 });
    const r = await nb.brine(['run', 'dark', 'cmd.run', 'sleep 1; echo through-the-dark', '--async']);
    const jid = /(\d{20})/.exec(r.stdout)?.[1];
    assert.ok(jid, r.stdout + r.stderr);
    proxy.blackhole();
    const t0 = Date.now();
    await waitUntil(async () => (await row('dark'))?.state === 'disconnected' || undefined, 15_000, 'dark disconnected on the master');
    const info = await row('dark');
    assert.equal(info?.lastDisconnectReason, 'heartbeat_timeout', JSON.stringify(info));
    // the master's heartbeat_timeout, plus a status poll and the CLI's start on this shared machine
    assert.ok(Date.now() - t0 < MASTER_TIMEOUT_S * 1000 + 4000, `marked gone ${Date.now() - t0} ms after the path went black`);
    await minion.waitForOutput(/no answer to pings within 3 s/, 15_000);
    proxy.restore();
    await waitUntil(async () => (await row('dark'))?.state === 'connected' || undefined, 20_000, 'dark connected again');
    await waitUntil(async () => (await nb.brine(['jobs', 'show', jid, '--out', 'json'])).stdout.includes('through-the-dark') || undefined, 20_000, `the return of ${jid}`);
    const got = JSON.parse((await nb.brine(['jobs', 'show', jid, '--out', 'json'])).stdout) as Record<string, unknown>;
    assert.deepEqual(got, { dark: 'through-the-dark' });
  });
});
