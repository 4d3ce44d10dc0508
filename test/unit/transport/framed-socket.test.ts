// FramedSocket over real loopback TCP: messages round-trip, hostile bytes close the channel with
// the right reason (telling the peer why when the stream still allows it), and close is once.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type * as net from 'node:net';
import { FrameDecoder, MASTER_MESSAGES, MINION_MESSAGES, encodeFrame, type ChannelClose, type MasterMessage, type MinionMessage } from '../../../src/protocol/index.js';
import { FramedSocket } from '../../../src/transport/index.js';
import { isBrineError } from '../../../src/util/errors.js';
import { collect, tcpPair, within } from './helpers.js';
import { nothingFor, waitUntil } from '../../helpers/wait.js';

type MasterSide = FramedSocket<MinionMessage, MasterMessage>;
type MinionSide = FramedSocket<MasterMessage, MinionMessage>;

const masterSide = (socket: net.Socket, maxFrame = 1024): MasterSide =>
  new FramedSocket<MinionMessage, MasterMessage>(socket, { remoteAddress: 'test', peerFingerprint: 'fp', maxFrame, schemas: MINION_MESSAGES });
const minionSide = (socket: net.Socket, maxFrame = 1024): MinionSide =>
  new FramedSocket<MasterMessage, MinionMessage>(socket, { remoteAddress: 'test', peerFingerprint: 'fp', maxFrame, schemas: MASTER_MESSAGES });

const closeOf = (ch: { onClose(fn: (i: ChannelClose) => void): void }, ms = 2_000): Promise<ChannelClose> => within(ms, 'channel close', (done) => ch.onClose(done));

function decodeAll(bytes: Buffer): unknown[] {
  return new FrameDecoder(1 << 20).push(bytes).map((p) => JSON.parse(p.toString('utf8')) as unknown);
}

test('messages round-trip in both directions, in order, validated', async (t) => {
  const { client, server } = await tcpPair(t);
  const master = masterSide(server);
  const minion = minionSide(client);
  const atMaster: MinionMessage[] = [];
  const atMinion: MasterMessage[] = [];
  master.onMessage((m) => atMaster.push(m));
  minion.onMessage((m) => atMinion.push(m));
  assert.equal(minion.send({ t: 'hello', versions: [1], id: 'web1', agent: 'a' }), true);
  for (let seq = 0; seq < 50; seq++) minion.send({ t: 'ping', seq });
  await within(2_000, '51 messages', (done) => master.onMessage(() => atMaster.length === 51 && done(undefined)));
  assert.deepEqual(atMaster[0], { t: 'hello', versions: [1], id: 'web1', agent: 'a' });
  assert.deepEqual(
    atMaster.slice(1).map((m) => (m.t === 'ping' ? m.seq : -1)),
    Array.from({ length: 50 }, (_, i) => i),
  );
  master.send({ t: 'pong', seq: 49 });
  await within(2_000, 'pong', (done) => minion.onMessage(done));
  assert.deepEqual(atMinion, [{ t: 'pong', seq: 49 }]);
  minion.close('shutdown');
  master.close('shutdown');
});

test('setMaxFrame lets a larger message through after "authentication"', async (t) => {
  const { client, server } = await tcpPair(t);
  const master = masterSide(server, 256);
  const minion = minionSide(client);
  master.setMaxFrame(1 << 20);
  const got = within<MinionMessage>(2_000, 'big return', (done) => master.onMessage(done));
  minion.send({ t: 'return', jid: '20240101000000000001', fun: 'test.echo', ret: 'x'.repeat(100_000), retcode: 0, success: true });
  const m = await got;
  assert.equal(m.t === 'return' && (m.ret as string).length, 100_000);
});

test('a frame header over the limit closes with frame_too_large before the payload is sent', async (t) => {
  const { client, server } = await tcpPair(t);
  const master = masterSide(server, 1024);
  const closed = closeOf(master);
  const seenByPeer = collect(client);
  const header = Buffer.alloc(4);
  header.writeUInt32BE(1025, 0);
  client.write(header); // only the header: the limit is checked before any payload arrives
  const info = await closed;
  assert.equal(info.reason, 'frame_too_large');
  assert.equal(info.local, true);
  assert.ok(isBrineError(info.error, 'FRAME_TOO_LARGE'));
  await within(2_000, 'peer sees the close', (done) => void seenByPeer.then(done));
  assert.equal(master.closed, true);
});

test('a frame of garbage closes with protocol_error; the peer gets an error frame first', async (t) => {
  const { client, server } = await tcpPair(t);
  const master = masterSide(server);
  const closed = closeOf(master);
  const seenByPeer = collect(client);
  client.write(encodeFrame(Buffer.from('GET / HTTP/1.1\r\n\r\n')));
  const info = await closed;
  assert.equal(info.reason, 'protocol_error');
  assert.ok(isBrineError(info.error, 'FRAME_MALFORMED'));
  const frames = decodeAll(await seenByPeer);
  assert.equal(frames.length, 1);
  assert.deepEqual(Object.keys(frames[0] as object).sort(), ['code', 'message', 't']);
  assert.equal((frames[0] as { t: string; code: string }).t, 'error');
  assert.equal((frames[0] as { code: string }).code, 'FRAME_MALFORMED');
});

test('a valid JSON message of an unknown type: error frame with MESSAGE_INVALID, then close', async (t) => {
  const { client, server } = await tcpPair(t);
  const master = masterSide(server);
  const closed = closeOf(master);
  const seenByPeer = collect(client);
  const messages: unknown[] = [];
  master.onMessage((m) => messages.push(m));
  // a good message first, then a bad one, then one that must never be delivered
  client.write(Buffer.concat([encodeFrame(Buffer.from('{"t":"ping","seq":1}')), encodeFrame(Buffer.from('{"t":"job"}')), encodeFrame(Buffer.from('{"t":"ping","seq":2}'))]));
  const info = await closed;
  assert.equal(info.reason, 'protocol_error');
  assert.deepEqual(messages, [{ t: 'ping', seq: 1 }]);
  const frames = decodeAll(await seenByPeer) as Array<{ t: string; code: string; message: string }>;
  assert.equal(frames[0]?.code, 'MESSAGE_INVALID');
  // the error frame itself is a valid master->minion message (the peer can read it)
  assert.ok(MASTER_MESSAGES.get('error')!.check(frames[0], 'error') === undefined);
});

test('a peer reset closes with reason reset (remote)', async (t) => {
  const { client, server } = await tcpPair(t);
  const master = masterSide(server);
  const closed = closeOf(master);
  client.resetAndDestroy();
  const info = await closed;
  assert.equal(info.reason, 'reset');
  assert.equal(info.local, false);
});

test('a peer that closes cleanly gives peer_closed', async (t) => {
  const { client, server } = await tcpPair(t);
  const master = masterSide(server);
  const closed = closeOf(master);
  client.end();
  const info = await closed;
  assert.equal(info.reason, 'peer_closed');
});

test('close() is idempotent: onClose fires once with the first reason, also for late subscribers', async (t) => {
  const { client, server } = await tcpPair(t);
  const master = masterSide(server);
  const minion = minionSide(client);
  const minionClosed = closeOf(minion);
  const seen: ChannelClose[] = [];
  master.onClose((i) => seen.push(i));
  master.close('shutdown');
  master.close('heartbeat_timeout');
  master.destroy('reset');
  assert.equal(master.closed, true);
  assert.equal(master.send({ t: 'pong', seq: 1 }), false, 'nothing is sent after close');
  const late = await within<ChannelClose>(1_000, 'late subscriber', (done) => master.onClose(done));
  await nothingFor(50, 'a second onClose', () => seen.length > 1 && seen.map((i) => i.reason));
  assert.equal(seen.length, 1);
  assert.equal(seen[0]!.reason, 'shutdown');
  assert.equal(seen[0]!.local, true);
  assert.equal(late.reason, 'shutdown');
  assert.equal((await minionClosed).reason, 'peer_closed', 'the other side learns of it');
});

test('a message handler that throws closes the channel (internal_error) instead of crashing the process', async (t) => {
  const { client, server } = await tcpPair(t);
  const master = masterSide(server);
  const closed = closeOf(master);
  const later: unknown[] = [];
  master.onMessage(() => {
    throw new Error('handler bug');
  });
  master.onMessage((m) => later.push(m));
  client.write(Buffer.concat([encodeFrame(Buffer.from('{"t":"ping","seq":1}')), encodeFrame(Buffer.from('{"t":"ping","seq":2}'))]));
  const info = await closed;
  assert.equal(info.reason, 'internal_error');
  assert.equal(info.error?.message, 'handler bug');
  assert.deepEqual(later, [], 'nothing is dispatched after the failure');
});

test('a close handler that throws does not stop the other close handlers', async (t) => {
  const { server } = await tcpPair(t);
  const master = masterSide(server);
  const warned = within<Error>(1_000, 'a process warning', (done) => process.once('warning', done));
  let second = 0;
  master.onClose(() => {
    throw new Error('close handler bug');
  });
  master.onClose(() => second++);
  assert.doesNotThrow(() => master.close('shutdown'));
  assert.equal(second, 1);
  assert.equal((await warned).message, 'close handler bug', 'the failure is reported, not swallowed');
});

test('a peer that stops reading is closed with write_failed once maxWriteBuffer is queued; another peer is unaffected (threats.md #27)', async (t) => {
  const slow = await tcpPair(t);
  const healthy = await tcpPair(t);
  const cap = 1 << 20;
  const toSlow = new FramedSocket<MinionMessage, MasterMessage>(slow.server, { remoteAddress: 'slow', peerFingerprint: 'fp', maxFrame: 1024, schemas: MINION_MESSAGES, maxWriteBuffer: cap });
  const toHealthy = masterSide(healthy.server);
  const healthyMinion = minionSide(healthy.client, 1 << 20);
  // the slow peer stays connected but never reads: the kernel buffers fill, then ours do
  slow.client.pause();
  const closed = closeOf(toSlow, 20_000);
  const job = (n: number): MasterMessage => ({ t: 'job', jid: '20240101000000000001', fun: 'test.echo', arg: [`${n}:${'x'.repeat(64 * 1024)}`], kwarg: {}, tgt: '*', tgtType: 'glob' });
  let sent = 0;
  // bounded: far more than the kernel's loopback buffers plus the cap
  while (sent < 4000 && toSlow.send(job(sent))) {
    sent++;
    // let the event loop run now and then so the kernel drains into the (paused) peer's buffers
    if (sent % 50 === 0) await new Promise((r) => setImmediate(r));
  }
  const info = await closed;
  assert.equal(info.reason, 'write_failed');
  assert.match(String(info.error?.message), /is not reading; \d+ bytes queued/);
  assert.ok(sent < 4000, `the cap closed the channel (after ${sent} sends of 64 KiB)`);
  assert.equal(toSlow.send(job(0)), false, 'a closed channel accepts nothing more');
  // the other peer still gets its messages
  const got = within<MasterMessage>(2_000, 'a job on the healthy channel', (done) => healthyMinion.onMessage(done));
  assert.equal(toHealthy.send(job(1)), true);
  assert.equal((await got).t, 'job');
});

for (const coalesceWrites of [false, true]) {
  test(`a peer that reads slowly may have more than maxWriteBuffer queued while it keeps reading: every message arrives, in order, and the channel stays open (coalesceWrites ${coalesceWrites})`, async (t) => {
    const { client, server } = await tcpPair(t);
    const cap = 1 << 20;
    const toSlow = new FramedSocket<MinionMessage, MasterMessage>(server, {
      remoteAddress: 'slow reader',
      peerFingerprint: 'fp',
      maxFrame: 1024,
      schemas: MINION_MESSAGES,
      maxWriteBuffer: cap,
      coalesceWrites,
    });
    const reader = minionSide(client, 1 << 20);
    const seen: number[] = [];
    reader.onMessage((m) => {
      if (m.t === 'job') seen.push(Number(String(m.arg[0]).split(':')[0]));
    });
    const job = (n: number): MasterMessage => ({ t: 'job', jid: '20240101000000000001', fun: 'test.echo', arg: [`${n}:${'x'.repeat(64 * 1024)}`], kwarg: {}, tgt: '*', tgtType: 'glob' });
    // the reader is busy for a while (paused: the kernel buffers fill, then ours pass the cap), as
    // a `brine run` CLI printing a 1,000-minion state.apply on a loaded host; then it reads again
    client.pause();
    let n = 0;
    let peak = 0;
    while (server.writableLength <= cap * 1.5 && n < 4000) {
      assert.equal(toSlow.send(job(n)), true, `send ${n} was accepted (queued ${server.writableLength} bytes)`);
      n++;
      peak = Math.max(peak, server.writableLength);
      if (n % 20 === 0) await new Promise((r) => setImmediate(r));
    }
    assert.ok(peak > cap, `more than the cap was queued (${peak} bytes)`);
    client.resume();
    // while the queue is still over the cap, more (small) messages keep coming, one per turn
    const small = (k: number): MasterMessage => ({ t: 'job', jid: '20240101000000000001', fun: 'test.echo', arg: [`${k}:`], kwarg: {}, tgt: '*', tgtType: 'glob' });
    const total = n + 100;
    let overCapSends = 0;
    for (; n < total; n++) {
      if (server.writableLength > cap) overCapSends++;
      assert.equal(toSlow.send(small(n)), true, `send ${n} was accepted (queued ${server.writableLength} bytes)`);
      await new Promise((r) => setImmediate(r));
    }
    assert.ok(overCapSends > 0, 'some sends found the queue over the cap while the reader was reading');
    await waitUntil(() => seen.length === total, 20_000, 'every message at the reader');
    assert.deepEqual(
      seen,
      Array.from({ length: total }, (_, i) => i),
    );
    assert.equal(toSlow.closed, false);
  });
}

test('coalesceWrites: messages sent in one tick reach the socket as one write, in order, also when closed right after', async (t) => {
  const { client, server } = await tcpPair(t);
  const master = new FramedSocket<MinionMessage, MasterMessage>(server, { remoteAddress: 'test', peerFingerprint: 'fp', maxFrame: 1024, schemas: MINION_MESSAGES, coalesceWrites: true });
  const writes: number[] = [];
  // count what reaches the stream's underlying write: one _writev for a corked burst
  const writev = server._writev?.bind(server);
  const write = server._write.bind(server);
  server._writev = (chunks, cb) => {
    writes.push(chunks.length);
    writev?.(chunks, cb);
  };
  server._write = (chunk, encoding, cb) => {
    writes.push(1);
    write(chunk, encoding, cb);
  };
  const bytes: Buffer[] = [];
  client.on('data', (b: Buffer) => bytes.push(b));
  const ended = new Promise((r) => client.once('end', r));
  for (let seq = 0; seq < 100; seq++) master.send({ t: 'pong', seq });
  master.close('shutdown');
  await ended;
  assert.deepEqual(writes, [100]);
  assert.deepEqual(
    decodeAll(Buffer.concat(bytes)).map((m) => (m as { seq: number }).seq),
    Array.from({ length: 100 }, (_, i) => i),
  );
});
