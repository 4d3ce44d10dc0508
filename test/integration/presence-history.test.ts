// Presence history survives a master restart (issue 8 point 10, seed 000): the drops, the typical
// time up and silent before each, and the flapping flag behind `brine minions status` are kept in
// the job cache. A minion whose key was rejected shows as rejected, not disconnected, and one
// whose key was deleted is not listed at all, before and after the restart, and an ID whose key
// was deleted and enrolled again while the master was down inherits nothing (threats.md #6).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, waitUntil, type Proc } from '../helpers/cluster.js';

interface Info {
  id: string;
  state: string;
  reconnects: number;
  drops?: number;
  flapping?: boolean;
  typicalConnectedMs?: number;
  typicalSilentMs?: number;
  dropReasons?: string[];
  lastDisconnectReason?: string;
  remote?: string;
  agent?: string;
}

describe('presence history across a master restart', () => {
  let cluster: Cluster;
  let master: Proc;

  const status = async (): Promise<Info[]> => {
    const r = await cluster.brine(['minions', 'status', '--out', 'sessions']);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as Info[];
  };
  const row = async (id: string): Promise<Info | undefined> => (await status()).find((i) => i.id === id);

  /** Starts the minion, waits until the master lists it connected, then kills it hard (an unplanned drop). */
  async function connectAndDrop(id: string): Promise<void> {
    const p = cluster.startMinion(id);
    await p.waitForOutput(/ready to receive requests/);
    await waitUntil(async () => (await row(id))?.state === 'connected', 10_000, `${id} connected`);
    await p.kill('SIGKILL');
    await waitUntil(async () => (await row(id))?.state === 'disconnected', 10_000, `${id} disconnected`);
  }

  before(async () => {
    cluster = await Cluster.create();
    master = await cluster.startMaster({ auto_accept: true });
  });
  after(() => cluster.cleanup());

  it('a flapping minion: three drops, then the master restarts and still shows them', async () => {
    for (let i = 0; i < 3; i++) await connectAndDrop('flap');
    const before = (await row('flap'))!;
    assert.equal(before.drops, 3, JSON.stringify(before));
    assert.equal(before.flapping, true);
    assert.equal(before.reconnects, 2);

    // the rejected and deleted minions of the next test are set up before the restart too
    await connectAndDrop('outcast');
    assert.equal((await cluster.brine(['key', '-r', 'outcast', '--include-accepted', '-y'])).code, 0);
    assert.equal((await row('outcast'))?.state, 'rejected', 'rejected while it was disconnected: shown as rejected at once');
    await connectAndDrop('removed');
    assert.equal((await cluster.brine(['key', '-d', 'removed', '-y'])).code, 0);

    // re-imaged while the master is down: the old key is gone and a new one accepted under the same ID
    await connectAndDrop('reborn');
    await master.kill('SIGTERM');
    assert.equal(master.exitCode, 0, master.output);
    const acceptedDir = path.join(cluster.root, 'master', 'etc', 'brine', 'pki', 'master', 'minions');
    fs.unlinkSync(path.join(acceptedDir, 'reborn'));
    master = await cluster.startMaster({ auto_accept: true });
    await master.kill('SIGTERM');
    fs.writeFileSync(path.join(acceptedDir, 'reborn'), generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }) as string);
    master = await cluster.startMaster({ auto_accept: true });
    assert.deepEqual(await row('reborn'), { id: 'reborn', state: 'never_connected', reconnects: 0 }, 'a re-enrolled ID inherits no presence history (threats.md #6)');

    const after = (await row('flap'))!;
    assert.ok(after, 'flap is still listed');
    assert.equal(after.state, 'disconnected');
    assert.equal(after.drops, 3, `drops survive the restart: ${JSON.stringify(after)}`);
    assert.equal(after.flapping, true);
    assert.equal(after.reconnects, 2);
    assert.deepEqual(after.dropReasons, before.dropReasons);
    assert.equal(after.typicalConnectedMs, before.typicalConnectedMs);
    assert.equal(after.typicalSilentMs, before.typicalSilentMs);
    assert.equal(after.lastDisconnectReason, before.lastDisconnectReason);
    assert.equal(after.remote, before.remote);
    assert.equal(after.agent, before.agent);
    const table = await cluster.brine(['minions', 'status']);
    assert.match(table.stdout, /^flap\s+disconnected FLAPPING\s.*\s3 \(up ~\d+s, silent ~\d+s\)\s/m, table.stdout);
  });

  it('a rejected minion shows as rejected, not disconnected; a deleted one is not listed', async () => {
    const all = await status();
    const outcast = all.find((i) => i.id === 'outcast');
    assert.equal(outcast?.state, 'rejected', JSON.stringify(all));
    assert.equal(
      all.find((i) => i.id === 'removed'),
      undefined,
      'a minion without a key is not listed',
    );
    const down = await cluster.brine(['minions', 'down']);
    assert.equal(down.stdout, '- flap\n- reborn\n', 'down lists accepted minions only');

    // the rejected minion knocking again changes nothing
    const knock = cluster.startMinion('outcast', { rejected_retry: true });
    await waitUntil(() => /rejected/i.test(knock.output), 15_000, `outcast to be told it is rejected\n${knock.output}`);
    await knock.kill('SIGKILL');
    assert.equal((await row('outcast'))?.state, 'rejected');
  });
});
