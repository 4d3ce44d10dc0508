// The incremental frame decoder under hostile input: bytes one at a time, arbitrary re-splits,
// lengths over the limit (refused from the header alone), zero and absurd lengths.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FrameDecoder, encodeFrame, FRAME_HEADER_BYTES, MAX_FRAME_LIMIT } from '../../../src/protocol/index.js';
import { isBrineError } from '../../../src/util/errors.js';

const header = (length: number): Buffer => {
  const b = Buffer.alloc(FRAME_HEADER_BYTES);
  b.writeUInt32BE(length, 0);
  return b;
};

/** Splits `bytes` at the given cut points (any order, duplicates allowed). */
function split(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let prev = 0;
  for (const p of [...points, bytes.length]) {
    out.push(bytes.subarray(prev, p)); // empty chunks included on purpose
    prev = p;
  }
  return out;
}

function decodeAll(decoder: FrameDecoder, chunks: Uint8Array[]): Buffer[] {
  const out: Buffer[] = [];
  for (const c of chunks) out.push(...decoder.push(c));
  return out;
}

test('frames fed one byte at a time come out whole, each exactly when its last byte arrives', () => {
  const payloads = [Buffer.from('a'), Buffer.from('hello world'), Buffer.alloc(300, 7), Buffer.from('z')];
  const stream = Buffer.concat(payloads.map(encodeFrame));
  const decoder = new FrameDecoder(1024);
  const ends = new Set<number>();
  let offset = 0;
  for (const p of payloads) {
    offset += FRAME_HEADER_BYTES + p.length;
    ends.add(offset - 1);
  }
  const got: Buffer[] = [];
  for (let i = 0; i < stream.length; i++) {
    const out = decoder.push(stream.subarray(i, i + 1));
    assert.equal(out.length, ends.has(i) ? 1 : 0, `byte ${i}`);
    got.push(...out);
  }
  assert.deepEqual(got, payloads);
  assert.equal(decoder.pendingBytes, 0);
});

test('property: any payloads, encoded and re-split anywhere, decode to the same payloads', () => {
  fc.assert(
    fc.property(fc.array(fc.uint8Array({ minLength: 1, maxLength: 200 }), { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 40 }), (payloads, cuts) => {
      const stream = Buffer.concat(payloads.map((p) => encodeFrame(p)));
      const decoder = new FrameDecoder(200);
      const got = decodeAll(decoder, split(stream, cuts));
      assert.deepEqual(
        got.map((b) => Buffer.from(b)),
        payloads.map((p) => Buffer.from(p)),
      );
      assert.equal(decoder.pendingBytes, 0);
    }),
    { numRuns: 300 },
  );
});

test('decoded payloads are stable even if the caller reuses its chunk buffers afterwards', () => {
  const stream = Buffer.concat([encodeFrame(Buffer.from('first')), encodeFrame(Buffer.from('second'))]);
  const decoder = new FrameDecoder(100);
  const chunk = Buffer.from(stream.subarray(0, 7)); // header + 3 bytes of "first"
  const out1 = decoder.push(chunk);
  chunk.fill(0); // the caller recycles its buffer: buffered bytes must not change
  const rest = Buffer.from(stream.subarray(7));
  const out2 = decoder.push(rest);
  assert.equal(out1.length, 0);
  assert.deepEqual(out2.map(String), ['first', 'second']);
});

test('a length over the limit fails with FRAME_TOO_LARGE from the 4 header bytes alone', () => {
  const decoder = new FrameDecoder(1000);
  // three header bytes are not enough to know
  assert.deepEqual(decoder.push(header(1001).subarray(0, 3)), []);
  assert.throws(
    () => decoder.push(header(1001).subarray(3)),
    (err: unknown) => isBrineError(err, 'FRAME_TOO_LARGE') && err.details.length === 1001 && err.details.limit === 1000,
  );
  assert.equal(decoder.pendingBytes, 0, 'nothing kept after the failure');
  // poisoned: even a perfect frame afterwards is refused with the same error
  assert.throws(
    () => decoder.push(encodeFrame(Buffer.from('ok'))),
    (err: unknown) => isBrineError(err, 'FRAME_TOO_LARGE'),
  );
  assert.throws(
    () => decoder.push(new Uint8Array(0)),
    (err: unknown) => isBrineError(err, 'FRAME_TOO_LARGE'),
  );
});

test('a length exactly at the limit is accepted', () => {
  const decoder = new FrameDecoder(10);
  assert.deepEqual(decoder.push(encodeFrame(Buffer.alloc(10, 1))), [Buffer.alloc(10, 1)]);
});

test('a zero length is FRAME_MALFORMED and poisons the decoder', () => {
  const decoder = new FrameDecoder(1000);
  assert.throws(
    () => decoder.push(header(0)),
    (err: unknown) => isBrineError(err, 'FRAME_MALFORMED'),
  );
  assert.throws(
    () => decoder.push(encodeFrame(Buffer.from('x'))),
    (err: unknown) => isBrineError(err, 'FRAME_MALFORMED'),
  );
});

test('lengths of 2^31 and 0xFFFFFFFF are read unsigned and refused before any allocation', () => {
  for (const length of [2 ** 31, 0xffff_ffff]) {
    const decoder = new FrameDecoder(16 * 1024 * 1024);
    assert.throws(
      () => decoder.push(header(length)),
      (err: unknown) => isBrineError(err, 'FRAME_TOO_LARGE') && err.details.length === length,
      `length ${length}`,
    );
  }
  assert.equal(MAX_FRAME_LIMIT, 0xffff_ffff);
});

test('a valid frame followed by a bad header in later bytes: the valid one is delivered first', () => {
  const decoder = new FrameDecoder(10);
  assert.deepEqual(decoder.push(encodeFrame(Buffer.from('fine'))).map(String), ['fine']);
  assert.throws(
    () => decoder.push(header(11)),
    (err: unknown) => isBrineError(err, 'FRAME_TOO_LARGE'),
  );
});

test('setMaxFrame raises the limit mid-stream, also for a header already buffered', () => {
  const big = Buffer.alloc(5000, 3);
  const decoder = new FrameDecoder(100);
  assert.deepEqual(decoder.push(encodeFrame(Buffer.from('hello'))).map(String), ['hello']);
  // authentication done: the limit grows before the large frame's header arrives
  decoder.setMaxFrame(10_000);
  const framed = encodeFrame(big);
  assert.deepEqual(decoder.push(framed.subarray(0, 2)), []);
  assert.deepEqual(decoder.push(framed.subarray(2, 4000)), []);
  assert.deepEqual(decoder.push(framed.subarray(4000)), [big]);
  // and the new limit is enforced too
  assert.throws(
    () => decoder.push(header(10_001)),
    (err: unknown) => isBrineError(err, 'FRAME_TOO_LARGE'),
  );
});

test('without the raise, the same large frame is refused', () => {
  const decoder = new FrameDecoder(100);
  assert.throws(
    () => decoder.push(encodeFrame(Buffer.alloc(5000))),
    (err: unknown) => isBrineError(err, 'FRAME_TOO_LARGE'),
  );
});

test('encodeFrame writes a 4-byte big-endian length', () => {
  const f = encodeFrame(Buffer.alloc(0x0102_03, 0));
  assert.deepEqual([...f.subarray(0, 4)], [0x00, 0x01, 0x02, 0x03]);
  assert.equal(f.length, 4 + 0x0102_03);
});
