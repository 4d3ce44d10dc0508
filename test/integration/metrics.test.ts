// Prometheus metrics (issue 11 item 4) with a real master and real minions over loopback TLS:
// /metrics on metrics_port is scraped over HTTP and must show the fleet, jobs and returns with
// their latency, heartbeat RTTs, a rejected sign-in, a disconnect by reason, returns queued on a
// minion (reported in its heartbeat), and no minion ID, jid or address in any label.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { Cluster, freePort, runCli, waitUntil, type Proc } from '../helpers/cluster.js';
import { RawClient, makeClientIdentity } from '../helpers/raw-client.js';
import { CLOSE_REASONS } from '../../src/protocol/index.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the text exposition format (our label values never contain quotes or commas). */
function parse(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(m, `unparsable line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (m[2] ?? '').split(',').filter(Boolean)) {
      const [k, v] = pair.split('=') as [string, string];
      labels[k] = JSON.parse(v) as string;
    }
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const hit = samples.find((s) => s.name === name && Object.keys(labels).length === Object.keys(s.labels).length && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return hit?.value;
}

/** Label names a brine_ metric may carry, and the values each may take: nothing from the fleet. */
const ALLOWED_LABELS: Record<string, RegExp> = {
  result: /^(accepted|pending|rejected|denied|invalid_id|busy)$/,
  reason: new RegExp(`^(${[...CLOSE_REASONS, 'other'].join('|')})$`),
  state: /^(connected|disconnected|never_connected|pending|rejected|denied|accepted)$/,
  success: /^(true|false)$/,
  status: /^\d{3}$/,
  le: /^(\d+(\.\d+)?(e[-+]?\d+)?|\+Inf)$/,
};

describe('metrics: /metrics on metrics_port with a real master and minions', () => {
  let cluster: Cluster;
  let metricsPort: number;
  const minions = new Map<string, Proc>();

  const scrape = async (): Promise<Sample[]> => {
    const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    assert.equal(res.status, 200);
    return parse(await res.text());
  };
  /** Scrapes until `fn` returns a value, so tests wait on the metric itself, not on time. */
  const scrapeUntil = <T>(fn: (s: Sample[]) => T | undefined | false, what: string, timeoutMs = 15_000): Promise<T> => waitUntil(async () => fn(await scrape()), timeoutMs, what);

  before(async () => {
    cluster = await Cluster.create();
    metricsPort = await freePort();
    const reject = path.join(cluster.root, 'master', 'autoreject.conf');
    fs.mkdirSync(path.dirname(reject), { recursive: true });
    fs.writeFileSync(reject, 'evil*\n', { mode: 0o644 });
    fs.chmodSync(reject, 0o644);
    const master = await cluster.startMaster({ auto_accept: true, metrics_port: metricsPort, autoreject_file: '/autoreject.conf' });
    assert.match(master.output, new RegExp(`serving Prometheus metrics on http://127\\.0\\.0\\.1:${metricsPort}/metrics`));
    // short heartbeats, so RTTs (measured from the second ping on) arrive within the test
    for (const id of ['m1', 'm2']) minions.set(id, cluster.startMinion(id, { heartbeat_interval: 0.3 }));
    for (const p of minions.values()) await p.waitForOutput(/ready to receive requests/);
  });
  after(() => cluster.cleanup());

  it('serves the text format with the registry content type; two minions connected, two accepted sign-ins', async () => {
    const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    assert.equal((await fetch(`http://127.0.0.1:${metricsPort}/`)).status, 404);
    const s = await scrapeUntil((x) => value(x, 'brine_minions', { state: 'connected' }) === 2 && x, 'two connected minions');
    assert.equal(value(s, 'brine_minions', { state: 'disconnected' }), 0);
    assert.equal(value(s, 'brine_keys', { state: 'accepted' }), 2);
    assert.equal(value(s, 'brine_sign_ins_total', { result: 'accepted' }), 2);
    assert.equal(value(s, 'brine_minions_flapping'), 0);
    assert.equal(value(s, 'brine_admission_queue'), 0);
    // prom-client's process metrics, in this master's own registry
    assert.ok((value(s, 'nodejs_eventloop_lag_seconds') ?? -1) >= 0);
  });

  it('counts a published job, its returns and the publish-to-return latency', async () => {
    const r = await cluster.brine(['run', '*', 'test.ping', '--out', 'json', '-t', '20'], { timeoutMs: 40_000 });
    assert.equal(r.code, 0, r.stderr);
    const s = await scrapeUntil((x) => value(x, 'brine_job_returns_total', { success: 'true' }) === 2 && x, 'two returns');
    assert.equal(value(s, 'brine_jobs_published_total'), 1);
    assert.equal(value(s, 'brine_job_minions_targeted_total'), 2);
    assert.equal(value(s, 'brine_job_return_latency_seconds_count'), 2);
    const sum = value(s, 'brine_job_return_latency_seconds_sum') ?? -1;
    assert.ok(sum > 0 && sum < 20, `latency sum ${sum} s`);
    assert.equal(value(s, 'brine_job_return_latency_seconds_bucket', { le: '+Inf' }), 2);
  });

  it('observes the heartbeat RTTs the minions report', async () => {
    const s = await scrapeUntil((x) => (value(x, 'brine_heartbeat_rtt_seconds_count') ?? 0) > 0 && x, 'an RTT observation');
    const sum = value(s, 'brine_heartbeat_rtt_seconds_sum') ?? -1;
    // loopback: well under a second each
    assert.ok(sum >= 0 && sum < (value(s, 'brine_heartbeat_rtt_seconds_count') ?? 0), `rtt sum ${sum}`);
  });

  it('reports returns queued on a minion from its heartbeat, and forgets them when it leaves', async () => {
    const identity = await makeClientIdentity(path.join(cluster.root, 'raw-client'), 'rawpeer');
    const raw = await RawClient.connect({ port: cluster.port, identity });
    try {
      raw.send({ t: 'hello', versions: [1], id: 'rawpeer', agent: 'raw-client' });
      assert.equal((await raw.nextFrame(10_000))?.status, 'accepted');
      raw.send({ t: 'ping', seq: 0, returnsQueued: 5 });
      assert.equal((await raw.nextFrame(5000))?.t, 'pong');
      const s = await scrapeUntil((x) => value(x, 'brine_minion_returns_queued') === 5 && x, '5 queued returns');
      assert.equal(value(s, 'brine_minion_returns_queued_max'), 5);
      // the real minions report an empty queue: only rawpeer counts
      assert.equal(value(s, 'brine_minions_with_queued_returns'), 1);
      raw.send({ t: 'ping', seq: 1, returnsQueued: 2 });
      assert.equal((await raw.nextFrame(5000))?.t, 'pong');
      await scrapeUntil((x) => value(x, 'brine_minion_returns_queued') === 2, 'the queue to shrink to 2');
    } finally {
      raw.destroy();
    }
    const s = await scrapeUntil((x) => value(x, 'brine_minion_returns_queued') === 0 && x, 'a departed minion to count no more');
    assert.equal(value(s, 'brine_minions_with_queued_returns'), 0);
    assert.equal((await cluster.brine(['key', '-y', '-d', 'rawpeer'])).code, 0);
  });

  it('counts a rejected sign-in (autoreject_file)', async () => {
    const finger = (await cluster.brine(['key', '-F', 'master'])).stdout.match(/master\.pub: {2}(\S+)/)![1]!;
    const evil = cluster.startMinion('evil1', { master_finger: finger });
    assert.equal(await evil.exited, 77, evil.output);
    const s = await scrapeUntil((x) => (value(x, 'brine_sign_ins_total', { result: 'rejected' }) ?? 0) >= 1 && x, 'a rejected sign-in');
    assert.equal(value(s, 'brine_keys', { state: 'rejected' }), 1);
    assert.equal(value(s, 'brine_sign_ins_total', { result: 'accepted' }), 3, 'm1, m2 and rawpeer only');
  });

  it('counts a disconnect by its reason when a minion stops', async () => {
    // both minions signed in first: one that is reconnecting (a slow heartbeat on a loaded
    // machine) has no session to say goodbye on
    const before = await scrapeUntil((x) => value(x, 'brine_minions', { state: 'connected' }) === 2 && x, 'm1 and m2 connected');
    const shutdownBefore = value(before, 'brine_disconnects_total', { reason: 'shutdown' }) ?? 0;
    await minions.get('m2')!.kill('SIGTERM');
    const s = await scrapeUntil((x) => value(x, 'brine_minions', { state: 'connected' }) === 1 && x, 'm2 to count as gone');
    assert.equal(value(s, 'brine_minions', { state: 'disconnected' }), 1, 'm2 only: rawpeer was forgotten with its key');
    // a minion stopped with SIGTERM says goodbye: reason shutdown
    assert.equal(value(s, 'brine_disconnects_total', { reason: 'shutdown' }), shutdownBefore + 1);
  });

  it('no label carries a minion ID, jid, function or address: label names and values are from fixed sets', async () => {
    const s = await scrape();
    const brine = s.filter((x) => x.name.startsWith('brine_'));
    assert.ok(brine.length > 20);
    for (const x of brine) {
      for (const [k, v] of Object.entries(x.labels)) {
        const allowed = ALLOWED_LABELS[k];
        assert.ok(allowed, `${x.name} has an unexpected label ${k}="${v}"`);
        assert.match(v, allowed, `${x.name}{${k}="${v}"}`);
      }
    }
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    for (const id of ['m1', 'm2', 'rawpeer', 'evil1', '127.0.0.1', 'test.ping']) assert.ok(!text.includes(`"${id}`), `${id} appears in a label`);
  });
});

describe('metrics: bad input', () => {
  it('metrics_port held by another listener → METRICS_LISTEN_FAILED naming the port; the master does not start', async () => {
    const cluster = await Cluster.create();
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    try {
      const port = (holder.address() as net.AddressInfo).port;
      cluster.writeMasterConfig({ metrics_port: port });
      const r = await runCli(['master', '-c', cluster.masterConfigDir], { timeoutMs: 20_000 });
      assert.equal(r.code, 1, r.stderr);
      // log lines (log_level info) come first; the coded line and its fix end the output
      const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
      const at = lines.findIndex((l) => l.startsWith('METRICS_LISTEN_FAILED: '));
      assert.ok(at >= 0, r.stderr);
      assert.ok(lines[at]!.includes(`127.0.0.1:${port}`), lines[at]);
      assert.match(lines[at]!, /in use/);
      assert.match(lines[at + 1] ?? '', /^ {2}fix: /);
      // nothing half-started: the master's own port was released again
      const again = net.createServer();
      await new Promise<void>((resolve, reject) => {
        again.once('error', reject);
        again.listen(cluster.port, '127.0.0.1', resolve);
      });
      await new Promise<void>((resolve) => again.close(() => resolve()));
    } finally {
      holder.close();
      await cluster.cleanup();
    }
  });
});
