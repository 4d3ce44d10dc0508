// The fault proxy against a plain TCP echo server: each fault mode does what the fault suite
// (issue 3) relies on, and in particular idleDrop and blackhole never tell the client anything.

import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { FaultProxy } from '../../faults/index.js';
import { nothingFor, waitUntil } from '../../helpers/wait.js';
import { EchoServer, RecordingClient } from './helpers.js';

async function setup(t: TestContext): Promise<{ echo: EchoServer; proxy: FaultProxy; connect: () => Promise<RecordingClient> }> {
  const echo = await EchoServer.start();
  const proxy = await FaultProxy.start({ target: { host: '127.0.0.1', port: echo.port } });
  const clients: RecordingClient[] = [];
  t.after(async () => {
    for (const c of clients) c.destroy();
    await proxy.close();
    await echo.close();
  });
  const connect = async () => {
    const c = await RecordingClient.connect(proxy.port);
    clients.push(c);
    return c;
  };
  return { echo, proxy, connect };
}

test('forward: bytes pass both ways unchanged, FIN is forwarded and counters add up', async (t) => {
  const { echo, proxy, connect } = await setup(t);
  const c = await connect();
  await c.roundTrip('hello');
  const bytes = Buffer.alloc(1 << 20);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7) & 0xff;
  const big = bytes.toString('latin1');
  await c.roundTrip(big, 5000);
  const [flow] = proxy.flows;
  assert.equal(flow?.state, 'forwarding');
  assert.equal(flow?.bytesUp, 5 + big.length);
  assert.equal(flow?.bytesDown, 5 + big.length);
  assert.equal(flow?.clientPort, c.sock.localPort);

  c.sock.end();
  await waitUntil(() => proxy.stats.flowsClosed === 1, 10_000, 'the flow to close');
  assert.ok(echo.events.includes('end'), 'the server saw the client FIN');
  assert.ok(c.events.includes('end'), "the client saw the server's FIN");
  assert.equal(proxy.flows[0]?.closeReason, 'ended');
  assert.deepEqual({ ...proxy.stats }, { flowsOpened: 1, flowsClosed: 1, flowsOpen: 0, idleDrops: 0, bytesUp: 5 + big.length, bytesDown: 5 + big.length, swallowedUp: 0, swallowedDown: 0 });
});

test('idleDrop: a flow that keeps talking more often than the threshold is never dropped', async (t) => {
  const { proxy, connect } = await setup(t);
  // a threshold well above what a loaded CI host takes for one loopback echo (a 500 ms one timed
  // out under a 1,000-minion benchmark beside the suite), and a pace far inside it
  proxy.idleDrop(1500);
  const c = await connect();
  for (let i = 0; i < 20; i++) {
    await c.roundTrip(`beat-${i};`, 1500);
    // the client's pace, well inside the 1,500 ms threshold: no drop may happen meanwhile
    await nothingFor(100, 'an idle drop of a talking flow', () => proxy.stats.idleDrops > 0 && proxy.flows[0]?.state);
  }
  assert.equal(proxy.flows[0]?.state, 'forwarding');
  assert.equal(proxy.stats.idleDrops, 0);
  assert.deepEqual(c.events, []);
});

test('idleDrop: an idle flow is silently forgotten (no data, no FIN, no RST either way); new flows work', async (t) => {
  const { echo, proxy, connect } = await setup(t);
  proxy.idleDrop(500);
  const c = await connect();
  await c.roundTrip('before;');
  const serverBytes = echo.bytesReceived;
  await waitUntil(() => proxy.flows[0]?.state === 'dropped', 20_000, 'the idle flow to be dropped after 500 ms');
  c.sock.write('after-idle;');
  await nothingFor(1000, 'traffic or a socket event on the dropped flow', () => {
    const seen = c.received !== 'before;' || c.events.length > 0 || echo.bytesReceived !== serverBytes || echo.events.length > 0;
    return seen && { received: c.received, client: c.events, server: echo.events, serverBytes: echo.bytesReceived };
  });
  assert.equal(c.received, 'before;', 'nothing came back after the drop');
  assert.deepEqual(c.events, [], 'the client saw no end, close or error');
  assert.equal(echo.bytesReceived, serverBytes, 'the server received nothing after the drop');
  assert.deepEqual(echo.events, [], 'the server saw no end, close or error');
  assert.equal(proxy.flows[0]?.swallowedUp, 'after-idle;'.length);
  assert.equal(proxy.stats.idleDrops, 1);

  const fresh = await connect();
  await fresh.roundTrip('new flow works');
  proxy.idleDrop(null);
  assert.equal(proxy.flows[0]?.state, 'dropped', 'turning idleDrop off does not revive a dropped flow');
});

test('idleDrop per flow overrides the proxy-wide setting for that flow only', async (t) => {
  const { proxy, connect } = await setup(t);
  const a = await connect();
  const b = await connect();
  await a.roundTrip('a');
  await b.roundTrip('b');
  const [fa, fb] = proxy.flows;
  proxy.flow(fa!.id)?.idleDrop(150);
  await waitUntil(() => proxy.flow(fa!.id)?.state === 'dropped', 20_000, 'flow a to be dropped after 150 ms idle');
  assert.equal(proxy.flow(fb!.id)?.state, 'forwarding');
  await b.roundTrip('still here');
});

test('blackhole: current and new flows go silent; restore() helps new flows only', async (t) => {
  const { echo, proxy, connect } = await setup(t);
  const old = await connect();
  await old.roundTrip('x');
  proxy.blackhole();
  old.sock.write('lost;');
  // a blackholed proxy still completes the TCP handshake (a kernel DROP would not)
  const during = await connect();
  during.sock.write('also lost;');
  await nothingFor(300, 'traffic through the blackhole', () => {
    const seen = old.received !== 'x' || during.received !== '' || echo.connections !== 1 || echo.bytesReceived !== 1;
    return seen && { old: old.received, during: during.received, connections: echo.connections, serverBytes: echo.bytesReceived };
  });
  assert.equal(old.received, 'x');
  assert.equal(during.received, '');
  assert.equal(echo.connections, 1, 'no upstream connection was made for the new flow');
  assert.equal(echo.bytesReceived, 1);
  assert.deepEqual([...old.events, ...during.events], []);
  assert.deepEqual(
    proxy.flows.map((f) => f.state),
    ['blackholed', 'blackholed'],
  );

  proxy.restore();
  const after = await connect();
  await after.roundTrip('back');
  old.sock.write('still lost;');
  await nothingFor(200, 'an answer on the flow blackholed before restore()', () => old.received !== 'x' && old.received);
  assert.equal(old.received, 'x', 'a flow blackholed before restore() stays dead');
  assert.equal(echo.connections, 2);
});

test('resetAll: the client gets ECONNRESET and the server sees the reset too', async (t) => {
  const { echo, proxy, connect } = await setup(t);
  const c = await connect();
  await c.roundTrip('x');
  proxy.resetAll();
  await waitUntil(() => c.events.includes('close'), 10_000, 'the client socket to close');
  assert.deepEqual(c.events, ['error:ECONNRESET', 'close']);
  await waitUntil(() => echo.events.includes('close'), 10_000, 'the server socket to close');
  assert.ok(echo.events.includes('error:ECONNRESET'), `server events: ${echo.events.join(',')}`);
  assert.ok(!echo.events.includes('end'), 'a reset is not a FIN');
  await waitUntil(() => proxy.stats.flowsClosed === 1, 10_000, 'the flow to close');
  assert.equal(proxy.flows[0]?.closeReason, 'reset');
});

test('per-flow reset and blackhole leave the other flows alone', async (t) => {
  const { proxy, connect } = await setup(t);
  const [a, b, c] = [await connect(), await connect(), await connect()];
  await Promise.all([a.roundTrip('a'), b.roundTrip('b'), c.roundTrip('c')]);
  const ids = proxy.flows.map((f) => f.id);
  proxy.flow(ids[0]!)?.reset();
  proxy.flow(ids[1]!)?.blackhole();
  await waitUntil(() => a.events.includes('close'), 10_000, 'flow a to be reset');
  assert.ok(a.events.includes('error:ECONNRESET'));
  b.sock.write('gone');
  await c.roundTrip('c is fine');
  await nothingFor(100, 'traffic or an event on the blackholed flow b', () => (b.received !== 'b' || b.events.length > 0) && { received: b.received, events: b.events });
  assert.equal(b.received, 'b');
  assert.deepEqual(b.events, []);
});

test('stallNew: new connections are accepted but never reach the target; existing flows keep working', async (t) => {
  const { echo, proxy, connect } = await setup(t);
  const old = await connect();
  await old.roundTrip('1');
  proxy.stallNew();
  const stalled = await connect();
  stalled.sock.write('\x16\x03\x01 a ClientHello that nobody answers');
  await nothingFor(300, 'the stalled connection reaching the target or being answered', () => {
    const seen = stalled.received !== '' || stalled.events.length > 0 || echo.connections !== 1;
    return seen && { received: stalled.received, events: stalled.events, connections: echo.connections };
  });
  assert.equal(stalled.received, '');
  assert.deepEqual(stalled.events, []);
  assert.equal(echo.connections, 1);
  assert.equal(proxy.flows[1]?.state, 'stalled');
  await old.roundTrip('2');
  proxy.restore();
  await (await connect()).roundTrip('3');
  assert.equal(echo.connections, 2);
});

test('retarget: new flows go to the new target, existing ones stay where they were', async (t) => {
  const { echo, proxy, connect } = await setup(t);
  const other = await EchoServer.start();
  t.after(() => other.close());
  const first = await connect();
  await first.roundTrip('first');
  proxy.retarget('127.0.0.1', other.port);
  const second = await connect();
  await second.roundTrip('second');
  await first.roundTrip('first again');
  assert.equal(echo.connections, 1);
  assert.equal(other.connections, 1);
  assert.equal(echo.bytesReceived, 'first'.length + 'first again'.length);
  assert.equal(other.bytesReceived, 'second'.length);
  assert.deepEqual(
    proxy.flows.map((f) => f.target.port),
    [echo.port, other.port],
  );
});

test('an unreachable target resets the client instead of leaving it hanging', async (t) => {
  const { proxy, connect } = await setup(t);
  const dead = net.createServer();
  await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
  const deadPort = (dead.address() as net.AddressInfo).port;
  await new Promise<void>((r) => dead.close(() => r()));
  proxy.retarget('127.0.0.1', deadPort);
  const c = await connect();
  await waitUntil(() => c.events.includes('close'), 10_000, 'the client to be reset');
  assert.ok(c.events.includes('error:ECONNRESET'), c.events.join(','));
  await waitUntil(() => proxy.flows[0]?.state === 'closed', 10_000, 'the flow to close');
  assert.equal(proxy.flows[0]?.closeReason, 'upstream-refused');
});

test('backpressure: a target that stops reading makes the proxy stop reading, holding well under a few MiB', async (t) => {
  const { echo, proxy, connect } = await setup(t);
  echo.echo = false;
  echo.pause();
  const c = await connect();
  const total = 32 << 20;
  c.sock.write(Buffer.alloc(total, 1));
  await waitUntil(() => (proxy.flows[0]?.bytesUp ?? 0) > 0, 10_000, 'the first bytes to reach the proxy');
  // on loopback an unbounded proxy would read all 32 MiB well within this time
  await nothingFor(500, 'the proxy reading past the stalled target', () => {
    const f = proxy.flows[0]!;
    return (f.bufferedBytes >= 4 << 20 || f.bytesUp >= total) && { buffered: f.bufferedBytes, bytesUp: f.bytesUp };
  });
  const flow = proxy.flows[0]!;
  assert.ok(flow.bufferedBytes < 4 << 20, `proxy holds ${flow.bufferedBytes} bytes for one flow`);
  assert.ok(flow.bytesUp < total, 'the proxy did not slurp everything the client wrote');
  assert.ok(c.sock.writableLength > 0, "the client's own writes are held back");
  echo.resume();
  await waitUntil(() => echo.bytesReceived === total, 20_000, 'all bytes to arrive once the target reads again');
  assert.equal(proxy.flows[0]?.bytesUp, total);
});

test('waitForFlows resolves on the nth flow and rejects with a useful message on timeout', async (t) => {
  const { proxy, connect } = await setup(t);
  const waiting = proxy.waitForFlows(2, { forwarding: true, timeoutMs: 2000 });
  await connect();
  await connect();
  const flows = await waiting;
  assert.equal(flows.filter((f) => f.state === 'forwarding').length, 2);
  await assert.rejects(proxy.waitForFlows(3, { timeoutMs: 100 }), /2 of 3 flows after 100 ms/);
});

test('close() destroys every flow and the listener, is idempotent, and refuses further faults', async (t) => {
  const { echo, proxy, connect } = await setup(t);
  const port = proxy.port;
  const live = await connect();
  await live.roundTrip('x');
  proxy.blackhole();
  const dead = await connect();
  await Promise.all([proxy.close(), proxy.close()]);
  await waitUntil(() => live.events.includes('close') && dead.events.includes('close'), 10_000, 'client sockets to close');
  await waitUntil(() => echo.sockets.size === 0, 10_000, 'the upstream socket to close');
  assert.equal(proxy.stats.flowsOpen, 0);
  await assert.rejects(RecordingClient.connect(port), /ECONNREFUSED/);
  assert.throws(() => proxy.restore(), /after close/);
  await proxy.close();
});
