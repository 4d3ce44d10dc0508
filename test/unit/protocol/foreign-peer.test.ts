// Issue 26: a peer that is not brine is named from its first bytes, also when they arrive one at
// a time, and a real oversized frame is still FRAME_TOO_LARGE.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FrameDecoder, recogniseForeignPeer } from '../../../src/protocol/index.js';
import { isBrineError } from '../../../src/util/errors.js';

test('recogniseForeignPeer: HTTP server and client, NATS, SSH, SMTP; not a brine frame', () => {
  const cases: Array<[string, string | undefined]> = [
    ['HTTP/1.1 400 Bad Request\r\n', 'http_server'],
    ['<!DOCTYPE HTML>\n<html>', 'http_server'],
    ['GET / HTTP/1.1\r\n', 'http_client'],
    ['INFO {"server_id":"x"}\r\n', 'nats'],
    ['SSH-2.0-OpenSSH_9.2\r\n', 'ssh'],
    ['220 mail ESMTP\r\n', 'smtp'],
    ['\u0000\u0000\u0000\u0010{"t":"hello"}', undefined],
  ];
  for (const [text, kind] of cases) assert.equal(recogniseForeignPeer(Buffer.from(text, 'latin1')), kind, text);
});

test('the decoder names an HTTP server instead of a frame of 1213486160 bytes, fed byte by byte', () => {
  const d = new FrameDecoder(65_536);
  const bytes = Buffer.from('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
  let err: unknown;
  try {
    for (const b of bytes) d.push(Buffer.from([b]));
  } catch (e) {
    err = e;
  }
  assert.ok(isBrineError(err, 'PEER_NOT_BRINE'), String(err));
  assert.match((err as Error).message, /^the peer speaks another protocol: it sent "HTTP\/1\.1 400 Bad Request", as an HTTP server/);
  assert.doesNotMatch((err as Error).message, /1213486160/);
});

test('the decoder names a NATS server; an oversized binary frame stays FRAME_TOO_LARGE', () => {
  assert.throws(
    () => new FrameDecoder(1024).push(Buffer.from('INFO {"server_id":"N"} \r\n')),
    (e: unknown) => isBrineError(e, 'PEER_NOT_BRINE') && /NATS server/.test((e as Error).message),
  );
  const big = Buffer.alloc(8);
  big.writeUInt32BE(0x7fff_0000, 0);
  assert.throws(
    () => new FrameDecoder(1024).push(big),
    (e: unknown) => isBrineError(e, 'FRAME_TOO_LARGE'),
  );
});
