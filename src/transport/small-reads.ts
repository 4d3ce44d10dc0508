// The first bytes of an accepted plain socket (the door's request, or the start of a TLS
// ClientHello) read into one small buffer shared by every connection, instead of a fresh 64 KiB
// buffer per read (issue 27, restart4).
//
// Why: Node reads a plain socket into a 64 KiB ArrayBuffer (libuv's suggested size) and copies out
// what arrived, freeing the rest. With the master's mmap threshold at 64 KiB (master-malloc.ts)
// each such buffer is an mmap and a munmap whenever the heap's top has no room, and every munmap of
// the multi-threaded master is a TLB-flush IPI to the other CPU: the door's reads were 11,330
// munmaps in 8 s of a 10,000-minion restart (bench/README.md, "Issue 27: the restart regression").
//
// How: Node's own user-buffer reads (net.Socket's `onread` option, which its constructor takes for
// client sockets only) switched on for the accepted socket: the handle's `useUserBuffer` and the
// two symbol keys net.Socket keeps the buffer and callback under, found by description on a probe
// socket made with `onread`. When either is missing (another Node) nothing is changed and the
// caller reads with 'data' events as before. The buffer is shared: libuv fills it and the callback
// runs at once, on the one JS thread; each chunk handed on is a copy of what arrived.

import * as net from 'node:net';

/** Door request lines are at most 64 bytes (door.ts); a ClientHello's first bytes suffice to tell it. */
export const SMALL_READ_BYTES = 256;

interface UserBufferKeys {
  buffer: symbol;
  callback: symbol;
}

let keys: UserBufferKeys | null | undefined;
let shared: Buffer | undefined;

function userBufferKeys(): UserBufferKeys | null {
  if (keys !== undefined) return keys;
  keys = null;
  try {
    // net.Socket takes `onread` (its types list it for net.connect only)
    const withOnread = { onread: { buffer: Buffer.alloc(1), callback: () => true } };
    const probe = new net.Socket(withOnread as net.SocketConstructorOpts);
    const own = Object.getOwnPropertySymbols(probe);
    const buffer = own.find((s) => s.description === 'kBuffer');
    const callback = own.find((s) => s.description === 'kBufferCb');
    const probed = probe as unknown as Record<symbol, unknown>;
    // the keys must hold what the probe was given, or they are not the ones net.Socket reads
    if (buffer && callback && probed[buffer] instanceof Uint8Array && typeof probed[callback] === 'function') keys = { buffer, callback };
    probe.destroy();
  } catch {
    keys = null;
  }
  return keys;
}

type Handle = { useUserBuffer?: (buf: Uint8Array) => void };

const handleOf = (raw: net.Socket): Handle | undefined => (raw as unknown as { _handle?: Handle | null })._handle ?? undefined;

/**
 * Reads `raw` (a socket the server just accepted) into the shared small buffer: each read is
 * handed to `onChunk` as a copy. False when this Node does not allow it (nothing changed: read with
 * 'data' events). `endSmallReads` ends it.
 */
export function startSmallReads(raw: net.Socket, onChunk: (chunk: Buffer) => void): boolean {
  const k = userBufferKeys();
  const handle = handleOf(raw);
  if (!k || typeof handle?.useUserBuffer !== 'function') return false;
  shared ??= Buffer.allocUnsafe(SMALL_READ_BYTES);
  handle.useUserBuffer(shared);
  const slots = raw as unknown as Record<symbol, unknown>;
  slots[k.buffer] = shared;
  slots[k.callback] = (nread: number, buf: Buffer): void => {
    onChunk(Buffer.from(buf.subarray(0, nread)));
  };
  raw.resume();
  return true;
}

/**
 * Stops reading `raw` (paused), for TLS to take it over or for the socket to be closed. Node's TLS
 * wrap reads the handle through its own buffers from then on; bytes pushed back with `unshift` are
 * what TLS reads first. Should the socket itself be read again, each read still lands in the small
 * buffer and is pushed to the stream as a copy, as Node's own reads would push it.
 */
export function endSmallReads(raw: net.Socket): void {
  // paused while in user-buffer mode, net.Socket stops the handle's reads (readStop)
  raw.pause();
  const k = userBufferKeys();
  if (!k) return;
  const slots = raw as unknown as Record<symbol, unknown>;
  if (slots[k.buffer] !== shared) return;
  slots[k.callback] = (nread: number, buf: Buffer): boolean => raw.push(Buffer.from(buf.subarray(0, nread)));
}
