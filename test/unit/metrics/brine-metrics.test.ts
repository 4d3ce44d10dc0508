// Prometheus metrics (issue 11 item 4): bus events and heartbeats update the per-master registry;
// scrape-time gauges read the fleet; no label ever carries a minion ID, jid or address.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BrineMetrics, MAX_TRACKED_JOBS, type FleetSource } from '../../../src/metrics/index.js';
import type { BrineEvent, SessionInfo } from '../../../src/protocol/index.js';

/** The value of one sample line (`name{labels} value`), or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    if (line.slice(0, at) === series) return Number(line.slice(at + 1));
  }
  return undefined;
}

const published = (jid: string, at: number, minions: string[]): BrineEvent => ({
  kind: 'job_published',
  jid,
  fun: 'test.ping',
  arg: [],
  kwarg: {},
  user: 'root',
  missing: [],
  tgt: '*',
  tgtType: 'glob',
  minions,
  notConnected: [],
  at,
});
const returned = (jid: string, minion: string, at: number, success = true): BrineEvent => ({
  kind: 'job_return',
  jid,
  minion,
  fun: 'test.ping',
  funArgs: [],
  ret: true,
  retcode: success ? 0 : 1,
  success,
  at,
});

test('sign-ins are counted by result, one label value per outcome', async () => {
  const m = new BrineMetrics({ processMetrics: false });
  m.observe({ kind: 'minion_connected', id: 'web1', remote: '127.0.0.1:1', agent: 'brine/0.1.0', at: 1 });
  m.observe({ kind: 'minion_connected', id: 'web2', remote: '127.0.0.1:2', agent: 'brine/0.1.0', at: 1 });
  m.observe({ kind: 'auth_pending', id: 'new1', remote: '127.0.0.1:3', fingerprint: 'aa', pub: 'PEM', at: 1 });
  m.observe({ kind: 'auth_rejected', id: 'bad1', remote: '127.0.0.1:4', fingerprint: 'bb', pub: 'PEM', reason: 'rejected', full: false, at: 1 });
  m.observe({ kind: 'key_mismatch', id: 'web1', remote: '127.0.0.1:5', acceptedFingerprint: 'aa', presentedFingerprint: 'cc', pub: 'PEM', at: 1 });
  m.observe({ kind: 'invalid_id', remote: '127.0.0.1:6', reason: 'localhost', at: 1 });
  const text = await m.registry.getSingleMetricAsString('brine_sign_ins_total');
  assert.equal(sample(text, 'brine_sign_ins_total{result="accepted"}'), 2);
  assert.equal(sample(text, 'brine_sign_ins_total{result="pending"}'), 1);
  assert.equal(sample(text, 'brine_sign_ins_total{result="rejected"}'), 1);
  assert.equal(sample(text, 'brine_sign_ins_total{result="denied"}'), 1);
  assert.equal(sample(text, 'brine_sign_ins_total{result="invalid_id"}'), 1);
  // present at zero, so an alert on increase() has a series before the first busy sign-in
  assert.equal(sample(text, 'brine_sign_ins_total{result="busy"}'), 0);
});

test('busy sign-ins come from the admission counter, counted once per scrape delta', async () => {
  let turnedAway = 0;
  const m = new BrineMetrics({ processMetrics: false, fleet: fleetOf({ turnedAway: () => turnedAway }) });
  turnedAway = 5;
  assert.equal(sample(await m.renderMetrics(), 'brine_sign_ins_total{result="busy"}'), 5);
  assert.equal(sample(await m.renderMetrics(), 'brine_sign_ins_total{result="busy"}'), 5, 'a second scrape adds nothing new');
  turnedAway = 12;
  assert.equal(sample(await m.renderMetrics(), 'brine_sign_ins_total{result="busy"}'), 12);
});

test('disconnects are counted by close reason; an unknown reason is "other", never free text', async () => {
  const m = new BrineMetrics({ processMetrics: false });
  const gone = (reason: string): BrineEvent => ({ kind: 'minion_disconnected', id: 'web1', remote: '127.0.0.1:1', reason, connectedForMs: 10, silentForMs: 1, at: 2 });
  m.observe(gone('heartbeat_timeout'));
  m.observe(gone('heartbeat_timeout'));
  m.observe(gone('peer_closed'));
  m.observe(gone('a reason from web1 with spaces'));
  const text = await m.registry.getSingleMetricAsString('brine_disconnects_total');
  assert.equal(sample(text, 'brine_disconnects_total{reason="heartbeat_timeout"}'), 2);
  assert.equal(sample(text, 'brine_disconnects_total{reason="peer_closed"}'), 1);
  assert.equal(sample(text, 'brine_disconnects_total{reason="other"}'), 1);
  assert.equal(sample(text, 'brine_disconnects_total{reason="shutdown"}'), 0);
  assert.doesNotMatch(text, /web1|spaces/);
});

test('jobs published, returns by success, and the publish-to-return latency', async () => {
  const m = new BrineMetrics({ processMetrics: false });
  m.observe(published('20260101000000000001', 1_000, ['a', 'b', 'c']));
  m.observe(returned('20260101000000000001', 'a', 1_200));
  m.observe(returned('20260101000000000001', 'b', 4_000, false));
  // a return for a job this master never published (a scheduler run): counted, no latency
  m.observe(returned('20250101000000000009', 'c', 9_000));
  const text = await m.renderMetrics();
  assert.equal(sample(text, 'brine_jobs_published_total'), 1);
  assert.equal(sample(text, 'brine_job_minions_targeted_total'), 3);
  assert.equal(sample(text, 'brine_job_returns_total{success="true"}'), 2);
  assert.equal(sample(text, 'brine_job_returns_total{success="false"}'), 1);
  assert.equal(sample(text, 'brine_job_return_latency_seconds_count'), 2);
  assert.equal(sample(text, 'brine_job_return_latency_seconds_sum'), 0.2 + 3);
  assert.equal(sample(text, 'brine_job_return_latency_seconds_bucket{le="0.25"}'), 1);
  assert.equal(sample(text, 'brine_job_return_latency_seconds_bucket{le="2.5"}'), 1);
  assert.equal(sample(text, 'brine_job_return_latency_seconds_bucket{le="5"}'), 2);
  assert.doesNotMatch(text, /jid=|minion=|20260101000000000001/);
});

test('publish times are bounded: the oldest jobs are forgotten beyond MAX_TRACKED_JOBS', async () => {
  const m = new BrineMetrics({ processMetrics: false });
  for (let i = 0; i <= MAX_TRACKED_JOBS; i++) m.observe(published(`j${i}`, 0, ['a']));
  m.observe(returned('j0', 'a', 1_000));
  m.observe(returned(`j${MAX_TRACKED_JOBS}`, 'a', 1_000));
  assert.equal(sample(await m.renderMetrics(), 'brine_job_return_latency_seconds_count'), 1, 'j0 was forgotten, the newest was not');
});

test('heartbeat RTT (ms on the wire) lands in a seconds histogram; a ping without rtt is not counted', async () => {
  const m = new BrineMetrics({ processMetrics: false });
  m.observeHeartbeat({ rtt: 0.4 });
  m.observeHeartbeat({ rtt: 30 });
  m.observeHeartbeat({});
  const text = await m.registry.getSingleMetricAsString('brine_heartbeat_rtt_seconds');
  assert.equal(sample(text, 'brine_heartbeat_rtt_seconds_count'), 2);
  assert.equal(sample(text, 'brine_heartbeat_rtt_seconds_bucket{le="0.0005"}'), 1);
  assert.equal(sample(text, 'brine_heartbeat_rtt_seconds_bucket{le="0.025"}'), 1);
  assert.equal(sample(text, 'brine_heartbeat_rtt_seconds_bucket{le="0.05"}'), 2);
});

function fleetOf(over: Partial<FleetSource> = {}): FleetSource {
  return {
    presence: () => [],
    keyCounts: () => ({ accepted: 0, pending: 0, rejected: 0, denied: 0 }),
    queuedReturns: () => [],
    awaitingSignIn: () => 0,
    turnedAway: () => 0,
    ...over,
  };
}

test('fleet gauges are read at scrape time: states, flapping, keys, queued returns, admission queue', async () => {
  let presence: SessionInfo[] = [
    { id: 'a', state: 'connected', reconnects: 0 },
    { id: 'b', state: 'connected', reconnects: 4, flapping: true },
    { id: 'c', state: 'disconnected', reconnects: 3, flapping: true },
    { id: 'd', state: 'never_connected', reconnects: 0 },
    { id: 'e', state: 'pending', reconnects: 0 },
  ];
  let queued: (number | undefined)[] = [0, 7, undefined, 2];
  let presenceReads = 0;
  const m = new BrineMetrics({
    processMetrics: false,
    fleet: fleetOf({
      presence: () => {
        presenceReads++;
        return presence;
      },
      keyCounts: () => ({ accepted: 4, pending: 1, rejected: 2, denied: 0 }),
      queuedReturns: () => queued,
      awaitingSignIn: () => 3,
    }),
  });
  let text = await m.renderMetrics();
  assert.equal(sample(text, 'brine_minions{state="connected"}'), 2);
  assert.equal(sample(text, 'brine_minions{state="disconnected"}'), 1);
  assert.equal(sample(text, 'brine_minions{state="never_connected"}'), 1);
  assert.equal(sample(text, 'brine_minions{state="pending"}'), 1);
  assert.equal(sample(text, 'brine_minions{state="denied"}'), 0);
  assert.equal(sample(text, 'brine_minions_flapping'), 2);
  assert.equal(sample(text, 'brine_keys{state="accepted"}'), 4);
  assert.equal(sample(text, 'brine_keys{state="rejected"}'), 2);
  assert.equal(sample(text, 'brine_minion_returns_queued'), 9);
  assert.equal(sample(text, 'brine_minion_returns_queued_max'), 7);
  assert.equal(sample(text, 'brine_minions_with_queued_returns'), 2);
  assert.equal(sample(text, 'brine_admission_queue'), 3);
  assert.equal(presenceReads, 1, 'one walk of the presence list per scrape');
  // the next scrape sees the state as it is then, not an accumulation
  presence = [{ id: 'a', state: 'disconnected', reconnects: 0 }];
  queued = [];
  text = await m.renderMetrics();
  assert.equal(sample(text, 'brine_minions{state="connected"}'), 0);
  assert.equal(sample(text, 'brine_minions{state="disconnected"}'), 1);
  assert.equal(sample(text, 'brine_minions_flapping'), 0);
  assert.equal(sample(text, 'brine_minion_returns_queued'), 0);
  assert.equal(sample(text, 'brine_minion_returns_queued_max'), 0);
});

test('API requests are counted by status for the REST API to increment', async () => {
  const m = new BrineMetrics({ processMetrics: false });
  m.apiRequests.inc({ status: '200' });
  m.apiRequests.inc({ status: '200' });
  m.apiRequests.inc({ status: '401' });
  const text = await m.registry.getSingleMetricAsString('brine_api_requests_total');
  assert.equal(sample(text, 'brine_api_requests_total{status="200"}'), 2);
  assert.equal(sample(text, 'brine_api_requests_total{status="401"}'), 1);
});

test('each master has its own registry with the process metrics, including event-loop lag', async () => {
  const a = new BrineMetrics();
  const b = new BrineMetrics();
  a.observe(published('j1', 0, []));
  assert.equal(sample(await a.renderMetrics(), 'brine_jobs_published_total'), 1);
  const textB = await b.renderMetrics();
  assert.equal(sample(textB, 'brine_jobs_published_total'), 0, 'registries are not shared');
  assert.match(textB, /^nodejs_eventloop_lag_seconds \d/m);
  assert.match(textB, /^process_resident_memory_bytes \d/m);
  assert.match(a.contentType, /^text\/plain; version=0\.0\.4/);
});
