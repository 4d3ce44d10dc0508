// Issue 8 point 2 (threats.md #24, #25) and the summary logging of point 4: unauthenticated peers
// are bounded. A flood of idle TCP connections against a master with a 300-descriptor limit
// leaves the control socket and an accepted minion working; a peer flooding hellos from its own
// address cannot spend the master's auth_rate; the refusals are logged in summary per address.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BRINE_BIN, Cluster, Proc, waitUntil } from '../helpers/cluster.js';
import { RawClient, frame, makeClientIdentity } from '../helpers/raw-client.js';
import { lastStats } from '../faults/emulator-stats.js';
import type { Identity } from '../../src/pki/index.js';

const FD_LIMIT = 300;

/** Starts the cluster's master under `ulimit -n limit` (the shell execs node, so the pid is the master's). */
async function startLimitedMaster(cluster: Cluster, limit: number, extra: Record<string, unknown>): Promise<Proc> {
  cluster.writeMasterConfig(extra);
  const child = spawn('sh', ['-c', `ulimit -n ${limit} && exec "$0" "$@"`, process.execPath, BRINE_BIN, 'master', '-c', cluster.masterConfigDir], {
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const p = new Proc('master', child);
  cluster.procs.push(p);
  await p.waitForOutput(/brine master listening/);
  return p;
}

/** Master log lines that mention `address` (as a source or in a remote address). */
const linesNaming = (master: Proc, address: string) => master.output.split('\n').filter((l) => l.includes(address));

describe('unauthenticated peers are bounded (threats.md #24, #25)', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  after(async () => {
    for (const fn of cleanups.reverse()) await fn();
  });

  it(`400 idle TCP connections under a ${FD_LIMIT}-descriptor limit: brine run works and the minion stays connected`, async () => {
    const cluster = await Cluster.create();
    cleanups.push(() => cluster.cleanup());
    // the connection caps are off, so the descriptor reserve alone must protect the master
    const master = await startLimitedMaster(cluster, FD_LIMIT, { auto_accept: true, preauth_max_connections: 0, preauth_max_connections_per_source: 0, handshake_timeout: 30 });
    const minion = cluster.startMinion('good');
    await minion.waitForOutput(/ready to receive requests/);

    const flood: RawClient[] = [];
    cleanups.push(() => {
      for (const c of flood) c.destroy();
    });
    for (let i = 0; i < 400; i++) {
      try {
        flood.push(await RawClient.connect({ port: cluster.port, timeoutMs: 2000 }));
      } catch {
        // a reset during connect is one of the outcomes we are after
      }
    }
    const r = await cluster.brine(['run', '*', 'test.ping', '-t', '10']);
    assert.equal(r.code, 0, `${r.stdout}${r.stderr}\n--- master ---\n${master.output.slice(-3000)}`);
    assert.equal(r.stdout, 'good:\n    True\n');
    const keys = await cluster.brine(['key', '-L']);
    assert.equal(keys.code, 0, keys.stdout + keys.stderr);
    assert.ok(master.running, 'the master exited');
    assert.doesNotMatch(master.output, /minion good disconnected/);
    await master.waitForOutput(/fewer than 100 of 300 file descriptors would remain free.*code=CONNECTION_LIMIT/);
    await master.waitForOutput(/refused \d+ more connection attempts from 127\.0\.0\.1 before authentication/);

    // the refusals are in the log in summary: far fewer lines than refused connections, naming the source
    const refused = flood.filter((c) => c.isClosed).length + (400 - flood.length);
    assert.ok(refused >= 100, `only ${refused} of 400 connections were refused`);
    const lines = linesNaming(master, '127.0.0.1').filter((l) => /CONNECTION_LIMIT|refused \d+ more/.test(l));
    assert.ok(lines.length <= 30, `${lines.length} log lines for ${refused} refusals:\n${lines.join('\n')}`);
  });

  it('preauth_max_connections_per_source caps idle connections from one address; authenticated ones no longer count', async () => {
    const cluster = await Cluster.create();
    cleanups.push(() => cluster.cleanup());
    const master = await cluster.startMaster({ auto_accept: true, preauth_max_connections_per_source: 2, handshake_timeout: 30 });
    const keyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-cap-'));
    cleanups.push(() => fs.rmSync(keyDir, { recursive: true, force: true }));
    const open: RawClient[] = [];
    cleanups.push(() => {
      for (const c of open) c.destroy();
    });
    // three minions sign in one after the other from 127.0.0.1 and stay connected
    for (let i = 0; i < 3; i++) {
      const c = await RawClient.connect({ port: cluster.port, identity: await makeClientIdentity(path.join(keyDir, String(i))) });
      open.push(c);
      c.send({ t: 'hello', versions: [1], id: `capped-${i}`, agent: 'raw-client' });
      assert.equal((await c.nextFrame(5000))?.status, 'accepted', `capped-${i}`);
    }
    // two idle connections fill the cap for 127.0.0.1; a third is reset, one from 127.0.0.3 is not
    for (let i = 0; i < 2; i++) open.push(await RawClient.connect({ port: cluster.port }));
    // the reset can come before the client's TLS handshake finishes (connect fails) or after it
    const third = await RawClient.connect({ port: cluster.port }).catch((err: NodeJS.ErrnoException) => err);
    if (third instanceof Error) assert.match(String(third.code), /^(ECONNRESET|EPIPE)$/, third.message);
    else {
      open.push(third);
      assert.ok(await third.closedWithin(3000), 'a third idle connection from 127.0.0.1 is still open');
    }
    await master.waitForOutput(/refused a connection from 127\.0\.0\.1:\d+ before TLS: 2 unauthenticated connections from this address are already open/);
    const other = await RawClient.connect({ port: cluster.port, localAddress: '127.0.0.3' });
    open.push(other);
    assert.equal(await other.closedWithin(500), false, 'another address is refused too');
    assert.ok(
      open.slice(0, 3).every((c) => !c.isClosed),
      'an authenticated connection was closed',
    );
  });

  it('one peer flooding hellos from 127.0.0.2 cannot spend auth_rate: 20 minions from 127.0.0.1 all sign in', async () => {
    const cluster = await Cluster.create();
    cleanups.push(() => cluster.cleanup());
    const master = await cluster.startMaster({ auto_accept: true, auth_rate: 50, auth_rate_per_source: 25 });
    const keyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-flood-'));
    cleanups.push(() => fs.rmSync(keyDir, { recursive: true, force: true }));
    const identities: Identity[] = [];
    for (let i = 0; i < 8; i++) identities.push(await makeClientIdentity(path.join(keyDir, String(i))));

    // the flooder: valid hellos with random keys and IDs, hellos with an invalid ID, and hellos that break the schema
    let stop = false;
    let attempts = 0;
    let turnedAway = 0;
    const hellos = [
      (n: number) => frame({ t: 'hello', versions: [1], id: `flood-${n}`, agent: 'flood' }),
      () => frame({ t: 'hello', versions: [1], id: '../x', agent: 'flood' }),
      () => frame({ t: 'hello', versions: '1', id: 5, agent: null }),
    ];
    const loop = async (worker: number) => {
      for (let n = worker; !stop; n += 100) {
        let c: RawClient | undefined;
        try {
          c = await RawClient.connect({ port: cluster.port, identity: identities[n % identities.length]!, localAddress: '127.0.0.2', timeoutMs: 3000 });
          c.write(hellos[n % hellos.length]!(n));
          attempts++;
          const answer = await c.nextFrame(3000);
          if (answer?.status === 'busy') turnedAway++;
        } catch {
          // refused or reset: the flooder just tries again
        } finally {
          c?.destroy();
        }
      }
    };
    const flooders = Array.from({ length: 16 }, (_, i) => loop(i));
    cleanups.push(async () => {
      stop = true;
      await Promise.all(flooders);
    });
    // the flood is in full swing: the master turns the flooder away already
    await waitUntil(() => turnedAway >= 100, 30_000, 'the flooder to be told busy 100 times');
    const attemptsBefore = attempts;

    const emu = cluster.spawnBrine('emulator', [
      'emulate',
      '--master',
      `127.0.0.1:${cluster.port}`,
      '--count',
      '20',
      '--prefix',
      'real-',
      '--pki-dir',
      path.join(cluster.root, 'emu-pki'),
      '--recon-default',
      '100',
      '--recon-max',
      '1000',
      '--auth-timeout',
      '5',
      '--stats-interval',
      '0.2',
    ]);
    // the flood goes on all the while; a minion turned away as busy would wait out retryAfter
    await waitUntil(() => lastStats(emu)?.ready === 20, 10_000, `20 emulated minions ready under the flood\n${emu.output.slice(-1500)}\n--- master ---\n${master.output.slice(-3000)}`);
    assert.ok(attempts - attemptsBefore >= 10, `the flood kept going (${attempts - attemptsBefore} hellos while the minions signed in)`);
    stop = true;
    await Promise.all(flooders);
    // each emulated minion logs a refusal kind once (warning): not one of them was told busy
    assert.doesNotMatch(emu.output, /auth_busy/, emu.output.slice(-1500));

    const minionsTurnedAway = linesNaming(master, '127.0.0.1').filter((l) => /turned away a sign-in|code=AUTH_BUSY|"AUTH_BUSY"/.test(l));
    assert.deepEqual(minionsTurnedAway, [], 'no sign-in from 127.0.0.1 was turned away');
    // summary logging: the flooder's refusals (busy, malformed hellos) take far fewer lines than
    // there were refusals, and the summary names the address with its counts
    const refusalLines = linesNaming(master, '127.0.0.2').filter((l) => /turned away a sign-in|before authentication|refused \d+ more/.test(l));
    assert.ok(turnedAway >= 100 && refusalLines.length <= 30, `${refusalLines.length} log lines for ${turnedAway} busy answers to 127.0.0.2 (${attempts} hellos)`);
    assert.ok(
      refusalLines.some((l) => /refused \d+ more connection attempts from 127\.0\.0\.2 .*busy \d+/.test(l)),
      refusalLines.slice(-5).join('\n'),
    );
    // and so do the sign-ins it got through with (invalid IDs, unknown keys, the pending cap):
    // every line naming the flooder stays within the per-address budget, apart from the
    // connect/disconnect lines of its hellos that were accepted (auto_accept is on here)
    const allLines = linesNaming(master, '127.0.0.2').filter((l) => !/minion flood-\d+ (connected|disconnected)/.test(l));
    assert.ok(allLines.length <= 40, `${allLines.length} log lines name 127.0.0.2 for ${attempts} hellos:\n${allLines.slice(0, 60).join('\n')}`);
  });
  it('refused sign-ins from one address (invalid IDs, a key squatting IDs) are logged in summary, not once per attempt', async () => {
    const cluster = await Cluster.create();
    cleanups.push(() => cluster.cleanup());
    // no busy answers here: every hello reaches the decision and is refused there
    const master = await cluster.startMaster({ auth_rate: 10_000, auth_rate_per_source: 10_000, max_ids_per_key: 4 });
    const keyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-refusals-'));
    cleanups.push(() => fs.rmSync(keyDir, { recursive: true, force: true }));
    const squatter = await makeClientIdentity(keyDir);
    const N = 150;
    let answered = 0;
    for (let n = 0; n < N; n++) {
      const c = await RawClient.connect({ port: cluster.port, identity: squatter, localAddress: '127.0.0.3', timeoutMs: 3000 });
      try {
        c.send({ t: 'hello', versions: [1], id: n % 2 === 0 ? '../x' : `squat-${n}`, agent: 'squatter' });
        const answer = await c.nextFrame(3000);
        if (answer?.t === 'auth' && answer.status !== 'accepted') answered++;
      } finally {
        c.destroy();
      }
    }
    assert.equal(answered, N, 'every hello was refused by the decision');
    const summary = await waitUntil(
      () => linesNaming(master, '127.0.0.3').find((l) => /refused 100 more connection attempts from 127\.0\.0\.3/.test(l)),
      5000,
      `a summary line\n${master.output.slice(-3000)}`,
    );
    assert.match(summary, /invalid_id \d+/);
    const lines = linesNaming(master, '127.0.0.3');
    assert.ok(lines.length <= 30, `${lines.length} log lines for ${N} refused sign-ins from 127.0.0.3:\n${lines.slice(0, 40).join('\n')}`);
    // the key store is bounded as well: the squatting key holds at most max_ids_per_key IDs
    const pending = (await cluster.brine(['key', '-l', 'un'])).stdout.split('\n').filter((l) => l.startsWith('squat-'));
    assert.ok(pending.length <= 4, pending.join(','));
  });
});
