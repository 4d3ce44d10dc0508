// Public surface of the transport layer: the only code that touches node:net and node:tls.
export * from './framed-socket.js';
export * from './socket-options.js';
export * from './tls.js';
export * from './source-key.js';
export * from './unix.js';
export * from './peer-credentials.js';
export * from './master-dialer.js';
export * from './service-sniff.js';
