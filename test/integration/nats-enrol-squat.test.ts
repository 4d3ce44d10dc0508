// Issue 21 point 3 (threats.md #42): anyone holding the public enrolment file may ask to sign in
// over NATS. A real master and minions on a real nats-server; the attacker is a raw NATS client
// with the enrolment file's credentials, connected through a loopback proxy whose connections
// leave from 127.0.0.2, so the server sees it at another address than the real minions (127.0.0.1).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Proc } from '../helpers/cluster.js';
import { natsSkip, newEd25519, startNats, type NatsFixture } from '../helpers/nats.js';
import { NatsBrine } from '../helpers/nats-brine.js';
import { type Enrolment, SIGNIN_SUBJECT, type SigninAnswer, signinRequest } from '../../src/nats/index.js';
import { waitUntil } from '../helpers/wait.js';

/** A TCP proxy to `target` whose outgoing connections are bound to `localAddress`. */
async function sourceProxy(target: string, localAddress: string): Promise<{ url: string; close(): Promise<void> }> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: hostname, port: Number(port), localAddress });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `nats://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('transport: nats, enrolment squatting (threats.md #42)', { skip: natsSkip('the NATS enrolment tests') }, () => {
  let nats: NatsFixture;
  let nb: NatsBrine;
  let proxy: Awaited<ReturnType<typeof sourceProxy>>;
  let attacker: NatsConnection;
  const minions: Proc[] = [];

  /** The attacker asks to sign in as `id` with a fresh key of its own. */
  const squat = async (id: string): Promise<SigninAnswer> => {
    const reply = await attacker.request(SIGNIN_SUBJECT, signinRequest(id, newEd25519().signer), { timeout: 10_000 });
    return JSON.parse(reply.string()) as SigninAnswer;
  };

  before(async () => {
    nats = await startNats(1);
    nb = await NatsBrine.create(nats);
    // small caps so one attacker reaches them at once: 3 pending keys per address, 5 sign-ins a second
    // and 4 pending keys in all, so the master is full once the attacker and one real minion wait
    await nb.startMaster(0, { max_pending_keys_per_address: 3, max_pending_keys: 4, auth_rate_per_source: 5 });
    const enrolment = JSON.parse(fs.readFileSync(await nb.enrolmentFile(), 'utf8')) as Enrolment;
    proxy = await sourceProxy(nats.urls[0]!, '127.0.0.2');
    attacker = await connect({ servers: proxy.url, authenticator: () => ({ jwt: enrolment.enrolJwt }), reconnect: false });
  });
  after(async () => {
    await attacker?.close().catch(() => undefined);
    await proxy?.close();
    await nb?.cleanup();
    await nats?.cleanup();
  });

  it('a squatted ID does not end the real minion (CRITICAL, retried), one attacker cannot fill the pending keys of others, a full master is waited out, and sign-ins over the rate are refused', async () => {
    // the attacker squats the real minion's ID and fills its own address's share of pending keys
    assert.equal((await squat('real1')).status, 'pending');
    assert.equal((await squat('squat1')).status, 'pending');
    assert.equal((await squat('squat2')).status, 'pending');
    const full = await squat('squat3');
    assert.equal(full.status, 'full', JSON.stringify(full));
    assert.match(full.message ?? '', /127\.0\.0\.2/, 'the cap is counted for the address the server saw');

    // the real minion arrives: refused (the ID waits under another key), but it stays up and retries
    const real1 = await nb.startMinion('real1', { acceptance_wait_time: 1, acceptance_wait_time_max: 1 });
    minions.push(real1);
    await real1.waitForOutput(/CRITICAL.*before any of them ever accepted it/, 20_000);
    await real1.waitForOutput(/CRITICAL[^\n]*before any of them ever accepted it[\s\S]*CRITICAL[^\n]*before any of them ever accepted it/, 20_000);
    assert.ok(real1.running, `the real minion must not exit over the squatter's refusal:\n${real1.output}`);

    // another new minion (another address than the attacker's) still reaches pending
    const new2 = await nb.startMinion('new2', { acceptance_wait_time: 1, acceptance_wait_time_max: 1 });
    minions.push(new2);
    await nb.cluster.waitForPending(['new2'], 20_000);
    assert.ok(new2.running, new2.output);

    // now the master is full (max_pending_keys): a third minion is told so and waits, it does not exit
    const new3 = await nb.startMinion('new3', { acceptance_wait_time: 1, acceptance_wait_time_max: 1 });
    minions.push(new3);
    await new3.waitForOutput(/cannot take this minion's key now[^\n]*max_pending_keys[\s\S]*cannot take this minion's key now/, 20_000);
    assert.ok(new3.running, `a full master must not end a new minion:\n${new3.output}`);
    // stopped, so the place the operator frees below goes to the real minion
    await new3.kill();

    // the enrolment rate: a burst of sign-ins from one client is turned away with busy
    // from a bucket that admits again (5 a second refill it), so the burst itself is what is refused
    await waitUntil(async () => (await squat('probe')).status !== 'busy', 20_000, 'the enrolment rate to admit the attacker again');
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => squat(`flood${i}`)));
    const busy = answers.filter((a) => a.status === 'busy');
    assert.ok(busy.length >= 10, `most of 20 sign-ins at once over auth_rate_per_source 5 are busy: ${JSON.stringify(answers.map((a) => a.status))}`);
    assert.ok(
      busy.every((a) => typeof a.retryAfter === 'number' && a.retryAfter > 0),
      'busy says when to come back',
    );

    // the operator removes the squatter's key: the real minion, still retrying, gets to pending and in
    const d = await nb.brine(['key', '-d', 'real1', '-y']);
    assert.equal(d.code, 0, d.stdout + d.stderr);
    await nb.cluster.waitForPending(['real1'], 20_000);
    const a = await nb.brine(['key', '-a', 'real1', '-y']);
    assert.equal(a.code, 0, a.stdout + a.stderr);
    await real1.waitForOutput(/connected to NATS server/, 20_000);
    const ping = await nb.brine(['run', 'real1', 'test.ping', '--out', 'json']);
    assert.equal(ping.code, 0, ping.stdout + ping.stderr);
    assert.deepEqual(JSON.parse(ping.stdout), { real1: true });
  });
});
