// Fault suite, the master's DNS name moved (issue 3, seed 000): the minion's `master` is a host
// name from /etc/hosts, seen only by the minion (its own mount namespace binds a test hosts
// file over /etc/hosts). Two masters share one key on 127.0.0.2 and 127.0.0.3; when the name
// moves and the first master stops, the minion re-resolves, says so, and joins the second one
// without a restart.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BRINE_BIN, Cluster, Proc, waitUntil } from '../helpers/cluster.js';
import { privilegedSkip } from '../helpers/privileged.js';

const NAME = 'brine-master.test';
const LIVENESS = { heartbeat_interval: 0.5, heartbeat_timeout: 1.5 };

function skipReason(): string | false {
  if (process.platform !== 'linux') return 'needs Linux mount namespaces';
  if (process.getuid?.() !== 0) return 'needs root for a private mount namespace (run the fault suite as root, as CI does)';
  return false;
}

describe('the master’s DNS name moves to another address', { skip: privilegedSkip('the master’s DNS name moves', skipReason()) }, () => {
  const clusters: Cluster[] = [];
  after(async () => {
    await Promise.all(clusters.map((c) => c.cleanup()));
  });

  it('re-resolves on reconnect, logs the change and joins the master at the new address', async () => {
    const first = await Cluster.create();
    clusters.push(first);
    const second = await Cluster.create();
    clusters.push(second);
    second.port = first.port;

    const m1 = await first.startMaster({ interface: '127.0.0.2', auto_accept: true, ...LIVENESS });
    // the second master presents the same key, so the minion's pin stays valid
    const pki = (c: Cluster) => path.join(c.root, 'master', 'etc', 'brine', 'pki', 'master');
    assert.ok(fs.existsSync(path.join(pki(first), 'master.pub')), 'the first master wrote its key under its root_dir');
    fs.cpSync(pki(first), pki(second), { recursive: true });
    const m2 = await second.startMaster({ interface: '127.0.0.3', auto_accept: true, ...LIVENESS });
    const fp = (out: string) => /fingerprint=(\S+)/.exec(out.split('\n').find((l) => l.includes('brine master listening')) ?? '')?.[1];
    assert.equal(fp(m2.output), fp(m1.output), 'both masters have one identity');

    const hosts = path.join(first.root, 'hosts');
    fs.writeFileSync(hosts, `127.0.0.1 localhost\n127.0.0.2 ${NAME}\n`);
    first.writeMinionConfig('mover', { master: NAME, ...LIVENESS, recon_default: 100, recon_max: 1000, auth_timeout: 2 });
    // only this process sees the test hosts file: a private mount namespace, bound by inode
    const child = spawn(
      'unshare',
      ['--mount', '--propagation', 'private', 'sh', '-c', 'mount --bind "$0" /etc/hosts && exec "$1" "$2" minion -c "$3"', hosts, process.execPath, BRINE_BIN, first.minionConfigDir('mover')],
      { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const minion = new Proc('minion mover', child);
    first.procs.push(minion);
    await minion.waitForOutput(/Minion is ready to receive requests from brine-master\.test/);
    await m1.waitForOutput(/minion mover connected/);
    assert.doesNotMatch(m2.output, /minion mover connected/);
    assert.equal(fs.readFileSync('/etc/hosts', 'utf8').includes(NAME), false, 'the host’s own /etc/hosts is untouched');

    // move the name: same file, same inode (writeFileSync truncates in place), then stop the first master
    const inode = fs.statSync(hosts).ino;
    fs.writeFileSync(hosts, `127.0.0.1 localhost\n127.0.0.3 ${NAME}\n`);
    assert.equal(fs.statSync(hosts).ino, inode);
    await m1.kill('SIGTERM');

    await minion.waitForOutput(/Master ip address changed from 127\.0\.0\.2 to 127\.0\.0\.3/, 15_000);
    await m2.waitForOutput(/minion mover connected/, 15_000);
    await waitUntil(() => (minion.output.match(/ready to receive requests/g) ?? []).length >= 2, 10_000, 'the minion ready on the second master');
    assert.ok(minion.running, `the minion was not restarted:\n${minion.output}`);
    assert.equal(minion.child.pid, child.pid);

    const ping = await second.brine(['run', 'mover', 'test.ping', '--out', 'txt']);
    assert.equal(ping.code, 0, ping.stdout + ping.stderr);
    assert.equal(ping.stdout, 'mover: True\n');
    const status = JSON.parse((await second.brine(['minions', 'status', '--out', 'sessions'])).stdout) as { id: string; state: string; remote: string }[];
    assert.equal(status.find((s) => s.id === 'mover')?.state, 'connected');
  });
});
