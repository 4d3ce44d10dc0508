// The message channel the upper layers see: send typed messages, receive validated ones, and
// learn exactly once why it closed. Transports implement it; sessions are written against it.

import type { BrineError } from '../util/errors.js';
import type { CloseReason } from './messages.js';

export interface ChannelClose {
  reason: CloseReason;
  /** Set when the close came from an error (decode failure, TLS error, socket error). */
  error?: BrineError | Error;
  /** True when this side decided to close. */
  local: boolean;
}

export interface Channel<In, Out> {
  readonly remoteAddress: string;
  /** SHA-256 fingerprint of the peer's public key (empty on local control sockets). */
  readonly peerFingerprint: string;
  /** The peer's public key as SPKI PEM (empty on local control sockets). */
  readonly peerPublicKeyPem: string;
  readonly closed: boolean;
  /** Queues a message; returns false when the channel is closed (the message is dropped). */
  send(message: Out): boolean;
  /** Closes once; later calls do nothing. Pending writes are flushed when possible. */
  close(reason: CloseReason, error?: BrineError | Error): void;
  onMessage(fn: (message: In) => void): void;
  onClose(fn: (info: ChannelClose) => void): void;
  /** Raises or lowers the frame-size limit (raised after authentication). */
  setMaxFrame(bytes: number): void;
}
