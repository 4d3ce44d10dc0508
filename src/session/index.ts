// Public surface of the session layer: liveness, backoff and the minion's connection state
// machine. Sockets and DNS are injected; nothing here imports node:net or node:tls.
export * from './heartbeat.js';
export * from './backoff.js';
export * from './master-connection.js';
export * from './link-contract.js';
export * from './master-link.js';
export * from './master-pool.js';
export * from './link-verdict.js';
