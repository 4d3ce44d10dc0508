// Length-prefixed frames: a 4-byte big-endian length, then that many bytes of payload.
// The decoder is incremental (bytes may arrive one at a time) and checks the declared length
// against the limit in force before allocating anything for the payload.

import { BrineError } from '../util/errors.js';
import { FOREIGN_PEER_SNIFF_BYTES, foreignPeerError, recogniseForeignPeer } from './foreign-peer.js';

export const FRAME_HEADER_BYTES = 4;
/** The largest value the 4-byte header can express; limits above it are meaningless. */
export const MAX_FRAME_LIMIT = 0xffff_ffff;

/** Printable ASCII and line ends only: the start of a text protocol, not a binary length. */
function isText(bytes: Uint8Array): boolean {
  return bytes.every((b) => (b >= 0x20 && b < 0x7f) || b === 0x0d || b === 0x0a || b === 0x09);
}

export function encodeFrame(payload: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + payload.length);
  out.writeUInt32BE(payload.length, 0);
  out.set(payload, FRAME_HEADER_BYTES);
  return out;
}

/**
 * Feeds on chunks and yields whole payloads. After an error the decoder is poisoned: the
 * connection must be closed, since the stream position is no longer trustworthy.
 */
export class FrameDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private failed: BrineError | undefined;

  constructor(private maxFrame: number) {}

  /** The limit can grow after authentication (small before, large after). */
  setMaxFrame(limit: number): void {
    this.maxFrame = limit;
  }

  get pendingBytes(): number {
    return this.buffered;
  }

  /** Returns the complete payloads in this chunk; throws FRAME_TOO_LARGE / FRAME_MALFORMED. */
  push(chunk: Uint8Array): Buffer[] {
    if (this.failed) throw this.failed;
    if (chunk.length > 0) {
      // a view for now: whole frames in this chunk are cut out without copying
      this.chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length));
      this.buffered += chunk.length;
    }
    const frames: Buffer[] = [];
    for (;;) {
      if (this.buffered < FRAME_HEADER_BYTES) break;
      const length = this.peekLength();
      if (length === 0) return this.fail(new BrineError('FRAME_MALFORMED', 'zero-length frame'));
      if (length > this.maxFrame) {
        // an HTTP or NATS server's first bytes read as a huge length: name the service instead
        const head = this.peekBytes(FOREIGN_PEER_SNIFF_BYTES);
        // "HTTP" alone is not enough to tell: text waits for its first line (nothing is allocated)
        if (head.length < FOREIGN_PEER_SNIFF_BYTES && !head.includes(0x0a) && isText(head)) break;
        const foreign = recogniseForeignPeer(head);
        if (foreign !== undefined) return this.fail(foreignPeerError(foreign, head, 'the peer'));
        return this.fail(new BrineError('FRAME_TOO_LARGE', `frame of ${length} bytes exceeds the limit of ${this.maxFrame} bytes`, { details: { length, limit: this.maxFrame } }));
      }
      if (this.buffered < FRAME_HEADER_BYTES + length) break;
      this.consume(FRAME_HEADER_BYTES);
      frames.push(this.consume(length));
    }
    // Whatever stays buffered must be ours: the caller may reuse its chunk's memory. Older
    // chunks were copied on earlier calls, and FIFO consumption means only the tail of this
    // one can remain, as the last entry.
    if (chunk.length > 0 && this.buffered > 0) {
      const last = this.chunks.length - 1;
      this.chunks[last] = Buffer.from(this.chunks[last]!);
    }
    return frames;
  }

  private fail(err: BrineError): never {
    this.failed = err;
    this.chunks = [];
    this.buffered = 0;
    throw err;
  }

  /** Up to `n` buffered bytes from the start, without consuming them. */
  private peekBytes(n: number): Buffer {
    return Buffer.concat(this.chunks, Math.min(n, this.buffered));
  }

  private peekLength(): number {
    const first = this.chunks[0];
    if (first && first.length >= FRAME_HEADER_BYTES) return first.readUInt32BE(0);
    const head = Buffer.alloc(FRAME_HEADER_BYTES);
    let off = 0;
    for (const c of this.chunks) {
      const n = Math.min(c.length, FRAME_HEADER_BYTES - off);
      c.copy(head, off, 0, n);
      off += n;
      if (off === FRAME_HEADER_BYTES) break;
    }
    return head.readUInt32BE(0);
  }

  private consume(n: number): Buffer {
    this.buffered -= n;
    const first = this.chunks[0];
    if (first && first.length >= n) {
      const out = first.subarray(0, n);
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
      return out;
    }
    const out = Buffer.allocUnsafe(n);
    let off = 0;
    while (off < n) {
      const c = this.chunks[0]!;
      const take = Math.min(c.length, n - off);
      c.copy(out, off, 0, take);
      off += take;
      if (take === c.length) this.chunks.shift();
      else this.chunks[0] = c.subarray(take);
    }
    return out;
  }
}
