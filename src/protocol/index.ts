// Public surface of the protocol layer: framing, codec, message types. No sockets here.
export * from './frame-decoder.js';
export * from './foreign-peer.js';
export * from './codec.js';
export * from './schema.js';
export * from './messages.js';
export * from './control.js';
export * from './channel.js';
export * from './events.js';
export * from './state-progress.js';
