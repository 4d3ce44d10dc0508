// Public surface of the metrics layer: the per-master registry and the optional /metrics server.
export { BrineMetrics, MAX_TRACKED_JOBS, SIGN_IN_RESULTS, type BrineMetricsOptions, type SignInResult } from './brine-metrics.js';
export { KEY_STATE_LABELS, MINION_STATES, type FleetSource } from './fleet-gauges.js';
export { startMetricsServer, type MetricsEndpoint, type MetricsServer } from './metrics-server.js';
