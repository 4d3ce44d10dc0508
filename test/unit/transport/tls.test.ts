// listenTls/dialTls with real Ed25519 identities on loopback: mutual TLS 1.3, fingerprints on
// both sides, socket options on both raw sockets, and what happens to clients that are not TLS.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as net from 'node:net';
import * as tls from 'node:tls';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadOrCreateIdentity, type Identity } from '../../../src/pki/index.js';
import { MASTER_MESSAGES, MINION_MESSAGES, type MasterMessage, type MinionMessage } from '../../../src/protocol/index.js';
import { createIdentityContext, dialTls, listenTls, type FramedSocket, type KeepaliveOptions, type ResumableSession, type TlsListener } from '../../../src/transport/index.js';
import { isBrineError, type BrineError } from '../../../src/util/errors.js';
import { readSocketOptions } from '../../faults/socket-inspect.js';
import { waitUntil } from '../../helpers/wait.js';
import { collect, freePort, within } from './helpers.js';

const SOCKET_OPTS: KeepaliveOptions = { enabled: true, idleSeconds: 60, intervalSeconds: 10, count: 5, userTimeoutMs: 20_000 };

let dir: string;
let master: Identity;
let minion: Identity;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'brine-'));
  master = await loadOrCreateIdentity({ pkiDir: join(dir, 'master'), name: 'master', commonName: 'salt' });
  minion = await loadOrCreateIdentity({ pkiDir: join(dir, 'minion'), name: 'minion', commonName: 'web1' });
});
after(() => rmSync(dir, { recursive: true, force: true }));

interface Server {
  listener: TlsListener;
  channels: Array<{ channel: FramedSocket<MinionMessage, MasterMessage>; raw: net.Socket }>;
  refused: Array<{ remote: string; error: BrineError }>;
  nextChannel(): Promise<{ channel: FramedSocket<MinionMessage, MasterMessage>; raw: net.Socket }>;
  nextRefusal(): Promise<{ remote: string; error: BrineError }>;
}

/** With `pacing`, the listener paces handshakes and answers at the door (handshake-gate.ts, door.ts). */
async function startServer(t: import('node:test').TestContext, pacing?: { concurrency: number; maxRatePerSecond: number; maxHoldMs: number }, ticketKeys?: Buffer): Promise<Server> {
  const channels: Server['channels'] = [];
  const refused: Server['refused'] = [];
  const channelWaiters: Array<(c: Server['channels'][number]) => void> = [];
  const refusalWaiters: Array<(r: Server['refused'][number]) => void> = [];
  const listener = await listenTls<MinionMessage, MasterMessage>({
    host: '127.0.0.1',
    port: 0,
    identity: master,
    handshakeTimeoutMs: 300,
    preauthMaxFrame: 64 * 1024,
    socketOptions: SOCKET_OPTS,
    schemas: MINION_MESSAGES,
    ...(pacing ? { pacing } : {}),
    ...(ticketKeys ? { tickets: { keys: ticketKeys, lifetimeSeconds: 3600 } } : {}),
    onChannel: (channel, raw, slot) => {
      // as the master does once the peer has signed in: its handshake slot goes to the next
      slot.release();
      const c = { channel, raw };
      channels.push(c);
      channelWaiters.shift()?.(c);
    },
    onRefused: (remote, error) => {
      const r = { remote, error };
      refused.push(r);
      refusalWaiters.shift()?.(r);
    },
  });
  t.after(() => listener.close());
  return {
    listener,
    channels,
    refused,
    nextChannel: () => within(3_000, 'a channel', (done) => channelWaiters.push(done)),
    nextRefusal: () => within(3_000, 'a refusal', (done) => refusalWaiters.push(done)),
  };
}

function dial(port: number, timeoutMs = 3_000, onTcpConnected?: () => void, door = false) {
  return dialTls<MasterMessage, MinionMessage>({
    door,
    host: '127.0.0.1',
    port,
    secureContext: createIdentityContext(minion),
    timeoutMs,
    socketOptions: SOCKET_OPTS,
    maxFrame: 64 * 1024,
    schemas: MASTER_MESSAGES,
    ...(onTcpConnected ? { onTcpConnected } : {}),
  });
}

/**
 * A peer that takes a handshake slot at the door (asks with a 5 s patience, is told OK) and then
 * never starts TLS: it holds the slot until it hangs up or handshakeTimeoutMs passes.
 */
async function holdSlotAtDoor(t: import('node:test').TestContext, port: number): Promise<net.Socket> {
  const holder = net.connect({ host: '127.0.0.1', port });
  holder.on('error', () => undefined);
  t.after(() => holder.destroy());
  holder.write('BRINE/1 5000\n');
  assert.equal(await within<string>(2_000, 'the door answer', (done) => holder.once('data', (d: Buffer) => done(d.toString()))), 'OK\n');
  return holder;
}

test('mutual TLS: each side sees the other by key fingerprint, messages flow, options are set on both raw sockets', async (t) => {
  const server = await startServer(t);
  let tcpUp = 0;
  const accepted = server.nextChannel();
  const { channel: client, raw: clientRaw } = await dial(server.listener.port, 3_000, () => tcpUp++);
  t.after(() => client.close('shutdown'));
  const { channel: serverSide, raw: serverRaw } = await accepted;
  assert.equal(tcpUp, 1);
  assert.equal(serverSide.peerFingerprint, minion.fingerprint);
  assert.equal(client.peerFingerprint, master.fingerprint);
  assert.equal(serverSide.peerPublicKeyPem, minion.publicKeyPem);
  assert.equal(client.peerPublicKeyPem, master.publicKeyPem);
  assert.match(serverSide.remoteAddress, /^127\.0\.0\.1:\d+$/);

  const hello = within<MinionMessage>(2_000, 'hello', (done) => serverSide.onMessage(done));
  client.send({ t: 'hello', versions: [1], id: 'web1', agent: 'test' });
  assert.deepEqual(await hello, { t: 'hello', versions: [1], id: 'web1', agent: 'test' });
  const reply = within<MasterMessage>(2_000, 'auth', (done) => client.onMessage(done));
  serverSide.send({ t: 'auth', status: 'accepted', version: 1, minVersion: 1, message: 'ok', masterFingerprint: master.fingerprint });
  assert.equal((await reply).t, 'auth');

  const expected = { keepalive: true, idleSeconds: 60, intervalSeconds: 10, count: 5, userTimeoutMs: 20_000 };
  assert.deepEqual(readSocketOptions(serverRaw), expected);
  assert.deepEqual(readSocketOptions(clientRaw), expected);
});

test('issue 27 (sessmem): an accepted plain socket keeps no timer and one listener per event of its own once TLS is up', async (t) => {
  // 10,000 connections live for days: a cleared Timeout (with its bound callback) or a closure
  // per connection left on the plain socket is ~0.3 KB each, for the connection's life
  const server = await startServer(t, { concurrency: 4, maxRatePerSecond: 1000, maxHoldMs: 1000 });
  const accepted = server.nextChannel();
  const { channel: client } = await dial(server.listener.port, 3_000, undefined, true);
  t.after(() => client.close('shutdown'));
  const { raw } = await accepted;
  const timeoutKey = Object.getOwnPropertySymbols(raw).find((s) => s.description === 'timeout');
  const timer = timeoutKey === undefined ? undefined : (raw as unknown as Record<symbol, unknown>)[timeoutKey];
  assert.equal(timer ?? undefined, undefined, 'the door sniff left a Timeout on the plain socket');
  // the listener's own close and error listeners are shared functions, not one closure each
  const second = server.nextChannel();
  const { channel: client2 } = await dial(server.listener.port, 3_000, undefined, true);
  t.after(() => client2.close('shutdown'));
  const { raw: raw2 } = await second;
  for (const event of ['close', 'error']) {
    const mine = raw.listeners(event).filter((f) => !raw2.listeners(event).includes(f));
    assert.equal(mine.length, 1, `${event}: ${mine.length} listeners of this socket's own (Node's TLS wrap adds one)`);
  }
});

test('the pre-auth frame limit applies on the listener side', async (t) => {
  const server = await startServer(t);
  const accepted = server.nextChannel();
  const { channel: client } = await dial(server.listener.port);
  t.after(() => client.close('shutdown'));
  const { channel: serverSide } = await accepted;
  const closed = within<string>(2_000, 'close', (done) => serverSide.onClose((i) => done(i.reason)));
  client.send({ t: 'hello', versions: [1], id: 'x'.repeat(1024), agent: 'a'.repeat(128) } as MinionMessage);
  client.send({ t: 'bye', reason: 'z'.repeat(70_000) });
  assert.equal(await closed, 'frame_too_large');
});

const PACED = { concurrency: 4, maxRatePerSecond: 100, maxHoldMs: 1000 };

for (const paced of [false, true]) {
  const mode = paced ? ' (handshakes paced at the door)' : '';
  test(`non-TLS bytes: onRefused with TLS_ERROR, the client is dropped, and the next real client is served${mode}`, async (t) => {
    const server = await startServer(t, paced ? PACED : undefined);
    const refusal = server.nextRefusal();
    const plain = net.connect({ host: '127.0.0.1', port: server.listener.port });
    plain.on('error', () => undefined);
    t.after(() => plain.destroy());
    const gone = collect(plain);
    plain.write('GET / HTTP/1.1\r\nHost: salt\r\n\r\n');
    const { remote, error } = await refusal;
    assert.ok(isBrineError(error, 'TLS_ERROR'), error.code);
    assert.match(remote, /^127\.0\.0\.1:\d+$/);
    await within(2_000, 'plain client dropped', (done) => void gone.then(done));
    assert.equal(server.channels.length, 0);

    const accepted = server.nextChannel();
    const { channel: client } = await dial(server.listener.port, 3_000, undefined, paced);
    t.after(() => client.close('shutdown'));
    assert.equal((await accepted).channel.peerFingerprint, minion.fingerprint);
  });

  test(`a TCP client that never starts TLS is dropped after handshakeTimeoutMs (300 ms)${mode}`, async (t) => {
    const server = await startServer(t, paced ? PACED : undefined);
    const refusal = server.nextRefusal();
    const started = Date.now();
    const idle = net.connect({ host: '127.0.0.1', port: server.listener.port });
    idle.on('error', () => undefined);
    t.after(() => idle.destroy());
    const closedAt = within<number>(3_000, 'idle client dropped', (done) => idle.once('close', () => done(Date.now())));
    const { error } = await refusal;
    assert.ok(isBrineError(error, 'HANDSHAKE_TIMEOUT'), error.code);
    const elapsed = (await closedAt) - started;
    assert.ok(elapsed >= 250 && elapsed < 2_000, `dropped after ${elapsed} ms`);
  });
}

test('the door: a brine dialer and a plain TLS client (openssl s_client, an older minion) both get in', async (t) => {
  const server = await startServer(t, PACED);
  const first = server.nextChannel();
  const { channel: doorClient } = await dial(server.listener.port, 3_000, undefined, true);
  t.after(() => doorClient.close('shutdown'));
  assert.equal((await first).channel.peerFingerprint, minion.fingerprint);
  const second = server.nextChannel();
  const plain = tls.connect({ host: '127.0.0.1', port: server.listener.port, key: minion.privateKeyPem, cert: minion.certPem, rejectUnauthorized: false, minVersion: 'TLSv1.3' });
  plain.on('error', () => undefined);
  t.after(() => plain.destroy());
  const { channel } = await second;
  assert.equal(channel.peerFingerprint, minion.fingerprint);
  // the plain client's first frame reaches the channel: nothing of its TLS stream was lost to the sniffing
  const got = within<MinionMessage>(2_000, 'hello through the plain client', (done) => channel.onMessage(done));
  const body = Buffer.from(JSON.stringify({ t: 'hello', versions: [1], id: 'plain', agent: 'openssl' }));
  const frame = Buffer.alloc(4 + body.length);
  frame.writeUInt32BE(body.length, 0);
  body.copy(frame, 4);
  plain.write(frame);
  assert.equal(((await got) as { id: string }).id, 'plain');
  assert.equal(server.refused.length, 0);
});

test('the door: with every handshake slot taken, a brine dialer is told when to come back before any TLS, and gets in once a slot frees', async (t) => {
  // one slot, 10 handshakes/s planned: the next dialer would wait 100 ms, more than half its patience
  const server = await startServer(t, { concurrency: 1, maxRatePerSecond: 10, maxHoldMs: 1000 });
  // a peer takes the slot at the door and then never starts TLS: it holds it for handshakeTimeoutMs
  await holdSlotAtDoor(t, server.listener.port);
  const held = server.nextRefusal();

  const refused = await dial(server.listener.port, 150, undefined, true).then(
    () => undefined,
    (err: unknown) => err,
  );
  assert.ok(isBrineError(refused, 'MASTER_BUSY'), String(refused));
  const retryAfterMs = (refused as BrineError).details.retryAfterMs as number;
  assert.ok(retryAfterMs >= 100 && retryAfterMs < 1_000, `come back in ${retryAfterMs} ms`);
  assert.equal(server.listener.pacing().turnedAway, 1);
  // turned away at the door: no TLS work and no refusal for it
  assert.equal(server.refused.length, 0);
  assert.equal(server.channels.length, 0);

  // the holder's handshake times out, its slot frees, and the next dialer is let in
  assert.ok(isBrineError((await held).error, 'HANDSHAKE_TIMEOUT'));
  const accepted = server.nextChannel();
  const { channel } = await dial(server.listener.port, 3_000, undefined, true);
  t.after(() => channel.close('shutdown'));
  assert.equal((await accepted).channel.peerFingerprint, minion.fingerprint);
  assert.equal(server.listener.pacing().inFlight, 0);
});

test('the door: the master closes a turned-away connection itself once the BUSY line is out (no wait for the peer to close)', async (t) => {
  const server = await startServer(t, { concurrency: 1, maxRatePerSecond: 10, maxHoldMs: 1000 });
  await holdSlotAtDoor(t, server.listener.port);
  // a peer that reads the answer and then keeps its end open (a brine dialer would close)
  const peer = net.connect({ host: '127.0.0.1', port: server.listener.port, allowHalfOpen: true });
  peer.on('error', () => undefined);
  t.after(() => peer.destroy());
  let answer = '';
  peer.on('data', (d: Buffer) => {
    answer += d.toString();
  });
  peer.write('BRINE/1 150\n');
  await within(1_500, "the master's FIN", (done) => peer.once('end', () => done(undefined)));
  assert.match(answer, /^BUSY \d+\n$/);
  // the master's socket is gone, not half-open and still reading (before: until the peer closed, or
  // a 2 s timer): anything more the peer sends is answered with a reset
  const closed = within(1_500, 'the connection closed by the master', (done) => peer.once('close', () => done(undefined)));
  const writer = setInterval(() => peer.write('more'), 50);
  t.after(() => clearInterval(writer));
  await closed;
  assert.equal(server.listener.pacing().turnedAway, 1);
});

test('the door: a dialer waits in line for a slot that frees soon, instead of being turned away', async (t) => {
  const server = await startServer(t, { concurrency: 1, maxRatePerSecond: 100, maxHoldMs: 1000 });
  const holder = await holdSlotAtDoor(t, server.listener.port);
  const accepted = server.nextChannel();
  // expected wait 10 ms: held in line; the holder's slot frees when it hangs up
  const dialing = dial(server.listener.port, 3_000, undefined, true);
  await waitUntil(() => server.listener.pacing().waiting === 1, 2_000, 'the dialer waiting in line');
  holder.destroy();
  const { channel } = await dialing;
  t.after(() => channel.close('shutdown'));
  assert.equal((await accepted).channel.peerFingerprint, minion.fingerprint);
  assert.equal(server.listener.pacing().turnedAway, 0);
});

test('the door with pacing off (handshake_concurrency 0): every brine dialer is answered OK', async (t) => {
  const server = await startServer(t, { concurrency: 0, maxRatePerSecond: 1, maxHoldMs: 1000 });
  const dials = [];
  for (let i = 0; i < 5; i++) dials.push(dial(server.listener.port, 3_000, undefined, true));
  for (const { channel } of await Promise.all(dials)) t.after(() => channel.close('shutdown'));
  await waitUntil(() => server.channels.length === 5, 3_000, 'five channels');
  assert.equal(server.listener.pacing().turnedAway, 0);
});

test("TLS sessions resume with the master's ticket keys, across a listener restart too, and peers still see each other's keys", async (t) => {
  const keys = randomBytes(48);
  const tickets: ResumableSession[] = [];
  const dialWith = (port: number, session?: ResumableSession) =>
    dialTls<MasterMessage, MinionMessage>({
      host: '127.0.0.1',
      port,
      secureContext: createIdentityContext(minion),
      timeoutMs: 3_000,
      socketOptions: SOCKET_OPTS,
      maxFrame: 64 * 1024,
      schemas: MASTER_MESSAGES,
      door: true,
      ...(session ? { session } : {}),
      onSession: (s) => tickets.push(s),
    });
  const exchange = async (server: Server, port: number, session?: ResumableSession) => {
    const accepted = server.nextChannel();
    const dialed = await dialWith(port, session);
    const { channel: serverSide } = await accepted;
    // a frame each way: the session carries data, and the minion reads the ticket meanwhile
    const got = within<MinionMessage>(2_000, 'hello', (done) => serverSide.onMessage(done));
    dialed.channel.send({ t: 'hello', versions: [1], id: 'web1', agent: 'test' });
    await got;
    const reply = within<MasterMessage>(2_000, 'auth', (done) => dialed.channel.onMessage(done));
    serverSide.send({ t: 'auth', status: 'accepted', version: 1, minVersion: 1, message: 'ok', masterFingerprint: master.fingerprint });
    await reply;
    assert.equal(serverSide.peerFingerprint, minion.fingerprint);
    assert.equal(serverSide.peerPublicKeyPem, minion.publicKeyPem);
    assert.equal(dialed.channel.peerFingerprint, master.fingerprint);
    assert.equal(dialed.channel.peerPublicKeyPem, master.publicKeyPem);
    dialed.channel.close('shutdown');
    return dialed.resumed;
  };
  const first = await startServer(t, PACED, keys);
  assert.equal(await exchange(first, first.listener.port), false, 'the first connection is a full handshake');
  await waitUntil(() => tickets.length > 0, 2_000, 'a session ticket');
  assert.equal(await exchange(first, first.listener.port, tickets.at(-1)), true, 'resumed');
  // the master restarts with the same keys (kept in pki_dir): the ticket still works
  await first.listener.close();
  const again = await startServer(t, PACED, keys);
  assert.equal(await exchange(again, again.listener.port, tickets.at(-1)), true, 'resumed after a restart');
  // other keys (renewed): a full handshake, and it still works
  const other = await startServer(t, PACED, randomBytes(48));
  assert.equal(await exchange(other, other.listener.port, tickets.at(-1)), false, 'a full handshake with new keys');
});

test('the door: a handshake slot is held until the peer has signed in (the slot released), not just until TLS is up', async (t) => {
  const slots: Array<{ release(): void }> = [];
  const channels: FramedSocket<MinionMessage, MasterMessage>[] = [];
  const listener = await listenTls<MinionMessage, MasterMessage>({
    host: '127.0.0.1',
    port: 0,
    identity: master,
    handshakeTimeoutMs: 3_000,
    preauthMaxFrame: 64 * 1024,
    socketOptions: SOCKET_OPTS,
    schemas: MINION_MESSAGES,
    pacing: { concurrency: 1, maxRatePerSecond: 10, maxHoldMs: 1000 },
    onChannel: (channel, _raw, slot) => {
      channels.push(channel);
      slots.push(slot);
    },
  });
  t.after(() => listener.close());
  const first = await dial(listener.port, 3_000, undefined, true);
  t.after(() => first.channel.close('shutdown'));
  // TLS is up but the peer has not signed in: the one slot is still taken
  const refused = await dial(listener.port, 150, undefined, true).then(
    () => undefined,
    (err: unknown) => err,
  );
  assert.ok(isBrineError(refused, 'MASTER_BUSY'), String(refused));
  slots[0]!.release();
  assert.equal(listener.pacing().inFlight, 0);
  const second = await dial(listener.port, 3_000, undefined, true);
  t.after(() => second.channel.close('shutdown'));
  await waitUntil(() => channels.length === 2, 2_000, 'the second channel on the listener');
});

/** A plain TCP server that greets every connection with `greeting`. */
async function greeter(t: { after(fn: () => void): void }, greeting: string): Promise<number> {
  const sockets = new Set<net.Socket>();
  const other = net.createServer((s) => {
    sockets.add(s);
    s.write(greeting);
  });
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    for (const s of sockets) s.destroy();
    other.close();
  });
  return (other.address() as net.AddressInfo).port;
}

test('dialTls with the door to something that answers neither OK nor BUSY: TLS_ERROR naming what it said', async (t) => {
  const port = await greeter(t, 'WHO-ARE-YOU 1.0\r\n');
  await assert.rejects(dial(port, 2_000, undefined, true), (err: unknown) => isBrineError(err, 'TLS_ERROR') && /WHO-ARE-YOU 1\.0/.test((err as Error).message));
});

test('dialTls with the door to an SSH server: PEER_NOT_BRINE naming it and the port to use (issue 26)', async (t) => {
  const port = await greeter(t, 'SSH-2.0-OpenSSH_9.2\r\n');
  await assert.rejects(
    dial(port, 2_000, undefined, true),
    (err: unknown) => isBrineError(err, 'PEER_NOT_BRINE') && /sent "SSH-2\.0-OpenSSH_9\.2", as an SSH server does.*ret_port/.test((err as Error).message),
  );
});

test('dialTls to a port where nothing listens: CONNECT_FAILED', async () => {
  const port = await freePort();
  await assert.rejects(dial(port), (err: unknown) => isBrineError(err, 'CONNECT_FAILED'));
});

test('dialTls to a server that never speaks TLS: HANDSHAKE_TIMEOUT after timeoutMs', async (t) => {
  const sockets = new Set<net.Socket>();
  const mute = net.createServer((s) => sockets.add(s));
  await new Promise<void>((resolve) => mute.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    for (const s of sockets) s.destroy();
    mute.close();
  });
  const started = Date.now();
  await assert.rejects(dial((mute.address() as net.AddressInfo).port, 300), (err: unknown) => isBrineError(err, 'HANDSHAKE_TIMEOUT'));
  const elapsed = Date.now() - started;
  assert.ok(elapsed >= 250 && elapsed < 2_000, `gave up after ${elapsed} ms`);
});

test('dialTls stops when its signal aborts (an abandoned attempt does not linger)', async (t) => {
  const sockets = new Set<net.Socket>();
  const mute = net.createServer((s) => sockets.add(s));
  await new Promise<void>((resolve) => mute.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    for (const s of sockets) s.destroy();
    mute.close();
  });
  const abort = new AbortController();
  const attempt = dialTls<MasterMessage, MinionMessage>({
    host: '127.0.0.1',
    port: (mute.address() as net.AddressInfo).port,
    secureContext: createIdentityContext(minion),
    timeoutMs: 10_000,
    socketOptions: SOCKET_OPTS,
    maxFrame: 1024,
    schemas: MASTER_MESSAGES,
    signal: abort.signal,
  });
  const serverSocket = await within<net.Socket>(2_000, 'tcp accept', (done) => mute.once('connection', done));
  const peerGone = within(2_000, 'socket closed by the dialer', (done) => serverSocket.once('close', () => done(undefined)));
  abort.abort();
  await assert.rejects(attempt, (err: unknown) => isBrineError(err, 'CONNECT_FAILED'));
  await peerGone;
});

test('listenTls on a port in use: LISTEN_FAILED', async (t) => {
  const server = await startServer(t);
  await assert.rejects(
    listenTls({
      host: '127.0.0.1',
      port: server.listener.port,
      identity: master,
      handshakeTimeoutMs: 300,
      preauthMaxFrame: 1024,
      socketOptions: SOCKET_OPTS,
      schemas: MINION_MESSAGES,
      onChannel: () => undefined,
    }),
    (err: unknown) => isBrineError(err, 'LISTEN_FAILED'),
  );
});

test('closing the listener drops its live connections', async (t) => {
  const server = await startServer(t);
  const accepted = server.nextChannel();
  const { channel: client } = await dial(server.listener.port);
  await accepted;
  const closed = within<string>(2_000, 'client close', (done) => client.onClose((i) => done(i.reason)));
  await server.listener.close();
  assert.ok(['peer_closed', 'reset'].includes(await closed));
});
