// Issue 27 (master memory per minion): the master's first TLS flight must be at least as big as
// the two session tickets OpenSSL writes after a full handshake, or Node's TLS socket keeps a
// 16 KiB overflow buffer per connection for its whole life (src/transport/first-flight.ts).
// Measured on the wire through a loopback proxy between a real dialer and a real listener.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadOrCreateIdentity, type Identity } from '../../../src/pki/index.js';
import { waitUntil } from '../../helpers/wait.js';
import { ticketDial, ticketListener } from './helpers.js';

let dir: string;
let master: Identity;
let minion: Identity;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'brine-flight-'));
  master = await loadOrCreateIdentity({ pkiDir: join(dir, 'master'), name: 'master', commonName: 'salt' });
  // a realistic FQDN: the minion's certificate (inside every ticket) grows with its ID
  minion = await loadOrCreateIdentity({ pkiDir: join(dir, 'minion'), name: 'minion', commonName: 'web01.eu-west-1.prod.example.com' });
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** Sizes of the complete TLS records in `buf` (5-byte header + body). */
function recordSizes(buf: Buffer): number[] {
  const out: number[] = [];
  for (let i = 0; i + 5 <= buf.length; ) {
    const len = buf.readUInt16BE(i + 3);
    if (i + 5 + len > buf.length) break;
    out.push(5 + len);
    i += 5 + len;
  }
  return out;
}

interface Wire {
  port: number;
  /** Bytes the master sent before the minion's second flight (its certificate and Finished). */
  firstFlight(): number;
  /** Bytes the master sent after it (the session tickets; nothing else is sent in this test). */
  afterHandshake(): number[];
}

/** A loopback proxy that splits the master's bytes at the minion's second flight. */
async function proxyTo(t: import('node:test').TestContext, target: number): Promise<Wire> {
  let up = Buffer.alloc(0);
  let down = Buffer.alloc(0);
  let flightEnd = -1;
  const server = net.createServer((c) => {
    const u = net.connect(target, '127.0.0.1');
    c.on('data', (d: Buffer) => {
      up = Buffer.concat([up, d]);
      // the ClientHello is the minion's first record: anything after it is the second flight
      if (flightEnd < 0 && recordSizes(up).length > 1) flightEnd = down.length;
      u.write(d);
    });
    u.on('data', (d: Buffer) => {
      down = Buffer.concat([down, d]);
      c.write(d);
    });
    c.on('error', () => undefined);
    u.on('error', () => undefined);
    c.on('close', () => u.destroy());
    u.on('close', () => c.destroy());
    t.after(() => {
      c.destroy();
      u.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    port: (server.address() as net.AddressInfo).port,
    firstFlight: () => flightEnd,
    afterHandshake: () => recordSizes(down.subarray(flightEnd)),
  };
}

test('the first flight of a full handshake holds both session tickets that follow it (issue 27)', async (t) => {
  const listener = await ticketListener(t, master, randomBytes(48));
  const wire = await proxyTo(t, listener.port);
  const { sessions, resumed } = await ticketDial(t, minion, wire.port);
  await waitUntil(() => sessions.length === 2, 3_000, 'two session tickets');
  const tickets = wire.afterHandshake();
  assert.equal(tickets.length, 2, `two ticket records after the handshake, got ${tickets.join('+')}`);
  const ticketBytes = tickets[0]! + tickets[1]!;
  // without the filler the flight is ~700 B and two tickets of this minion ~1,150 B: a broken
  // listener fails here (and the 1 KiB first buffer of Node's TLS socket overflows)
  assert.ok(ticketBytes > 1024, `the tickets (${ticketBytes} B) are bigger than Node's 1 KiB first buffer, so this test can tell`);
  assert.ok(wire.firstFlight() >= ticketBytes, `first flight ${wire.firstFlight()} B >= tickets ${ticketBytes} B`);
  assert.equal(resumed, false);
});
