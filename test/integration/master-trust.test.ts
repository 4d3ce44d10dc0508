// Issue 4 item 5 with real processes: the master's key is pinned on first contact, a changed
// master key is refused with both fingerprints and the way to re-trust (exit 42), and
// master_finger is checked before anything is trusted.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, type Proc } from '../helpers/cluster.js';

describe('master key trust', () => {
  let cluster: Cluster;
  let master: Proc;
  const masterPki = () => path.join(cluster.root, 'master', 'etc', 'brine', 'pki', 'master');
  const masterFp = async () => (await cluster.brine(['key', '-F', 'master'])).stdout.match(/master\.pub: {2}(\S+)/)![1]!;

  before(async () => {
    cluster = await Cluster.create();
    master = await cluster.startMaster({ auto_accept: true });
  });
  after(() => cluster.cleanup());

  it('accepts a master whose fingerprint matches master_finger (any spelling)', async () => {
    const fp = await masterFp();
    const m = cluster.startMinion('fingered', { master_finger: fp.replace(/:/g, '').toUpperCase() });
    await m.waitForOutput(/ready to receive requests/);
    await m.kill();
  });

  it('refuses a master that does not match master_finger, exit 42, nothing pinned', async () => {
    const wrong = 'aa:'.repeat(31) + 'aa';
    const m = cluster.startMinion('wrongfinger', { master_finger: wrong });
    assert.equal(await m.exited, 42, m.output);
    assert.match(m.output, /MASTER_FINGER_MISMATCH/);
    assert.ok(m.output.includes(await masterFp()), 'names the fingerprint the master presented');
    assert.equal(fs.existsSync(path.join(cluster.root, 'minions', 'wrongfinger', 'etc', 'brine', 'pki', 'minion', 'minion_master.pub')), false);
  });

  it('pins the master on first contact and refuses a changed master key with both fingerprints', async () => {
    const m = cluster.startMinion('pinned');
    await m.waitForOutput(/ready to receive requests/);
    const oldFp = await masterFp();
    await m.kill();
    // the master is re-keyed: same address, new key pair
    await master.kill();
    for (const f of ['master.pem', 'master.pub', 'master.crt']) fs.rmSync(path.join(masterPki(), f), { force: true });
    master = await cluster.startMaster({ auto_accept: true });
    const newFp = await masterFp();
    assert.notEqual(newFp, oldFp);
    const again = cluster.startMinion('pinned');
    assert.equal(await again.exited, 42, again.output);
    assert.match(again.output, /MASTER_KEY_CHANGED/);
    assert.ok(again.output.includes(oldFp) && again.output.includes(newFp), again.output);
    assert.match(again.output, /minion_master\.pub/);
    // re-trusting: delete the pin as the message says
    fs.rmSync(path.join(cluster.root, 'minions', 'pinned', 'etc', 'brine', 'pki', 'minion', 'minion_master.pub'));
    const trusted = cluster.startMinion('pinned');
    await trusted.waitForOutput(/ready to receive requests/);
  });
});
