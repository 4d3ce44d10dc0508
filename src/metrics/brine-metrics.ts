// The master's Prometheus metrics: one prom-client Registry per master (never the global one, so
// two masters in one process, as in tests, do not share counters). Counters and histograms are
// fed by the same typed events that `brine events` streams; what is a state rather than an event
// (the fleet, key counts, queued returns, the admission queue) is read at scrape time.
// No label ever carries a minion ID, jid, function or address: cardinality stays bounded.

import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { CLOSE_REASONS, type BrineEvent, type Ping } from '../protocol/index.js';
import { registerFleetGauges, type FleetSource } from './fleet-gauges.js';

/** Sign-in outcomes, one label value each (busy comes from the admission counter). */
export const SIGN_IN_RESULTS = ['accepted', 'pending', 'rejected', 'denied', 'invalid_id', 'busy'] as const;
export type SignInResult = (typeof SIGN_IN_RESULTS)[number];

/** Publish times kept to measure return latency; the oldest are forgotten beyond this. */
export const MAX_TRACKED_JOBS = 10_000;

const CLOSE_REASON_SET: ReadonlySet<string> = new Set(CLOSE_REASONS);

export interface BrineMetricsOptions {
  /** Scrape-time reads of the master's state; omitted in unit tests of the event counters. */
  fleet?: FleetSource;
  /** prom-client's process and Node.js metrics (event-loop lag, heap, fds); default on. */
  processMetrics?: boolean;
}

export class BrineMetrics {
  readonly registry = new Registry();
  /** The REST API counts each answered request here (`metrics.apiRequests.inc({ status: '200' })`). */
  readonly apiRequests: Counter<'status'>;
  private readonly signIns: Counter<'result'>;
  private readonly disconnects: Counter<'reason'>;
  private readonly rtt: Histogram;
  private readonly jobsPublished: Counter;
  private readonly minionsTargeted: Counter;
  private readonly returns: Counter<'success'>;
  private readonly returnLatency: Histogram;
  /** jid -> publish time (ms), insertion-ordered, bounded by MAX_TRACKED_JOBS. */
  private readonly publishedAt = new Map<string, number>();

  constructor(opts: BrineMetricsOptions = {}) {
    const registers = [this.registry];
    const fleet = opts.fleet;
    let turnedAwaySeen = 0;
    this.signIns = new Counter({
      name: 'brine_sign_ins_total',
      help: 'Minion sign-ins by result: accepted, pending, rejected (incl. max_minions full), denied (key mismatch), invalid_id, busy (turned away by auth_rate).',
      labelNames: ['result'],
      registers,
      collect() {
        // busy sign-ins emit no event: bring the count up to date from admission control
        const turnedAway = fleet?.turnedAway() ?? 0;
        if (turnedAway > turnedAwaySeen) this.inc({ result: 'busy' }, turnedAway - turnedAwaySeen);
        turnedAwaySeen = turnedAway;
      },
    });
    for (const result of SIGN_IN_RESULTS) this.signIns.inc({ result }, 0);
    this.disconnects = new Counter({
      name: 'brine_disconnects_total',
      help: 'Ends of authenticated minion sessions by close reason (other = a reason this master does not know).',
      labelNames: ['reason'],
      registers,
    });
    for (const reason of CLOSE_REASONS) this.disconnects.inc({ reason }, 0);
    this.rtt = new Histogram({
      name: 'brine_heartbeat_rtt_seconds',
      help: 'Heartbeat round trips as the minions measured and reported them with each ping.',
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    });
    this.jobsPublished = new Counter({ name: 'brine_jobs_published_total', help: 'Jobs published to minions (one per jid).', registers });
    this.minionsTargeted = new Counter({ name: 'brine_job_minions_targeted_total', help: 'Minions matched by published jobs, summed over jobs.', registers });
    this.returns = new Counter({
      name: 'brine_job_returns_total',
      help: 'Job returns received from minions, by whether the function succeeded.',
      labelNames: ['success'],
      registers,
    });
    for (const success of ['true', 'false']) this.returns.inc({ success }, 0);
    this.returnLatency = new Histogram({
      name: 'brine_job_return_latency_seconds',
      help: 'Time from publishing a job to receiving a minion return for it.',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800],
      registers,
    });
    this.apiRequests = new Counter({ name: 'brine_api_requests_total', help: 'REST API requests answered, by HTTP status code.', labelNames: ['status'], registers });
    if (fleet) registerFleetGauges(this.registry, fleet);
    if (opts.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  /** Feeds one bus event; subscribe it to the master's EventBus. */
  observe(event: BrineEvent): void {
    switch (event.kind) {
      case 'minion_connected':
        this.signIns.inc({ result: 'accepted' });
        return;
      case 'auth_pending':
        this.signIns.inc({ result: 'pending' });
        return;
      case 'auth_rejected':
        this.signIns.inc({ result: 'rejected' });
        return;
      case 'key_mismatch':
        this.signIns.inc({ result: 'denied' });
        return;
      case 'invalid_id':
        this.signIns.inc({ result: 'invalid_id' });
        return;
      case 'minion_disconnected':
        this.disconnects.inc({ reason: CLOSE_REASON_SET.has(event.reason) ? event.reason : 'other' });
        return;
      case 'job_published':
        this.jobsPublished.inc();
        this.minionsTargeted.inc(event.minions.length);
        this.rememberPublish(event.jid, event.at);
        return;
      case 'job_return': {
        this.returns.inc({ success: String(event.success) });
        const at = this.publishedAt.get(event.jid);
        // returns of jobs this master did not publish (scheduler runs, older jobs) have no start
        if (at !== undefined) this.returnLatency.observe(Math.max(0, event.at - at) / 1000);
        return;
      }
      case 'minion_replaced':
        return;
    }
  }

  /** One heartbeat from a minion: its reported round trip (ms) goes into the RTT histogram. */
  observeHeartbeat(ping: Pick<Ping, 'rtt'>): void {
    if (ping.rtt !== undefined) this.rtt.observe(ping.rtt / 1000);
  }

  /** The text exposition format; serve it with `contentType`. */
  renderMetrics(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private rememberPublish(jid: string, at: number): void {
    this.publishedAt.delete(jid);
    this.publishedAt.set(jid, at);
    if (this.publishedAt.size > MAX_TRACKED_JOBS) {
      const oldest = this.publishedAt.keys().next().value;
      if (oldest !== undefined) this.publishedAt.delete(oldest);
    }
  }
}
