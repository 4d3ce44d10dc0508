// Issue 13: masters share key state through a JetStream key-value bucket, and key removals reach
// the NATS servers even when masters race. Real nats-servers (a 3-node JetStream cluster), real
// key stores in temp dirs, one KeyStateSync per "master"; every test uses its own bucket.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { KeyStore } from '../../src/pki/key-store.js';
import { createLogger } from '../../src/util/logger.js';
import { isBrineError } from '../../src/util/errors.js';
import { ensureRevoked, KeyStateSync, kvKeyOf, lookupAccount, minionInboxPrefix, minionUserJwt, revokeUsers } from '../../src/nats/index.js';
import { natsSkip, newEd25519, nkeyAuth, startNats, type NatsFixture } from '../helpers/nats.js';
import { waitUntil } from '../helpers/cluster.js';

const skip = natsSkip('NATS shared key state');
const edPem = (): string => generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }) as string;

interface Master {
  keys: KeyStore;
  sync: KeyStateSync;
  logs: Array<{ level: number; code?: string; msg: string }>;
  applied: string[][];
}

describe('shared key state and revocations on a 3-node JetStream cluster', { skip, timeout: 300_000 }, () => {
  let nats: NatsFixture;
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  let bucketNo = 0;

  before(async () => {
    nats = await startNats(3);
  });
  after(async () => {
    for (const c of cleanups.splice(0).reverse()) await Promise.resolve(c()).catch(() => undefined);
    await nats?.cleanup();
  });

  function pkiDir(): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-keysync-'));
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    return dir;
  }

  /** A master on its own pki dir and its own connection (to one server of the cluster). */
  async function master(name: string, bucket: string, opts: { dir?: string; server?: number } = {}): Promise<Master> {
    const keys = new KeyStore(opts.dir ?? pkiDir());
    keys.ensureLayout();
    const logs: Master['logs'] = [];
    const logger = createLogger({ name, level: 'debug', format: 'json', write: (line) => logs.push(JSON.parse(line)) });
    const nc = await nats.connectMaster('brine', [nats.urls[(opts.server ?? 0) % nats.urls.length]!]);
    const applied: string[][] = [];
    const sync = await KeyStateSync.start({ nc, keys, logger, name, replicas: 3, bucket, onApplied: (ids) => applied.push(ids) });
    cleanups.push(() => sync.stop());
    return { keys, sync, logs, applied };
  }
  const newBucket = (): string => `test-keys-${++bucketNo}`;
  const fp = (m: Master, state: 'accepted' | 'pending' | 'rejected' | 'denied', id: string) => m.keys.fingerprintOf(state, id);

  it('a key accepted on one master is accepted on the other within seconds, and a delete there removes it here', async () => {
    const bucket = newBucket();
    const a = await master('master-a', bucket, { server: 0 });
    const b = await master('master-b', bucket, { server: 1 });
    const pem = edPem();
    a.keys.write('pending', 'web1.example.com', pem); // a sign-in on A
    assert.deepEqual((await a.sync.publishLocal(['web1.example.com'])).published, ['web1.example.com']);
    await waitUntil(() => fp(b, 'pending', 'web1.example.com') !== undefined, 10_000, 'the pending key on B');
    a.keys.move('web1.example.com', 'pending', 'accepted'); // brine key -a on A
    await a.sync.publishLocal();
    await waitUntil(() => b.keys.states('web1.example.com').join() === 'accepted', 10_000, 'the accepted key on B');
    assert.equal(fp(b, 'accepted', 'web1.example.com'), fp(a, 'accepted', 'web1.example.com'));
    assert.ok(b.applied.flat().includes('web1.example.com'), 'B was told which IDs changed');

    b.keys.remove('web1.example.com'); // brine key -d on B
    assert.deepEqual((await b.sync.publishLocal()).published, ['web1.example.com']);
    await waitUntil(() => a.keys.states('web1.example.com').length === 0, 10_000, 'the delete on A');
    // no echo loop: neither master writes again once both agree
    assert.deepEqual(await a.sync.publishLocal(), { published: [], conflicts: [], failed: [] });
    assert.deepEqual(await b.sync.publishLocal(), { published: [], conflicts: [], failed: [] });
  });

  it('denied keys and their history reach the other master; a rejected key stays rejected there', async () => {
    const bucket = newBucket();
    const a = await master('master-a', bucket);
    const b = await master('master-b', bucket, { server: 2 });
    a.keys.write('accepted', 'db1', edPem());
    a.keys.recordDenied('db1', edPem(), { remote: '10.1.1.1:5000', at: 1000 });
    a.keys.write('rejected', 'db2', edPem());
    await a.sync.publishLocal();
    await waitUntil(() => b.keys.deniedKeys('db1').length === 1 && fp(b, 'rejected', 'db2') !== undefined, 10_000, 'db1 denied and db2 rejected on B');
    assert.equal(b.keys.deniedKeys('db1')[0]?.remote, '10.1.1.1:5000');
    assert.equal(fp(b, 'accepted', 'db1'), fp(a, 'accepted', 'db1'));
  });

  it('concurrent changes converge: different IDs both land, the same ID ends identical on both masters and in the bucket', async () => {
    const bucket = newBucket();
    const a = await master('master-a', bucket, { server: 0 });
    const b = await master('master-b', bucket, { server: 2 });
    for (let i = 0; i < 20; i++) {
      a.keys.write('pending', `a${i}`, edPem());
      b.keys.write('pending', `b${i}`, edPem());
    }
    a.keys.write('accepted', 'same', edPem());
    b.keys.write('rejected', 'same', edPem());
    await Promise.all([a.sync.publishLocal(), b.sync.publishLocal()]);
    const want = [...Array.from({ length: 20 }, (_, i) => [`a${i}`, `b${i}`]).flat(), 'same'].sort();
    const listed = (m: Master) => Object.values(m.keys.listAll()).flat().sort();
    await waitUntil(() => listed(a).join() === want.join() && listed(b).join() === want.join(), 15_000, 'both masters to list every ID');
    await waitUntil(() => a.keys.states('same').join() === b.keys.states('same').join(), 10_000, 'one state for "same" on both');
    const entry = await new Kvm(await nats.connectMaster('brine')).open(bucket).then((kv) => kv.get(kvKeyOf('same')));
    const record = entry?.json<{ accepted?: string; rejected?: string }>();
    assert.equal(a.keys.states('same').length, 1);
    assert.equal(a.keys.states('same')[0] === 'accepted', record?.accepted !== undefined, 'the masters hold what the bucket holds');
  });

  it('a master started later catches up; one that was down publishes the delete made meanwhile, instead of bringing the key back', async () => {
    const bucket = newBucket();
    const a = await master('master-a', bucket);
    for (const id of ['m1', 'm2', 'm3']) a.keys.write('accepted', id, edPem());
    await a.sync.publishLocal();

    const cDir = pkiDir();
    const c = await master('master-c', bucket, { dir: cDir, server: 1 });
    assert.deepEqual(c.keys.list('accepted'), ['m1', 'm2', 'm3'], 'caught up before start() resolved');
    assert.deepEqual(c.applied.flat().sort(), ['m1', 'm2', 'm3']);
    await c.sync.stop();

    // while C is down: brine key -d m1 on C's own files, and A accepts m4
    c.keys.remove('m1');
    a.keys.write('accepted', 'm4', edPem());
    await a.sync.publishLocal();
    const again = await master('master-c', bucket, { dir: cDir, server: 2 });
    assert.deepEqual(again.keys.list('accepted'), ['m2', 'm3', 'm4']);
    await waitUntil(() => a.keys.list('accepted').join() === 'm2,m3,m4', 10_000, 'the delete made while C was down to reach A');
  });

  it('a malformed bucket value or a foreign key name is skipped with a coded log, and the next publish repairs the entry', async () => {
    const bucket = newBucket();
    const a = await master('master-a', bucket);
    const pem = edPem();
    a.keys.write('accepted', 'web5', pem);
    await a.sync.publishLocal();
    const kv = await new Kvm(await nats.connectMaster('brine')).open(bucket);
    await kv.put(kvKeyOf('web5'), 'not json');
    await kv.put('localhost', JSON.stringify({ v: 1, at: 1, by: 'x', accepted: edPem() }));
    await kv.put(kvKeyOf('evil'), JSON.stringify({ v: 1, at: 1, by: 'x', accepted: generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) }));
    await waitUntil(() => a.logs.filter((l) => l.code === 'NATS_KV_VALUE_INVALID').length >= 3, 10_000, 'three NATS_KV_VALUE_INVALID logs');
    assert.equal(a.keys.read('accepted', 'web5'), pem, 'the local key is kept');
    assert.deepEqual(a.keys.states('evil'), []);
    assert.ok(!fs.existsSync(path.join(a.keys.pkiDir, 'minions', 'localhost')));
    // still following the bucket
    const b = await master('master-b', bucket, { server: 1 });
    b.keys.write('pending', 'later', edPem());
    await b.sync.publishLocal();
    await waitUntil(() => fp(a, 'pending', 'later') !== undefined, 10_000, 'a valid update after the bad ones');
    // A's scan replaces the malformed web5 entry with its keys, and B (which skipped it) takes them
    const repaired = await a.sync.publishLocal();
    assert.ok(repaired.published.includes('web5'), JSON.stringify(repaired));
    await waitUntil(() => fp(b, 'accepted', 'web5') !== undefined, 10_000, 'the repaired web5 on B');
  });

  it('concurrent revocations by two masters both stick (the re-check loop), and each revoked minion is disconnected', async () => {
    const minions = [newEd25519(), newEd25519()];
    const closed: Array<ReturnType<NatsConnection['closed']>> = [];
    for (const [i, m] of minions.entries()) {
      const id = `revoked${i}`;
      const nc = await connect({
        servers: [nats.urls[2]!],
        authenticator: nkeyAuth(m.signer, minionUserJwt(nats.master, nats.accounts, id, m.signer.raw)),
        inboxPrefix: minionInboxPrefix(id),
        reconnect: false,
      });
      cleanups.push(() => nc.close());
      await nc.flush();
      closed.push(nc.closed());
    }
    const users = minions.map((m) => m.signer.publicKey('user'));

    // the race, forced: both masters read the account before either pushes
    const raced = await racingMasters();
    // (the later push replaces the earlier one, or a server refuses it as not newer: either way one is lost)
    await Promise.allSettled([revokeUsers(raced[0], nats.master, nats.accounts.brine, [users[0]!]), revokeUsers(raced[1], nats.master, nats.accounts.brine, [users[1]!])]);
    const sys = await nats.connectMaster('sys');
    const lost = (await lookupAccount(sys, nats.accounts.brine)).nats.revocations ?? {};
    assert.equal(users.filter((u) => lost[u] !== undefined).length, 1, 'without the re-check one of two racing revocations is lost');

    const fresh = [newEd25519(), newEd25519()];
    const freshUsers = fresh.map((m) => m.signer.publicKey('user'));
    const conns = await racingMasters();
    const outcomes = await Promise.all([
      ensureRevoked(conns[0], nats.master, nats.accounts.brine, [users[0]!, freshUsers[0]!], { baseDelayMs: 50 }),
      ensureRevoked(conns[1], nats.master, nats.accounts.brine, [users[1]!, freshUsers[1]!], { baseDelayMs: 50 }),
    ]);
    assert.ok(outcomes[0].pushes + outcomes[1].pushes > 2, `the race happened and was repaired (pushes ${outcomes.map((o) => o.pushes)})`);
    const revocations = (await lookupAccount(sys, nats.accounts.brine)).nats.revocations ?? {};
    for (const u of [...users, ...freshUsers]) assert.ok(revocations[u] !== undefined, `${u.slice(0, 8)} revoked`);
    for (const c of closed) assert.match(String(await c), /Authentication Revoked|Authorization Violation/);
  });

  /** Two SYS connections (two masters on two servers) whose first account push waits until both have read the account. */
  async function racingMasters(): Promise<[NatsConnection, NatsConnection]> {
    let arrived = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const wrap = (nc: NatsConnection): NatsConnection => {
      let first = true;
      return new Proxy(nc, {
        get(target, prop) {
          if (prop === 'request') {
            return async (subject: string, ...rest: unknown[]) => {
              if (subject === '$SYS.REQ.CLAIMS.UPDATE' && first) {
                first = false;
                if (++arrived === 2) release();
                await gate;
              }
              return (target.request as (...a: unknown[]) => unknown)(subject, ...rest);
            };
          }
          const v = Reflect.get(target, prop, target);
          return typeof v === 'function' ? v.bind(target) : v;
        },
      });
    };
    return [wrap(await nats.connectMaster('sys', [nats.urls[0]!])), wrap(await nats.connectMaster('sys', [nats.urls[1]!]))];
  }

  // last: it stops two of the three servers
  it('without a JetStream quorum publishLocal fails with NATS_KV_UNAVAILABLE, local files stay, and the change is published once the servers are back', async () => {
    const bucket = newBucket();
    const a = await master('master-a', bucket, { server: 0 });
    const b = await master('master-b', bucket, { server: 0 });
    await nats.stop(nats.nodes[1]!);
    await nats.stop(nats.nodes[2]!);
    const pem = edPem();
    a.keys.write('accepted', 'offline1', pem);
    await assert.rejects(a.sync.publishLocal(['offline1']), (err: unknown) => isBrineError(err, 'NATS_KV_UNAVAILABLE') && /majority of the NATS servers/.test(err.message));
    assert.equal(a.keys.read('accepted', 'offline1'), pem);
    // together: the fixture calls a server healthy once it has routes to both others
    await Promise.all([nats.restart(nats.nodes[1]!), nats.restart(nats.nodes[2]!)]);
    // publishLocal is what the master calls on its reconcile timer; the change must reach B. (Not
    // "publishLocal reports offline1 published": a put that timed out while the quorum was down
    // can still be stored once it is back, and then there is nothing left to publish.)
    await waitUntil(
      async () => {
        await a.sync.publishLocal().catch(() => undefined);
        return fp(b, 'accepted', 'offline1') !== undefined || undefined;
      },
      // JetStream's own recovery after two of three servers restart: seconds alone, over a
      // minute on this shared machine under a full suite and a benchmark
      120_000,
      'the key on B once the quorum is back',
    );
  });
});
