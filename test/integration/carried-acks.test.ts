// Issue 27 point 1: the master carries a minion's acks on its next frame to it. Real master and
// minion processes: a return stays in the minion's on-disk queue until its ack arrives (with the
// next job, or alone at ack_carry_delay for a minion that never pings); a master SIGKILLed
// between storing a return and acking it gets the return again from the minion and keeps it once.
// A raw TLS peer shows the wire: the ack frame first, in the same TLS record as the frame it
// rides on, and a peer that does not announce carryAcks still gets a plain ack at once.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { Cluster, waitUntil, type Proc } from '../helpers/cluster.js';
import { RawPeerFixture } from '../helpers/raw-peer.js';

/** No heartbeat within a test: the only frames to the minion are the ones a test causes. */
const QUIET = { heartbeat_interval: 120, heartbeat_timeout: 360 };

function queued(cluster: Cluster, id: string): string[] {
  const dir = path.join(cluster.root, 'minions', id, 'var', 'cache', 'brine', 'minion', 'returns');
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => /^\d{20}/.test(f)) : [];
}

function storedReturns(cluster: Cluster, jid: string): number {
  const db = new Database(path.join(cluster.root, 'master', 'var', 'cache', 'brine', 'master', 'jobs.sqlite'), { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM returns WHERE jid = ?').get(jid) as { n: number }).n;
  } finally {
    db.close();
  }
}

async function ping(cluster: Cluster, id: string): Promise<string> {
  const r = await cluster.brine(['run', id, 'test.ping', '--show-jid', '--out', 'txt', '-t', '20']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, new RegExp(`^${id}: True$`, 'm'));
  return r.stdout.match(/^jid: (\d{20})$/m)![1]!;
}

describe('carried acks with real processes (issue 27)', () => {
  const cleanups: Array<() => Promise<void>> = [];
  after(async () => {
    for (const c of cleanups) await c();
  });

  it('a return stays queued on the minion until its ack rides on the next job; after a master SIGKILL before the ack it is resent and stored once; a minion that never pings gets its ack at the deadline', async () => {
    const cluster = await Cluster.create();
    cleanups.push(() => cluster.cleanup());
    // acks held for a minute: only the next frame to the minion can bring them in this test
    let master: Proc = await cluster.startMaster({ auto_accept: true, ack_carry_delay: 60, ...QUIET });
    const minion = cluster.startMinion('alpha', QUIET);
    await minion.waitForOutput(/ready to receive requests/);

    // (a) stored on the master (the CLI has it), still unacknowledged on the minion
    const jid1 = await ping(cluster, 'alpha');
    assert.equal(storedReturns(cluster, jid1), 1);
    assert.deepEqual(
      queued(cluster, 'alpha').map((f) => f.slice(0, 20)),
      [jid1],
      'the return is kept on disk until its ack arrives',
    );
    // the next job carries jid1's ack; jid2's return now waits for its own
    const jid2 = await ping(cluster, 'alpha');
    await waitUntil(() => !queued(cluster, 'alpha').some((f) => f.startsWith(jid1)), 10_000, `${jid1} acknowledged with the next job`);
    assert.deepEqual(
      queued(cluster, 'alpha').map((f) => f.slice(0, 20)),
      [jid2],
    );

    // (b) the master dies after storing jid2 and before acking it
    assert.equal(storedReturns(cluster, jid2), 1);
    await master.kill('SIGKILL');
    assert.equal(queued(cluster, 'alpha').length, 1, 'still queued after the master died');
    const firstOutput = master.output;
    // (d) the new master holds acks 1 s at most; this minion sends no ping for 120 s
    master = await cluster.startMaster({ auto_accept: true, ack_carry_delay: 1, ...QUIET });
    await master.waitForOutput(/minion alpha connected/, 30_000);
    await waitUntil(() => queued(cluster, 'alpha').length === 0, 20_000, `the resent ${jid2} acknowledged by the restarted master at its deadline`);
    assert.equal(storedReturns(cluster, jid2), 1, 'the resent return is stored once');
    const got = (out: string) => (out.match(new RegExp(`Got return from alpha for job ${jid2}`, 'g')) ?? []).length;
    assert.equal(got(firstOutput), 1);
    assert.equal(got(master.output), 0, 'the duplicate is not announced again');
    const shown = await cluster.brine(['jobs', 'show', jid2, '--out', 'json']);
    assert.deepEqual(JSON.parse(shown.stdout), { alpha: true });
    assert.ok(minion.running, minion.output);
  });

  it('on the wire: the acks frame comes first, in the same TLS record as the next frame; a peer without carryAcks gets a plain ack at once', async () => {
    const fx = await RawPeerFixture.start({ auto_accept: true, ack_carry_delay: 60, ...QUIET }, { goodMinion: false });
    cleanups.push(() => fx.close());
    const c = await fx.connect();
    // every decrypted TLS record reaches 'data' as its own chunk
    const chunks: Buffer[] = [];
    c.socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    c.send({ t: 'hello', versions: [1], id: 'raw1', agent: 'raw-client', carryAcks: true });
    assert.equal((await c.nextFrame(5000))?.status, 'accepted');
    const run = fx.cluster.brine(['run', 'raw1', 'test.ping', '--out', 'json', '-t', '20']);
    const job = await c.nextFrame(15_000);
    assert.equal(job?.t, 'job', JSON.stringify(job));
    const jid = String(job!.jid);
    c.send({ t: 'return', jid, fun: 'test.ping', ret: true, retcode: 0, success: true });
    assert.equal((await run).code, 0);
    // stored and held: nothing comes until the master has a frame for us
    assert.equal(await c.nextFrame(300), undefined, 'no ack on its own before the deadline');
    const before = chunks.length;
    c.send({ t: 'ping', seq: 9 });
    assert.deepEqual(await c.nextFrame(5000), { t: 'acks', jids: [jid] });
    assert.deepEqual(await c.nextFrame(5000), { t: 'pong', seq: 9 });
    const records = chunks.slice(before);
    assert.equal(records.length, 1, `one TLS record for the acks and the pong, got ${records.length}`);
    const acksFrame = Buffer.from(JSON.stringify({ t: 'acks', jids: [jid] }));
    assert.equal(records[0]!.readUInt32BE(0), acksFrame.length, 'the acks frame comes first');

    // a peer that does not say carryAcks (an older minion): an ack frame right after the store
    const old = await fx.connect();
    old.send({ t: 'hello', versions: [1], id: 'raw2', agent: 'raw-client' });
    assert.equal((await old.nextFrame(5000))?.status, 'accepted');
    const run2 = fx.cluster.brine(['run', 'raw2', 'test.ping', '--out', 'json', '-t', '20']);
    const job2 = await old.nextFrame(15_000);
    old.send({ t: 'return', jid: String(job2!.jid), fun: 'test.ping', ret: true, retcode: 0, success: true });
    assert.deepEqual(await old.nextFrame(5000), { t: 'ack', jid: String(job2!.jid) });
    assert.equal((await run2).code, 0);
  });
});
