// Fault suite, kernel blackhole (issue 3): master in network namespace A, minion in B, and an
// iptables DROP both ways in A. Heartbeats detect the silence within heartbeat_timeout, the
// minion reconnects once the path is back, and the return of a job that finished during the
// blackhole is delivered exactly once. Also proves, on the daemons' real sockets, that the
// configured tcp_keepalive_* and TCP_USER_TIMEOUT are in force and end a dead connection
// when heartbeats are too slow to.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BRINE_BIN, Cluster, Proc, waitUntil } from '../helpers/cluster.js';
import { EventStream } from '../helpers/events.js';
import { createNetnsPair, netnsSkip, sweepStale, type NetnsEnd, type NetnsPair } from './index.js';
import { parseSs, readPeerSocketOptions, type PeerSocketOptions } from './socket-inspect.js';
import { logTime } from '../helpers/log-lines.js';
import { nothingFor } from '../helpers/wait.js';

const KEEPALIVE = { tcp_keepalive: true, tcp_keepalive_idle: 7, tcp_keepalive_intvl: 3, tcp_keepalive_cnt: 2 };
const FAST = { heartbeat_interval: 0.5, heartbeat_timeout: 1.5 };
const MINION = { recon_default: 100, recon_max: 1000, auth_timeout: 2 };

interface Info {
  id: string;
  state: string;
  lastDisconnectReason?: string;
}

/** A master in `a` and a minion in `b`, with their configs in a temp root on the shared filesystem. */
class NsCluster {
  master!: Proc;
  minion!: Proc;
  private constructor(
    readonly cluster: Cluster,
    readonly pair: NetnsPair,
  ) {}

  static async start(pair: NetnsPair, masterExtra: Record<string, unknown>, minionExtra: Record<string, unknown>): Promise<NsCluster> {
    const c = new NsCluster(await Cluster.create(), pair);
    c.cluster.writeMasterConfig({ interface: pair.a.address, auto_accept: true, ...masterExtra });
    c.master = c.spawn(pair.a, 'master', ['master', '-c', c.cluster.masterConfigDir]);
    await c.master.waitForOutput(/brine master listening/);
    c.cluster.writeMinionConfig('nsmin', { master: pair.a.address, ...MINION, ...minionExtra });
    c.minion = c.spawn(pair.b, 'minion nsmin', ['minion', '-c', c.cluster.minionConfigDir('nsmin')]);
    await c.minion.waitForOutput(/ready to receive requests/);
    return c;
  }

  private spawn(ns: NetnsEnd, name: string, args: string[]): Proc {
    return new Proc(name, this.pair.run(ns, [process.execPath, BRINE_BIN, ...args], { env: { ...process.env, NO_COLOR: '1' } }));
  }

  /** The CLI runs on the host: the control socket is a file, which namespaces do not hide. */
  async status(): Promise<Info> {
    const r = await this.cluster.brine(['minions', 'status', '--out', 'sessions']);
    assert.equal(r.code, 0, r.stderr);
    const info = (JSON.parse(r.stdout) as Info[]).find((i) => i.id === 'nsmin');
    assert.ok(info, r.stdout);
    return info;
  }

  /** The established master<->minion socket as seen from `ns`, with its owner (the daemon). */
  async socket(ns: NetnsEnd, side: 'sport' | 'dport'): Promise<{ pid: number; fd: number; timer: string | undefined }> {
    const r = await this.pair.exec(ns, ['ss', '-tnpo', 'state', 'established', `( ${side} = :${this.cluster.port} )`]);
    assert.equal(r.code, 0, r.stderr);
    const socks = parseSs(r.stdout);
    assert.equal(socks.length, 1, `one established brine connection in ${ns.name}:\n${r.stdout}`);
    const owner = socks[0]!.owners[0];
    assert.ok(owner, r.stdout);
    return { ...owner, timer: socks[0]!.timer?.name };
  }

  async socketOptions(ns: NetnsEnd, side: 'sport' | 'dport', daemon: Proc): Promise<PeerSocketOptions> {
    const s = await this.socket(ns, side);
    assert.equal(s.pid, daemon.child.pid, 'the socket belongs to the daemon itself');
    return readPeerSocketOptions(s.pid, s.fd);
  }

  /** ss shows the kernel's keepalive timer armed (between writes; while data is unacknowledged it shows the retransmit timer). */
  async waitForKeepaliveTimer(ns: NetnsEnd, side: 'sport' | 'dport'): Promise<void> {
    await waitUntil(async () => (await this.socket(ns, side)).timer === 'keepalive', 5000, `ss in ${ns.name} to show timer:(keepalive,...)`);
  }

  async cleanup(): Promise<void> {
    await this.pair.cleanup();
    await this.cluster.cleanup();
  }
}

function lostLines(p: Proc): string[] {
  return p.output.split('\n').filter((l) => /Connection to master \S+ lost/.test(l));
}

describe('kernel blackhole between namespaces', { skip: netnsSkip('kernel blackhole between namespaces') }, () => {
  const started: NsCluster[] = [];
  before(async () => {
    await sweepStale();
  });
  after(async () => {
    for (const c of started) await c.cleanup().catch(() => undefined);
  });

  it('detects a blackhole within heartbeat_timeout, reconnects after it, and delivers the queued return once', async (t) => {
    const pair = await createNetnsPair();
    t.after(() => pair.cleanup());
    const c = await NsCluster.start(pair, { ...FAST, ...KEEPALIVE }, { ...FAST, ...KEEPALIVE });
    started.push(c);

    // the configured kernel options are in force on both daemons' real sockets
    for (const [ns, side, daemon] of [
      [pair.a, 'sport', c.master],
      [pair.b, 'dport', c.minion],
    ] as const) {
      const o = await c.socketOptions(ns, side, daemon);
      assert.deepEqual(o, { keepalive: true, idleSeconds: 7, intervalSeconds: 3, count: 2, userTimeoutMs: 1500 }, `${daemon.name}'s socket (TCP_USER_TIMEOUT defaults to heartbeat_timeout)`);
      await c.waitForKeepaliveTimer(ns, side);
    }

    const events = await EventStream.open(c.cluster, ['job_return'], 'nsmin', { timeoutSeconds: 60 });
    const run = c.cluster.spawnBrine('run', ['run', '-v', '-t', '30', 'nsmin', 'test.sleep', '3', '-c', c.cluster.masterConfigDir]);
    const jid = (await run.waitForOutput(/Executing job with jid (\d+)/))[1]!;
    // the job runs on the minion before the path goes dark; its return cannot have left yet
    await waitUntil(async () => (await c.cluster.brine(['jobs', 'active', '--out', 'json'])).stdout.includes(jid), 5000, `job ${jid} to run on nsmin`);

    const dropAt = Date.now();
    await pair.dropBoth(pair.a);
    const masterLine = (await c.master.waitForOutput(/^.*minion nsmin disconnected \((\w+)\).*$/m, 15_000))[0];
    const minionLine = (await c.minion.waitForOutput(/^.*Connection to master \S+ lost \((\w+)\).*$/m, 15_000))[0];
    for (const [who, line] of [
      ['master', masterLine],
      ['minion', minionLine],
    ] as const) {
      const ms = logTime(line) - dropAt;
      t.diagnostic(`${who} detected the blackhole after ${ms} ms`);
      assert.match(line, /\(heartbeat_timeout\)/, `${who} must name heartbeat_timeout`);
      // heartbeat_timeout (1.5 s) plus slack for a loaded machine; kernel keepalive alone would take far longer
      assert.ok(ms < 1500 + 2500, `${who} detected after ${ms} ms`);
    }
    const down = await c.status();
    assert.deepEqual([down.state, down.lastDisconnectReason], ['disconnected', 'heartbeat_timeout']);

    // keep the path dark until the job has finished, so its return has to wait in the queue
    const minionRoot = path.join(c.cluster.root, 'minions', 'nsmin');
    const queued = new RegExp(`(^|/)returns/${jid}\\.json$`);
    await waitUntil(
      () => fs.readdirSync(minionRoot, { recursive: true }).some((f) => queued.test(String(f))),
      30_000,
      `the return of ${jid} queued under ${minionRoot} (the 3 s job finished while dark)`,
    );
    // and dark for at least 4.5 s (three heartbeat_timeouts): the loss is still logged only once
    await nothingFor(Math.max(0, dropAt + 4500 - Date.now()), 'a second loss logged while the path stays dark', () => lostLines(c.minion).length > 1 && c.minion.output);
    const restoreAt = Date.now();
    await pair.restore();

    await waitUntil(() => (c.minion.output.match(/ready to receive requests/g) ?? []).length >= 2, 15_000, `the minion to reconnect\n${c.minion.output}`);
    await waitUntil(async () => (await c.status()).state === 'connected', 10_000, 'the master to show the minion connected again');
    assert.equal(await run.exited, 0, run.output);
    assert.match(run.output, /nsmin:\n\s+True/);

    const shown = await c.cluster.brine(['jobs', 'show', jid, '--out', 'json']);
    assert.equal(shown.code, 0, shown.stderr);
    assert.deepEqual(JSON.parse(shown.stdout), { nsmin: true });

    await events.close();
    const returns = events.lines(`salt/job/${jid}/ret/`);
    assert.equal(returns.length, 1, `exactly one job_return event for ${jid}:\n${events.proc.output}`);
    // Salt's _stamp: UTC, microseconds (brine's clock has milliseconds)
    const at = Date.parse(`${String(returns[0]!.data._stamp).slice(0, 23)}Z`);
    assert.ok(at >= restoreAt, `the return arrived after the path came back (it waited in the queue): ${returns[0]!.data._stamp} vs ${new Date(restoreAt).toISOString()}`);
    assert.equal((c.master.output.match(new RegExp(`Got return from nsmin for job ${jid}`, 'g')) ?? []).length, 1);
    assert.equal(lostLines(c.minion).length, 1, 'one detected loss, logged once');
    assert.ok(c.master.running && c.minion.running);
  });

  it('TCP_USER_TIMEOUT and keepalive end a dead connection when heartbeats are too slow to', async (t) => {
    const pair = await createNetnsPair();
    t.after(() => pair.cleanup());
    // heartbeats effectively off: only the kernel can notice the dead path
    const slow = { heartbeat_interval: 1000, heartbeat_timeout: 2000, tcp_user_timeout: 3000, ...KEEPALIVE };
    const c = await NsCluster.start(pair, slow, slow);
    started.push(c);
    const m = await c.socketOptions(pair.a, 'sport', c.master);
    assert.equal(m.userTimeoutMs, 3000);
    assert.equal(m.idleSeconds, 7);

    await pair.dropBoth(pair.a);
    const dropAt = Date.now();
    // the master writes a job into the dead path: unacknowledged data, bounded by TCP_USER_TIMEOUT
    const ping = await c.cluster.brine(['run', '-t', '1', 'nsmin', 'test.ping']);
    assert.notEqual(ping.code, 0, 'no answer through a blackhole');
    await c.master.waitForOutput(/minion nsmin disconnected/, 15_000);
    const masterMs = Date.now() - dropAt;
    t.diagnostic(`master dropped the dead connection after ${masterMs} ms`);
    assert.match(c.master.output, /minion nsmin disconnected \(\w+\).*ETIMEDOUT/);
    assert.ok(masterMs >= 2500 && masterMs < 12_000, `TCP_USER_TIMEOUT is 3 s; the master noticed after ${masterMs} ms`);

    // the idle minion learns it from keepalive: 7 s idle, then a probe that goes unanswered
    // past TCP_USER_TIMEOUT; the OS default would be hours
    await c.minion.waitForOutput(/Connection to master \S+ lost/, 25_000);
    const minionMs = Date.now() - dropAt;
    t.diagnostic(`minion dropped the dead connection after ${minionMs} ms`);
    assert.match(lostLines(c.minion)[0]!, /ETIMEDOUT/);
    assert.ok(minionMs < 20_000, `keepalive (idle 7 s, interval 3 s) noticed after ${minionMs} ms`);
    await pair.restore();
    await waitUntil(() => (c.minion.output.match(/ready to receive requests/g) ?? []).length >= 2, 15_000, `the minion to reconnect\n${c.minion.output}`);
  });
});
