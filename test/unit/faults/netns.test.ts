// The network-namespace helpers, for real: a node TCP server in namespace a, clients in b,
// an iptables DROP that clients see as a connect timeout, and cleanup that leaves nothing.
// Skipped (with a one-line reason) without root, ip or iptables; CI sets BRINE_REQUIRE_PRIVILEGED,
// which turns that skip into a failure.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { privilegedRequired } from '../../helpers/privileged.js';
import { createNetnsPair, execCommand, isAvailable, listNetns, netnsSkip, sweepStale, type NetnsEnd, type NetnsPair } from '../../faults/index.js';

const PORT = 7411;

const SERVER = `
const net = require('node:net');
net.createServer((s) => s.pipe(s)).listen(${PORT}, process.argv[1], () => console.log('listening'));
`;

// prints ok, or the error code (ETIMEDOUT for our own connect timeout)
const CLIENT = `
const net = require('node:net');
const s = net.connect({ host: process.argv[1], port: ${PORT} });
const t = setTimeout(() => { console.log('ETIMEDOUT'); process.exit(0); }, Number(process.argv[2]));
s.on('connect', () => s.write('ping'));
s.on('data', (d) => { console.log(d.toString() === 'ping' ? 'ok' : 'bad:' + d); clearTimeout(t); s.destroy(); });
s.on('error', (e) => { console.log(e.code); clearTimeout(t); });
`;

async function probe(pair: NetnsPair, from: NetnsEnd, to: NetnsEnd, timeoutMs: number): Promise<string> {
  const r = await pair.exec(from, [process.execPath, '-e', CLIENT, to.address, String(timeoutMs)]);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.trim();
}

test('netns pair: connectivity over veth, dropBoth is silent, restore heals, cleanup leaves nothing', { skip: netnsSkip('netns pair') }, async (t) => {
  const pair = await createNetnsPair();
  t.after(() => pair.cleanup());
  const names = [pair.a.name, pair.b.name];
  assert.match(pair.a.name, /^brt-\d+-[0-9a-f]+-a$/);
  assert.ok(names.every((n) => n.startsWith(`brt-${process.pid}-`)));

  // the link's addresses exist only inside the namespaces
  const hostAddrs = spawnSync('ip', ['-o', 'addr'], { encoding: 'utf8' }).stdout;
  assert.ok(!hostAddrs.includes(pair.a.address), 'test addresses must not appear in the host namespace');

  const server = pair.run(pair.a, [process.execPath, '-e', SERVER, pair.a.address]);
  const lines = createInterface({ input: server.stdout! });
  await new Promise<void>((resolve, reject) => {
    lines.once('line', (l) => (l === 'listening' ? resolve() : reject(new Error(`server said ${l}`))));
    server.once('exit', (code) => reject(new Error(`server exited ${code}`)));
  });

  assert.equal(await probe(pair, pair.b, pair.a, 2000), 'ok');

  await pair.dropBoth();
  assert.equal(pair.dropped, pair.a);
  // a kernel DROP never completes the handshake: the client hears nothing (no RST, no EPERM)
  assert.equal(await probe(pair, pair.b, pair.a, 700), 'ETIMEDOUT');
  await assert.rejects(pair.dropBoth(), /already in force/);

  await pair.restore();
  assert.equal(pair.dropped, undefined);
  assert.equal(await probe(pair, pair.b, pair.a, 2000), 'ok');
  const rules = await pair.exec(pair.a, ['iptables', '-w', '-S']);
  assert.ok(!rules.stdout.includes('DROP'), `restore() removed the rules:\n${rules.stdout}`);

  const serverExit = new Promise((r) => server.once('exit', r));
  await pair.cleanup();
  await serverExit;
  const left = await listNetns();
  assert.deepEqual(
    left.filter((n) => names.includes(n)),
    [],
  );
  await pair.cleanup(); // idempotent
  assert.throws(() => pair.run(pair.a, ['true']), /after cleanup/);
});

test('sweepStale removes namespaces of dead runs and keeps those of live ones', { skip: netnsSkip('sweepStale') }, async (t) => {
  // pids above pid_max (at most 2^22) can never be alive
  const stale = `brt-99999999-${process.pid}-a`;
  const mine = await createNetnsPair();
  t.after(async () => {
    await mine.cleanup();
    await execCommand(['ip', 'netns', 'del', stale]);
  });
  const add = await execCommand(['ip', 'netns', 'add', stale]);
  assert.equal(add.code, 0, add.stderr);

  const removed = await sweepStale();
  assert.ok(removed.includes(stale), `removed: ${removed.join(', ')}`);
  const left = await listNetns();
  assert.ok(!left.includes(stale));
  assert.ok(left.includes(mine.a.name) && left.includes(mine.b.name), 'a live run keeps its namespaces');
});

test('isAvailable explains itself, and netnsSkip skips exactly when it is unavailable', () => {
  const a = isAvailable();
  if (a.available) assert.equal(netnsSkip('probe'), false);
  else {
    assert.ok(a.reason.length > 10, a.reason);
    // one line, so the skip shows as `# reason` in the test output
    assert.doesNotMatch(a.reason, /\n/);
    if (!privilegedRequired()) assert.equal(netnsSkip('probe'), `network namespaces unavailable: ${a.reason}`);
  }
});
