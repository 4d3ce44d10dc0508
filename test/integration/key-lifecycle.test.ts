// Issue 4 item 3 with real processes: the one-command re-image flow (`brine key --replace`),
// and deleting a key closes that minion's session at once and purges what the master knew, so
// an ID enrolled again inherits nothing.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, waitUntil, type Proc } from '../helpers/cluster.js';
import { requestOnce } from '../../src/cli/control-client.js';
import type { KeysReconciled } from '../../src/protocol/control.js';

interface Info {
  id: string;
  state: string;
  reconnects: number;
  drops?: number;
}

describe('key lifecycle: re-image and delete', () => {
  let cluster: Cluster;
  let minion: Proc;

  const status = async (): Promise<Info[]> => JSON.parse((await cluster.brine(['minions', 'status', '--out', 'sessions'])).stdout) as Info[];
  const minionPki = () => path.join(cluster.root, 'minions', 'web1', 'etc', 'brine', 'pki', 'minion');

  before(async () => {
    cluster = await Cluster.create();
    await cluster.startMaster();
    minion = cluster.startMinion('web1');
    await cluster.waitForPending(['web1']);
    await cluster.brine(['key', '-a', 'web1', '-y']);
    await minion.waitForOutput(/ready to receive requests/);
  });
  after(() => cluster.cleanup());

  it('a re-imaged host is denied with the one command that fixes it, and --replace fixes it', async () => {
    await minion.kill('SIGTERM');
    const oldFp = (await cluster.brine(['key', '-f', 'web1'])).stdout.match(/web1: {2}(\S+)/)![1]!;
    // a re-image: same ID, new key pair
    fs.rmSync(minionPki(), { recursive: true, force: true });
    // a re-image loses the master pin too; master_finger makes the master's refusal believed (issue 8 item 6)
    const reimaged = cluster.startMinion('web1', { master_finger: (await cluster.brine(['key', '-F', 'master'])).stdout.match(/master\.pub: {2}(\S+)/)![1]! });
    assert.equal(await reimaged.exited, 77, reimaged.output);
    assert.match(reimaged.output, /brine key --replace web1/);
    const listed = await cluster.brine(['key', '-L']);
    assert.match(listed.stdout, /Accepted Keys:\nweb1\nDenied Keys:\nweb1: {2}\S+ {2}\(from 127\.0\.0\.1:\d+, last seen [^)]+\)\n/);

    const r = await cluster.brine(['key', '--replace', 'web1', '-y']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`The accepted key for web1 \\(${oldFp}\\) is going to be replaced`));
    assert.match(r.stdout, /Key for minion web1 replaced\./);
    const after = await cluster.brine(['key', '-L']);
    assert.match(after.stdout, /Accepted Keys:\nweb1\nDenied Keys:\nUnaccepted Keys:/);
    const newFp = (await cluster.brine(['key', '-f', 'web1'])).stdout.match(/web1: {2}(\S+)/)![1]!;
    assert.notEqual(newFp, oldFp);

    minion = cluster.startMinion('web1');
    await minion.waitForOutput(/ready to receive requests/);
    const ping = await cluster.brine(['run', 'web1', 'test.ping']);
    assert.equal(ping.code, 0, ping.stdout);
  });

  it('--replace without a denied key is a clear error', async () => {
    const r = await cluster.brine(['key', '--replace', 'nobody', '-y']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^KEY_NOT_FOUND: no denied key for 'nobody'/);
  });

  it('deleting a key closes the session at once and the ID comes back as new, inheriting nothing', async () => {
    // give the minion some history first
    await cluster.brine(['run', 'web1', 'test.ping']);
    const d = await cluster.brine(['key', '-d', 'web1', '-y']);
    assert.equal(d.code, 0, d.stderr);
    assert.match(d.stdout, /Key for minion web1 deleted\./);
    assert.match(d.stdout, /Closed the session of web1: its key is no longer accepted\./);
    assert.ok(!(await status()).some((i) => i.id === 'web1'), 'the master forgot web1');
    // the minion signs in again and is a new, pending key
    await cluster.waitForPending(['web1']);
    assert.match(minion.output, /pending/);
    await cluster.brine(['key', '-a', 'web1', '-y']);
    await waitUntil(async () => (await status()).find((i) => i.id === 'web1' && i.state === 'connected'), 20_000, 'web1 to be back');
    const info = (await status()).find((i) => i.id === 'web1')!;
    assert.equal(info.reconnects, 0, 'no reconnect history inherited');
    assert.equal(info.drops, undefined, 'no drop history inherited');
    assert.equal(minion.running, true, 'the minion never needed a restart');
  });

  it("a session the master's own 5 s check closed is still reported to the brine key that caused it (keys_changed since)", async () => {
    const since = Date.now();
    // the key goes by hand, as if `brine key -d` had removed it just before the master's timer ran
    const keyFile = path.join(cluster.root, 'master', 'etc', 'brine', 'pki', 'master', 'minions', 'web1');
    assert.ok(fs.existsSync(keyFile), keyFile);
    fs.rmSync(keyFile);
    await waitUntil(async () => !(await status()).some((i) => i.id === 'web1' && i.state === 'connected'), 20_000, "the master's timer to close web1");
    const sock = path.join(cluster.root, 'master', 'var', 'run', 'brine', 'master', 'master.sock');
    const late = await requestOnce<KeysReconciled>(sock, { t: 'keys_changed', since }, 'keys_reconciled');
    assert.deepEqual(late.closed, ['web1'], 'closed since the change began');
    const unrelated = await requestOnce<KeysReconciled>(sock, { t: 'keys_changed', since: Date.now() }, 'keys_reconciled');
    assert.deepEqual(unrelated.closed, [], 'a later change does not claim it');
    const legacy = await requestOnce<KeysReconciled>(sock, { t: 'keys_changed' }, 'keys_reconciled');
    assert.deepEqual(legacy.closed, [], 'without since: only what this reconcile closed');
  });
});
