// Issue 2, end to end: a real master and real minion processes over loopback TLS in a temporary
// root. Keys start pending, are accepted with salt-key's flags, test.ping reaches everyone, list
// and pcre targets work, a killed minion is [Not connected] at once (exit 1), a second key for an
// accepted ID is denied with both fingerprints in the master's log, and a rejected minion exits 77.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, waitUntil, type Proc } from '../helpers/cluster.js';

describe('foundation: master, minions, keys and test.ping over mutual TLS', () => {
  let cluster: Cluster;
  let master: Proc;
  const minions = new Map<string, Proc>();

  before(async () => {
    cluster = await Cluster.create();
    master = await cluster.startMaster();
    for (const id of ['alpha', 'beta', 'gamma']) minions.set(id, cluster.startMinion(id));
  });
  after(async () => {
    await cluster.cleanup();
  });

  it('lists new minion keys as unaccepted', async () => {
    await cluster.waitForPending(['alpha', 'beta', 'gamma']);
    const r = await cluster.brine(['key', '-L']);
    assert.equal(r.code, 0);
    assert.equal(r.stdout, 'Accepted Keys:\nDenied Keys:\nUnaccepted Keys:\nalpha\nbeta\ngamma\nRejected Keys:\n');
    for (const p of minions.values()) await p.waitForOutput(/brine key -a/);
  });

  it('accepts one key with -a and the rest with -A', async () => {
    const one = await cluster.brine(['key', '-a', 'alpha', '-y']);
    assert.equal(one.code, 0, one.stderr);
    assert.match(one.stdout, /Key for minion alpha accepted\./);
    const rest = await cluster.brine(['key', '-A'], { input: '\n' });
    assert.equal(rest.code, 0, rest.stderr);
    assert.match(rest.stdout, /Proceed\? \[n\/Y\] /);
    assert.match(rest.stdout, /Key for minion beta accepted\.\nKey for minion gamma accepted\./);
    const list = await cluster.brine(['key', '-l', 'acc']);
    assert.equal(list.stdout, 'Accepted Keys:\nalpha\nbeta\ngamma\n');
    for (const p of minions.values()) await p.waitForOutput(/ready to receive requests/);
  });

  it('runs test.ping on every minion and exits 0', async () => {
    const r = await cluster.brine(['run', '*', 'test.ping']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(r.stdout.split('\n').filter((l) => l === '    True').length, 3, r.stdout);
    for (const id of ['alpha', 'beta', 'gamma']) assert.match(r.stdout, new RegExp(`^${id}:\\n    True$`, 'm'));
  });

  it('targets a list with -L and a regular expression with -E', async () => {
    const list = await cluster.brine(['run', '-L', 'alpha,gamma', 'test.echo', 'hello', '--out', 'json']);
    assert.equal(list.code, 0, list.stderr);
    const objs = list.stdout
      .trim()
      .split(/\n(?=\{)/)
      .map((s) => JSON.parse(s) as Record<string, unknown>);
    assert.deepEqual(Object.assign({}, ...objs), { alpha: 'hello', gamma: 'hello' });

    const pcre = await cluster.brine(['run', '-E', 'b.t', 'test.ping', '--out', 'txt']);
    assert.equal(pcre.code, 0, pcre.stderr);
    assert.equal(pcre.stdout, 'beta: True\n');

    const none = await cluster.brine(['run', 'nomatch*', 'test.ping']);
    assert.equal(none.code, 2);
    assert.match(none.stdout, /No minions matched the target/);
  });

  it('runs cmd.run and grains.items on a minion', async () => {
    const cmd = await cluster.brine(['run', 'alpha', 'cmd.run', 'echo one; echo two >&2', '--out', 'json']);
    assert.equal(cmd.code, 0, cmd.stderr);
    assert.deepEqual(JSON.parse(cmd.stdout), { alpha: 'one\ntwo' });
    const grains = await cluster.brine(['run', 'beta', 'grains.items', '--out', 'json']);
    const g = (JSON.parse(grains.stdout) as { beta: Record<string, unknown> }).beta;
    assert.equal(g.id, 'beta');
    assert.equal(typeof g.num_cpus, 'number');
    assert.ok(Array.isArray(g.ipv4));
  });

  it('reports an unknown function as a coded error in that minion’s return', async () => {
    const r = await cluster.brine(['run', 'alpha', 'nosuch.thing', '--out', 'json']);
    assert.equal(r.code, 1);
    assert.deepEqual(JSON.parse(r.stdout), { alpha: "'nosuch.thing' is not available." });
  });

  it('reports a killed minion as [Not connected] at once, with exit 1', async () => {
    await minions.get('gamma')!.kill('SIGKILL');
    // the kernel closes the socket, so the master notices without waiting for heartbeats
    await waitUntil(
      async () => {
        const r = await cluster.brine(['run', 'gamma', 'test.ping', '-t', '1']);
        return /Not connected/.test(r.stdout);
      },
      10_000,
      'the master to notice gamma is gone',
    );
    const started = Date.now();
    const r = await cluster.brine(['run', '*', 'test.ping', '-t', '60']);
    const elapsed = Date.now() - started;
    assert.equal(r.code, 1);
    assert.match(r.stdout, /^gamma:\n {4}Minion did not return\. \[Not connected\]$/m);
    assert.match(r.stdout, /^alpha:\n {4}True$/m);
    assert.match(r.stderr, /ERROR: Minions returned with non-zero exit code/);
    // not waiting for the 60 s timeout is the point of [Not connected]
    assert.ok(elapsed < 30_000, `took ${elapsed} ms`);
  });

  it('denies a second machine using an accepted ID and logs both fingerprints', async () => {
    const acceptedFp = (await cluster.brine(['key', '-f', 'alpha'])).stdout.match(/alpha: {2}(\S+)/)![1]!;
    // a fresh root means a fresh key pair under the same ID
    // master_finger makes the master trusted, so its refusal is believed (issue 8 item 6)
    const impostor = cluster.startMinion('alpha-impostor', { id: 'alpha', master_finger: (await cluster.brine(['key', '-F', 'master'])).stdout.match(/master\.pub: {2}(\S+)/)![1]! });
    const code = await impostor.exited;
    assert.equal(code, 77, impostor.output);
    assert.match(impostor.output, /already has a different key accepted for ID 'alpha'/);
    const impostorFp = fs.readFileSync(path.join(cluster.root, 'minions', 'alpha-impostor', 'etc', 'brine', 'pki', 'minion', 'minion.pub'), 'utf8');
    assert.ok(impostorFp.includes('PUBLIC KEY'));
    const logLine = master.output.split('\n').find((l) => l.includes('public keys did not match'));
    assert.ok(logLine, master.output);
    assert.ok(logLine.includes(acceptedFp), `accepted fingerprint ${acceptedFp} not in: ${logLine}`);
    const denied = await cluster.brine(['key', '-f', 'alpha']);
    assert.match(denied.stdout, /Denied Keys:\nalpha: {2}\S+/);
    const deniedFp = denied.stdout.match(/Denied Keys:\nalpha: {2}(\S+)/)![1]!;
    assert.notEqual(deniedFp, acceptedFp);
    assert.ok(logLine.includes(deniedFp), 'the presented fingerprint is in the log line');
    // the real alpha is unaffected
    const ping = await cluster.brine(['run', 'alpha', 'test.ping']);
    assert.equal(ping.code, 0);
  });

  it('a rejected minion exits 77 with the reason and the fix', async () => {
    const m = cluster.startMinion('delta', { master_finger: (await cluster.brine(['key', '-F', 'master'])).stdout.match(/master\.pub: {2}(\S+)/)![1]! });
    await cluster.waitForPending(['delta']);
    const r = await cluster.brine(['key', '-r', 'delta', '-y']);
    assert.match(r.stdout, /Key for minion delta rejected\./);
    const code = await m.exited;
    assert.equal(code, 77, m.output);
    assert.match(m.output, /The master has rejected this minion's public key!/);
    assert.match(m.output, /brine key -d delta/);
  });
});
