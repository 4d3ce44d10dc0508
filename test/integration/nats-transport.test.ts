// Issue 13 points 1-3 and 5 with real processes: a brine master and minions with
// `transport: nats` on real nats-server (one server here; the cluster in nats-faults): the key
// workflow over NATS, jobs and returns through JetStream, `[Not connected]` at once, presence
// and its timeout, and a deleted key closing the minion's NATS connection.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { waitUntil, type Proc } from '../helpers/cluster.js';
import { natsSkip, nkeyAuth, startNats, type NatsFixture } from '../helpers/nats.js';
import { NatsBrine } from '../helpers/nats-brine.js';
import { NkeySigner } from '../../src/nats/index.js';

interface Info {
  id: string;
  state: string;
  reason?: string;
  lastDisconnectReason?: string;
}

describe('transport: nats, one master', { skip: natsSkip('the NATS transport tests') }, () => {
  let nats: NatsFixture;
  let nb: NatsBrine;
  let m1: Proc;

  const returnsDir = (id: string): string => {
    const root = path.join(nb.cluster.root, 'minions', id);
    const found = (fs.readdirSync(root, { recursive: true }) as string[]).find((p) => path.basename(p) === 'returns');
    assert.ok(found !== undefined, `a returns directory under ${root}`);
    return path.join(root, found);
  };
  const status = async (): Promise<Info[]> => JSON.parse((await nb.brine(['minions', 'status', '--out', 'sessions'])).stdout) as Info[];

  before(async () => {
    nats = await startNats(1);
    nb = await NatsBrine.create(nats);
    await nb.startMaster();
    m1 = await nb.startAcceptedMinion('m1');
  });
  after(async () => {
    await nb?.cleanup();
    await nats?.cleanup();
  });

  it('a pending key signs in over NATS once accepted, and test.ping and cmd.run return through JetStream', async () => {
    await waitUntil(async () => (await status()).find((i) => i.id === 'm1')?.state === 'connected', 15_000, 'm1 connected');
    const ping = await nb.brine(['run', 'm1', 'test.ping', '--out', 'json']);
    assert.equal(ping.code, 0, ping.stdout + ping.stderr);
    assert.deepEqual(JSON.parse(ping.stdout), { m1: true });
    const run = await nb.brine(['run', 'm1', 'cmd.run', 'echo nats-$((6*7))', '--out', 'json']);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { m1: 'nats-42' });
    // the return went through the stream: stored once, with the message id <jid>/<id>
    const nc = await nats.connectMaster('brine');
    const jsm = await jetstreamManager(nc);
    const info = await jsm.streams.info('BRINE');
    assert.ok(info.state.messages >= 4, `the stream holds the job records and returns (${info.state.messages})`);
    const jobs = await nb.brine(['jobs', 'list']);
    assert.equal(jobs.code, 0, jobs.stderr);
    assert.match(jobs.stdout, /cmd\.run/);
    // the minion's queue is empty: JetStream acknowledged every return
    await waitUntil(() => fs.readdirSync(returnsDir('m1')).filter((f) => !f.startsWith('.')).length === 0 || undefined, 5000, 'an empty return queue');
  });

  it("the minion user may not publish another minion's return or read its jobs (server-enforced)", async () => {
    // m1's own credentials, as the minion keeps them
    const pki = path.join(nb.cluster.root, 'minions', 'm1', 'etc', 'brine', 'pki', 'minion');
    const jwt = fs.readFileSync(path.join(pki, 'nats-user.jwt'), 'utf8');
    const signer = NkeySigner.fromKey(fs.readFileSync(path.join(pki, 'minion.pem'), 'utf8'));
    const nc = await connect({ servers: nats.urls, authenticator: nkeyAuth(signer, jwt) });
    const errors: string[] = [];
    void (async () => {
      for await (const s of nc.status()) if (s.type === 'error') errors.push(String((s as { error?: Error }).error?.message ?? ''));
    })();
    nc.subscribe('brine.job.m2');
    nc.publish('brine.ret.m2.20260101000000000000', '{}');
    await nc.flush().catch(() => undefined);
    await waitUntil(() => errors.length >= 2 || undefined, 5000, 'two permission violations');
    assert.ok(
      errors.every((e) => /permission/i.test(e)),
      errors.join('; '),
    );
    await nc.close();
  });

  it('a minion not connected is reported at once, and a silent minion is disconnected within heartbeat_timeout', async () => {
    const m2 = await nb.startMinion('m2');
    await nb.cluster.waitForPending(['m2']);
    await nb.brine(['key', '-a', 'm2', '-y']);
    await m2.waitForOutput(/connected to NATS server/, 20_000);
    await waitUntil(async () => (await status()).find((i) => i.id === 'm2')?.state === 'connected', 15_000, 'm2 connected');
    // SIGSTOP: the process holds its TCP connection but sends nothing (a hung host)
    m2.child.kill('SIGSTOP');
    try {
      const t0 = Date.now();
      await waitUntil(async () => (await status()).find((i) => i.id === 'm2')?.state === 'disconnected', 15_000, 'm2 disconnected');
      const took = Date.now() - t0;
      const info = (await status()).find((i) => i.id === 'm2');
      assert.match(JSON.stringify(info), /heartbeat_timeout/, JSON.stringify(info));
      assert.ok(took < 10_000, `noticed in ${took} ms`);
      const r = await nb.brine(['run', 'm2', 'test.ping', '--out', 'txt']);
      assert.match(r.stdout, /m2: \[?Not connected\]?|Minion did not return\. \[Not connected\]/, r.stdout);
    } finally {
      m2.child.kill('SIGCONT');
    }
    // it comes back by itself, as the first heartbeat after SIGCONT reaches the master
    await waitUntil(async () => (await status()).find((i) => i.id === 'm2')?.state === 'connected', 15_000, 'm2 connected again');
  });

  it("deleting a key closes that minion's NATS connection and the old credentials stop working", async () => {
    const pki = path.join(nb.cluster.root, 'minions', 'm1', 'etc', 'brine', 'pki', 'minion');
    const jwt = fs.readFileSync(path.join(pki, 'nats-user.jwt'), 'utf8');
    const signer = NkeySigner.fromKey(fs.readFileSync(path.join(pki, 'minion.pem'), 'utf8'));
    const d = await nb.brine(['key', '-d', 'm1', '-y']);
    assert.equal(d.code, 0, d.stderr);
    await m1.waitForOutput(/no longer accept this minion's credentials/, 15_000);
    // the revoked JWT is refused by the server
    await assert.rejects(connect({ servers: nats.urls, authenticator: nkeyAuth(signer, jwt), reconnect: false }), /authori[sz]ation|revoked/i);
    // the minion asks again and is pending (a deleted key starts over)
    await nb.cluster.waitForPending(['m1']);
  });

  it('rejecting an accepted key closes the connection, and the minion is told it is rejected and stops', async () => {
    const m3 = await nb.startMinion('m3');
    await nb.cluster.waitForPending(['m3']);
    await nb.brine(['key', '-a', 'm3', '-y']);
    await m3.waitForOutput(/connected to NATS server/, 20_000);
    const r = await nb.brine(['key', '-r', 'm3', '--include-accepted', '-y']);
    assert.equal(r.code, 0, r.stderr);
    // revoked at once, then refused at the next sign-in: a rejected key ends the minion (exit 77, as on TLS)
    assert.equal(await m3.exited, 77, m3.output);
    assert.match(m3.output, /refused this minion \(rejected\)/);
  });

  it("replacing a re-imaged host's key: the old key's credentials are revoked and the new key serves the ID", async () => {
    const m4 = await nb.startMinion('m4');
    await nb.cluster.waitForPending(['m4']);
    await nb.brine(['key', '-a', 'm4', '-y']);
    await m4.waitForOutput(/connected to NATS server/, 20_000);
    const pki = path.join(nb.cluster.root, 'minions', 'm4', 'etc', 'brine', 'pki', 'minion');
    const oldJwt = fs.readFileSync(path.join(pki, 'nats-user.jwt'), 'utf8');
    const oldSigner = NkeySigner.fromKey(fs.readFileSync(path.join(pki, 'minion.pem'), 'utf8'));
    // a re-image: same ID, new key pair; the master sees a second key for an accepted ID (denied)
    await m4.kill('SIGTERM');
    fs.rmSync(pki, { recursive: true, force: true });
    const reimaged = await nb.startMinion('m4', { rejected_retry: true });
    await waitUntil(async () => (await nb.brine(['key', '-l', 'den'])).stdout.includes('m4') || undefined, 20_000, 'the new key of m4 denied');
    const r = await nb.brine(['key', '--replace', 'm4', '-y']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    await reimaged.waitForOutput(/connected to NATS server/, 20_000);
    // the old key's credentials are revoked: refused by the server
    await assert.rejects(connect({ servers: nats.urls, authenticator: nkeyAuth(oldSigner, oldJwt), reconnect: false }), /authori[sz]ation|revoked/i);
    const ping = await nb.brine(['run', 'm4', 'test.ping', '--out', 'json']);
    assert.deepEqual(JSON.parse(ping.stdout), { m4: true }, ping.stderr);
  });

  it('a minion without its enrolment file stops at once with NATS_ENROLMENT_INVALID (exit 78) and says what to run', async () => {
    const m = nb.cluster.startMinion('noenrol', { transport: 'nats', nats_servers: nats.urls, nats_enrolment: path.join(nb.cluster.root, 'missing.json') });
    assert.equal(await m.exited, 78, m.output);
    assert.match(m.output, /NATS enrolment file .*missing\.json cannot be read.*brine nats enrolment -o/s);
  });
});
