// The raw floor of the emulated fleet state run: length-prefixed frames (4-byte big-endian
// length, then that many bytes; the first byte tags the frame), so each message costs the same
// bytes as brine's JSON of the same message.

export const JOB = 0x4a; // server -> client: the state.apply job
export const REQ = 0x51; // client -> server: a file server request (its index in the next byte pair)
export const REP = 0x41; // server -> client: the reply to it
export const RET = 0x52; // client -> server: the state return

/** A frame of `size` payload bytes tagged `tag`, carrying `index` in bytes 1-2. */
export function frame(tag, size, index = 0) {
  const b = Buffer.alloc(4 + Math.max(3, size), 0x20);
  b.writeUInt32BE(b.length - 4, 0);
  b[4] = tag;
  b.writeUInt16BE(index, 5);
  return b;
}

/** Feeds a chunk; calls onFrame(tag, index) per whole frame. */
export function feed(state, chunk, onFrame) {
  let buf = state.carry ? Buffer.concat([state.carry, chunk]) : chunk;
  while (buf.length >= 4) {
    const len = buf.readUInt32BE(0);
    if (buf.length < 4 + len) break;
    onFrame(buf[4], buf.readUInt16BE(5));
    buf = buf.subarray(4 + len);
  }
  state.carry = buf.length > 0 ? Buffer.from(buf) : undefined;
}
