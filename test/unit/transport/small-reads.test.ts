// The door's small reads (small-reads.ts): an accepted socket read into one small shared buffer
// instead of a 64 KiB buffer per read, then handed back paused, on real loopback sockets.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { endSmallReads, SMALL_READ_BYTES, startSmallReads } from '../../../src/transport/small-reads.js';
import { tcpPair, within } from './helpers.js';

test('small reads: this Node takes them; every read lands in the small buffer, each chunk a copy, all bytes in order', async (t) => {
  const { client, server } = await tcpPair(t);
  const chunks: Buffer[] = [];
  let total = 0;
  const sent = randomBytes(8 * SMALL_READ_BYTES + 7);
  const all = within<void>(3_000, 'every byte', (done) => {
    const taken = startSmallReads(server, (chunk) => {
      chunks.push(chunk);
      total += chunk.length;
      if (total >= sent.length) done();
    });
    // false would mean Node's 64 KiB reads again (the door falls back to 'data' events)
    assert.equal(taken, true, 'startSmallReads is not available on this Node');
  });
  // one write: Node's own reads would hand it over as one chunk of the whole
  client.write(sent);
  await all;
  const largest = Math.max(...chunks.map((c) => c.length));
  assert.ok(largest <= SMALL_READ_BYTES, `a chunk of ${largest} bytes: not read through the small buffer`);
  // the buffer is shared and overwritten by each read: only copies keep what was sent
  assert.deepEqual(Buffer.concat(chunks), sent);
});

test('small reads: endSmallReads stops reading; unshifted bytes come first and later ones still arrive through the stream', async (t) => {
  const { client, server } = await tcpPair(t);
  const first = within<Buffer>(3_000, 'the door line', (done) => {
    startSmallReads(server, (chunk) => {
      endSmallReads(server);
      done(chunk);
    });
  });
  client.write('BRINE/1 5000\n');
  assert.equal((await first).toString(), 'BRINE/1 5000\n');
  server.unshift(Buffer.from('rest:'));
  client.write('later');
  let got = '';
  const all = within<void>(3_000, 'the bytes after the line', (done) => {
    server.on('data', (chunk: Buffer) => {
      got += chunk.toString();
      if (got.length >= 'rest:later'.length) done();
    });
    // paused by endSmallReads: nothing is read until the socket is resumed
    server.resume();
  });
  await all;
  assert.equal(got, 'rest:later');
});
