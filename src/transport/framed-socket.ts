// A Channel over a stream socket (TLS or Unix): frames, decodes and validates every message,
// maps socket failures to close reasons, and bounds what a slow reader can make us buffer.

import type { Duplex } from 'node:stream';
import { BrineError, toBrineError } from '../util/errors.js';
import { FrameDecoder, decodeMessage, encodeMessage, type Channel, type ChannelClose, type CloseReason, type Schema } from '../protocol/index.js';

/** A peer that lets this much pile up unread is disconnected (threats.md case 27). */
export const DEFAULT_MAX_WRITE_BUFFER = 32 * 1024 * 1024;

/**
 * Past maxWriteBuffer a peer that is still taking bytes (slowly: a `brine run` CLI printing a
 * 1,000-minion state.apply on a loaded host) may have up to this many times maxWriteBuffer
 * queued; one that took nothing for SLOW_READER_GRACE_MS, or more than that, is disconnected.
 */
export const SLOW_READER_CEILING = 4;
export const SLOW_READER_GRACE_MS = 10_000;

export interface FramedSocketOptions {
  remoteAddress: string;
  peerFingerprint: string;
  peerPublicKeyPem?: string;
  maxFrame: number;
  schemas: ReadonlyMap<string, Schema<unknown>>;
  maxWriteBuffer?: number;
  /**
   * Messages sent in one tick go out in one write (cork, uncork on nextTick): for a channel that
   * streams many small messages at once, e.g. a job's returns to the control client.
   */
  coalesceWrites?: boolean;
}

export class FramedSocket<In, Out extends { t: string }> implements Channel<In, Out> {
  readonly remoteAddress: string;
  readonly peerFingerprint: string;
  readonly peerPublicKeyPem: string;
  private readonly decoder: FrameDecoder;
  private readonly schemas: ReadonlyMap<string, Schema<unknown>>;
  private readonly maxWriteBuffer: number;
  private readonly coalesceWrites: boolean;
  private corked = false;
  private readonly uncork = (): void => {
    this.corked = false;
    this.socket.uncork();
  };
  private messageHandlers: Array<(m: In) => void> = [];
  private closeHandlers: Array<(info: ChannelClose) => void> = [];
  private closeInfo: ChannelClose | undefined;
  private socketError: Error | undefined;
  /** While over maxWriteBuffer: what the peer had taken at the last check, and when that last grew. */
  private overCap: { taken: number; inKernelQueue: number; at: number } | undefined;

  constructor(
    private readonly socket: Duplex & { writableLength: number; destroyed: boolean; bytesWritten?: number },
    opts: FramedSocketOptions,
  ) {
    this.remoteAddress = opts.remoteAddress;
    this.peerFingerprint = opts.peerFingerprint;
    this.peerPublicKeyPem = opts.peerPublicKeyPem ?? '';
    this.decoder = new FrameDecoder(opts.maxFrame);
    this.schemas = opts.schemas;
    this.maxWriteBuffer = opts.maxWriteBuffer ?? DEFAULT_MAX_WRITE_BUFFER;
    this.coalesceWrites = opts.coalesceWrites ?? false;
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err: Error) => {
      this.socketError = err;
    });
    socket.on('close', () => this.finish(this.reasonForSocketClose(), this.socketError, false));
    socket.on('end', () => {
      // the peer half-closed: we have nothing more to say either
      this.close('peer_closed');
    });
  }

  get closed(): boolean {
    return this.closeInfo !== undefined;
  }

  send(message: Out): boolean {
    if (this.closeInfo || this.socket.destroyed) return false;
    if (this.socket.writableLength <= this.maxWriteBuffer) this.overCap = undefined;
    else if (!this.peerStillReading()) {
      this.close('write_failed', new BrineError('INTERNAL', `peer ${this.remoteAddress} is not reading; ${this.socket.writableLength} bytes queued`));
      return false;
    }
    if (this.coalesceWrites && !this.corked) {
      this.corked = true;
      this.socket.cork();
      process.nextTick(this.uncork);
    }
    this.socket.write(encodeMessage(message));
    return true;
  }

  /**
   * Over maxWriteBuffer: true while the peer keeps taking bytes (what left our queue grew within
   * SLOW_READER_GRACE_MS) and the queue is under SLOW_READER_CEILING times the cap.
   */
  private peerStillReading(): boolean {
    const queued = this.socket.writableLength;
    if (this.socket.bytesWritten === undefined || queued > this.maxWriteBuffer * SLOW_READER_CEILING) return false;
    // whole writes the kernel took; while one large (corked) write is in flight only libuv's
    // write queue shows the peer taking its bytes
    const taken = this.socket.bytesWritten - queued;
    const inKernelQueue = (this.socket as { _handle?: { writeQueueSize?: unknown } })._handle?.writeQueueSize;
    const waiting = typeof inKernelQueue === 'number' ? inKernelQueue : 0;
    const now = Date.now();
    if (this.overCap === undefined || taken > this.overCap.taken || waiting < this.overCap.inKernelQueue) {
      this.overCap = { taken, inKernelQueue: waiting, at: now };
      return true;
    }
    this.overCap.inKernelQueue = waiting;
    return now - this.overCap.at < SLOW_READER_GRACE_MS;
  }

  close(reason: CloseReason, error?: BrineError | Error): void {
    if (this.closeInfo) return;
    this.finish(reason, error, true);
    this.socket.end();
    // do not wait forever for a peer that never acknowledges the FIN
    const timer = setTimeout(() => this.socket.destroy(), 2000);
    timer.unref();
    this.socket.once('close', () => clearTimeout(timer));
  }

  /** Closes without flushing (for errors where the stream is no longer trustworthy). */
  destroy(reason: CloseReason, error?: BrineError | Error): void {
    if (!this.closeInfo) this.finish(reason, error, true);
    this.socket.destroy();
  }

  onMessage(fn: (message: In) => void): void {
    this.messageHandlers.push(fn);
  }

  onClose(fn: (info: ChannelClose) => void): void {
    if (this.closeInfo) queueMicrotask(() => fn(this.closeInfo!));
    else this.closeHandlers.push(fn);
  }

  setMaxFrame(bytes: number): void {
    this.decoder.setMaxFrame(bytes);
  }

  private onData(chunk: Buffer): void {
    if (this.closeInfo) return;
    let payloads: Buffer[];
    try {
      payloads = this.decoder.push(chunk);
    } catch (err) {
      const e = toBrineError(err);
      this.destroy(e.code === 'FRAME_TOO_LARGE' ? 'frame_too_large' : 'protocol_error', e);
      return;
    }
    for (const payload of payloads) {
      if (this.closeInfo) return;
      let message: In;
      try {
        message = decodeMessage<In>(payload, this.schemas);
      } catch (err) {
        const e = toBrineError(err, 'MESSAGE_INVALID');
        // tell the peer why before hanging up; it may be an older or newer brine
        this.socket.write(encodeMessage({ t: 'error', code: e.code, message: e.message }));
        this.close('protocol_error', e);
        return;
      }
      // a throwing handler must not escape into the socket's 'data' event (that would be an
      // uncaught exception, taking the whole daemon down): it closes this channel instead
      for (const h of this.messageHandlers) {
        try {
          h(message);
        } catch (err) {
          this.close('internal_error', err instanceof Error ? err : new Error(String(err)));
          return;
        }
      }
    }
  }

  private reasonForSocketClose(): CloseReason {
    const code = (this.socketError as NodeJS.ErrnoException | undefined)?.code ?? '';
    if (code === 'ECONNRESET' || code === 'EPIPE') return 'reset';
    if (code === 'ETIMEDOUT') return 'write_failed';
    if (code.startsWith('ERR_SSL') || code.startsWith('ERR_TLS')) return 'tls_error';
    return 'peer_closed';
  }

  private finish(reason: CloseReason, error: BrineError | Error | undefined, local: boolean): void {
    if (this.closeInfo) return;
    this.closeInfo = error === undefined ? { reason, local } : { reason, local, error };
    const handlers = this.closeHandlers;
    this.closeHandlers = [];
    this.messageHandlers = [];
    for (const h of handlers) {
      try {
        h(this.closeInfo);
      } catch (err) {
        // every owner must hear about the close; this may run inside a socket event, where a
        // throw would crash the process, so the failure is reported as a warning instead
        process.emitWarning(err instanceof Error ? err : new Error(String(err)), { code: 'BRINE_CLOSE_HANDLER' });
      }
    }
  }
}
