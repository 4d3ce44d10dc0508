// Presence and events (issue 3 item 6): `brine minions status|up|down` answered from the session
// table, with the reason a minion left; `brine events` streams lifecycle events live.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, waitUntil, type Proc } from '../helpers/cluster.js';
import { EventStream } from '../helpers/events.js';

interface Info {
  id: string;
  state: string;
  remote?: string;
  agent?: string;
  protocol?: number;
  reconnects: number;
  lastDisconnectReason?: string;
  connectedSince?: number;
}

describe('presence and events', () => {
  let cluster: Cluster;
  const minions = new Map<string, Proc>();

  const status = async (): Promise<Info[]> => {
    const r = await cluster.brine(['minions', 'status', '--out', 'sessions']);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as Info[];
  };

  before(async () => {
    cluster = await Cluster.create();
    await cluster.startMaster({ auto_accept: true });
    for (const id of ['m1', 'm2']) minions.set(id, cluster.startMinion(id));
    for (const p of minions.values()) await p.waitForOutput(/ready to receive requests/);
  });
  after(() => cluster.cleanup());

  it('lists connected minions with address, agent and protocol', async () => {
    const s = await status();
    assert.deepEqual(
      s.map((i) => [i.id, i.state]),
      [
        ['m1', 'connected'],
        ['m2', 'connected'],
      ],
    );
    for (const i of s) {
      assert.match(i.remote ?? '', /^127\.0\.0\.1:\d+$/);
      assert.match(i.agent ?? '', /^brine\//);
      assert.equal(i.protocol, 1);
      assert.equal(typeof i.connectedSince, 'number');
    }
    const up = await cluster.brine(['minions', 'up']);
    assert.equal(up.stdout, '- m1\n- m2\n');
    const down = await cluster.brine(['minions', 'down']);
    assert.equal(down.stdout, '');
    const table = await cluster.brine(['minions', 'status']);
    assert.match(table.stdout, /^ID\s+STATE\s+SINCE/);
    assert.match(table.stdout, /^m1\s+connected/m);
  });

  it('shows a killed minion as disconnected with the reason', async () => {
    await minions.get('m2')!.kill('SIGKILL');
    const s = await waitUntil(
      async () => {
        const all = await status();
        return all.find((i) => i.id === 'm2' && i.state === 'disconnected') ? all : undefined;
      },
      10_000,
      'm2 to show as disconnected',
    );
    const m2 = s.find((i) => i.id === 'm2')!;
    assert.ok(['peer_closed', 'reset'].includes(m2.lastDisconnectReason ?? ''), `reason ${m2.lastDisconnectReason}`);
    const down = await cluster.brine(['minions', 'down']);
    assert.equal(down.stdout, '- m2\n');
  });

  it('lists an accepted minion that never connected', async () => {
    const pem = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }) as string;
    fs.writeFileSync(path.join(cluster.root, 'master', 'etc', 'brine', 'pki', 'master', 'minions', 'phantom'), pem);
    const s = await status();
    const phantom = s.find((i) => i.id === 'phantom');
    assert.deepEqual(phantom, { id: 'phantom', state: 'never_connected', reconnects: 0 });
    const down = await cluster.brine(['minions', 'down']);
    assert.equal(down.stdout, '- m2\n- phantom\n');
  });

  it('streams connect and disconnect events with reasons', async () => {
    // subscribed for sure before m3 starts: a probe job on m1 has come through the stream
    const stream = await EventStream.open(cluster, ['minion_connected', 'minion_disconnected'], 'm1');
    try {
      const m3 = cluster.startMinion('m3');
      await m3.waitForOutput(/ready to receive requests/);
      await m3.kill('SIGTERM');
      const events = await stream.waitFor('brine/minion/', 2, 10_000);
      assert.deepEqual(
        events.map((e) => e.tag),
        ['brine/minion/m3/connected', 'brine/minion/m3/disconnected'],
        stream.proc.output,
      );
      const data = events[1]!.data as { reason: string; connected_for_ms: number; _stamp: string };
      assert.equal(data.reason, 'shutdown', 'a stopped minion says goodbye');
      assert.ok(data.connected_for_ms >= 0);
      assert.match(data._stamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?$/, "Salt's _stamp");
    } finally {
      await stream.close();
    }
    assert.equal(stream.proc.exitCode, 0, `brine events ends with 0 on Ctrl-C, at once (not when --timeout runs out)\n${stream.proc.output}`);
  });
});
