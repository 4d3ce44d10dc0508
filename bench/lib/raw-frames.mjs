// The raw baseline's wire: fixed-size messages tagged by their first byte, so a reader needs no
// JSON and no length prefix. Sizes match the figures the anchors are stated in (256 B out, 64 B back).

export const SIZES = new Map([
  [0x4a /* J: job, server -> client */, 256],
  [0x52 /* R: reply, client -> server */, 64],
  [0x48 /* H: heartbeat, client -> server */, 32],
  [0x50 /* P: pong, server -> client */, 32],
]);

export const message = (tag) => Buffer.alloc(SIZES.get(tag), tag);
export const JOB = 0x4a;
export const REPLY = 0x52;
export const HEARTBEAT = 0x48;
export const PONG = 0x50;

/** Feeds a chunk into the socket's carry-over and calls onMessage(tag) per whole message. */
export function feed(state, chunk, onMessage) {
  let buf = state.carry ? Buffer.concat([state.carry, chunk]) : chunk;
  for (;;) {
    if (buf.length === 0) break;
    const size = SIZES.get(buf[0]);
    if (size === undefined) throw new Error(`raw baseline: unknown message tag ${buf[0]}`);
    if (buf.length < size) break;
    onMessage(buf[0]);
    buf = buf.subarray(size);
  }
  state.carry = buf.length > 0 ? Buffer.from(buf) : undefined;
}
