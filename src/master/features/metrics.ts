// Prometheus metrics (docs/metrics.md): fed by the event bus and the minions' heartbeats, the
// fleet read at scrape time, served on metrics_port (and by the API's /metrics).

import { BrineError } from '../../util/errors.js';
import type { Logger } from '../../util/logger.js';
import type { MinionMessage } from '../../protocol/index.js';
import { BrineMetrics, startMetricsServer, type FleetSource, type MetricsServer } from '../../metrics/index.js';
import type { EventBus } from '../event-bus.js';
import type { MasterFeature } from './master-feature.js';

export interface MetricsDeps {
  fleet: FleetSource;
  events: EventBus;
  /** metrics_host and metrics_port; port null = no server. */
  host: string;
  port: number | null;
  logger: Logger;
}

export class Metrics implements MasterFeature {
  readonly name = 'metrics';
  readonly registry: BrineMetrics;
  private server: MetricsServer | undefined;

  constructor(private readonly deps: MetricsDeps) {
    this.registry = new BrineMetrics({ fleet: deps.fleet });
    deps.events.observe((event) => this.registry.observe(event));
  }

  /** The bound metrics_port (0 when metrics_port is off). */
  get port(): number {
    return this.server?.port ?? 0;
  }

  async start(): Promise<void> {
    const { host, port, logger } = this.deps;
    if (port === null) return;
    if (port > 65535) throw new BrineError('CONFIG_VALUE', `metrics_port ${port} is not a TCP port: use 1-65535 (0 picks a free one), or remove metrics_port to turn the server off`);
    const endpoint = { render: () => this.registry.renderMetrics(), contentType: this.registry.contentType };
    this.server = await startMetricsServer(host, port, endpoint, (err) => logger.error({ err }, 'the metrics server failed'));
    logger.info({ host, port: this.server.port }, `serving Prometheus metrics on http://${host.includes(':') ? `[${host}]` : host}:${this.server.port}/metrics`);
  }

  /** The Prometheus text and its content type (the control socket's `metrics`, for `brine api`). */
  async render(): Promise<{ text: string; contentType: string }> {
    return { text: await this.registry.renderMetrics(), contentType: this.registry.contentType };
  }

  onMessage(message: MinionMessage): boolean {
    if (message.t !== 'ping') return false;
    this.registry.observeHeartbeat(message);
    return true;
  }

  async stop(): Promise<void> {
    await this.server?.close();
  }
}
