// Issue 27 point 5 with real nats-server and real nats.js: after a server's loss at 10,000
// emulated minions, most of its share stayed disconnected for minutes. The surviving servers had
// closed ~2 connections per missing minion as "Authentication Timeout" (their /connz of closed
// connections): the CONNECTs of a whole share reconnecting at once arrived after nats-server's
// 2 s default, nats.js types that reply as an AuthorizationError and gives up on a connection after
// two in a row. brine's server config now gives clients 10 s, and the minion link reads the
// timeout as a slow handshake (redial with the same JWT), not as revoked credentials.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { AuthorizationError, connect } from '@nats-io/transport-node';
import { Proc } from '../helpers/cluster.js';
import { NATS_SERVER, natsSkip, startNats, type NatsFixture } from '../helpers/nats.js';
import { freePort } from '../helpers/ports.js';
import { DEFAULT_AUTH_TIMEOUT_S, isNatsAuthError, isNatsAuthTimeout } from '../../src/nats/index.js';

/** A TCP relay that holds every client->server chunk for `delayMs` (a client too slow to authenticate). */
function slowRelay(upstreamPort: number, delayMs: number): Promise<{ port: number; close(): void }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(upstreamPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    upstream.pipe(client);
    client.on('data', (chunk) => setTimeout(() => upstream.writable && upstream.write(chunk), delayMs));
    upstream.on('close', () => client.destroy());
    client.on('close', () => upstream.destroy());
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      resolve({
        port,
        close: () => {
          for (const s of sockets) s.destroy();
          server.close();
        },
      });
    });
  });
}

describe('NATS authorization timeout (issue 27 point 5)', { skip: natsSkip('the NATS authorization timeout tests') }, () => {
  let nats: NatsFixture;

  before(async () => {
    nats = await startNats(1);
  });
  after(async () => {
    await nats?.cleanup();
  });

  it(`brine nats server-config gives clients ${DEFAULT_AUTH_TIMEOUT_S} s to authenticate, and nats-server applies it`, async () => {
    const varz = (await (await fetch(`http://127.0.0.1:${nats.nodes[0]!.monitor}/varz`)).json()) as { auth_timeout: number };
    // nats-server's own default is 2 s: the figure that refused a lost server's share
    assert.equal(varz.auth_timeout, DEFAULT_AUTH_TIMEOUT_S);
    assert.ok(DEFAULT_AUTH_TIMEOUT_S > 5, "longer than a minion's connect timeout (auth_timeout, 5 s) and the TLS timeout (5 s)");
  });

  it("a CONNECT later than the server's timeout: nats.js rejects with an AuthorizationError 'Authentication Timeout', which the link does not take for a refusal", async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-nats-authto-'));
    const port = await freePort();
    const conf = path.join(dir, 'nats.conf');
    // the smallest server that times authentication out: a user, and 0.3 s to present it
    fs.writeFileSync(conf, `listen: "127.0.0.1:${port}"\nauthorization: {\n  user: "u"\n  password: "p"\n  timeout: 0.3\n}\n`);
    const server = new Proc('nats-server (auth timeout 0.3 s)', spawn(NATS_SERVER, ['-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] }));
    const relay = await slowRelay(port, 800);
    t.after(async () => {
      relay.close();
      await server.kill('SIGTERM');
      fs.rmSync(dir, { recursive: true, force: true });
    });
    await server.waitForOutput(/Server is ready/, 30_000);
    const err = await connect({ servers: `nats://127.0.0.1:${relay.port}`, user: 'u', pass: 'p', timeout: 5_000, reconnect: false }).then(
      async (nc) => {
        await nc.close();
        return undefined;
      },
      (e: unknown) => e,
    );
    assert.ok(err instanceof AuthorizationError, `nats.js's error: ${String(err)}`);
    assert.match(err.message, /authentication timeout/i);
    assert.equal(isNatsAuthTimeout(err), true);
    assert.equal(isNatsAuthError(err), false, 'read as revoked credentials: the minion would sign in again');
    // the same credentials without the delay are accepted: the timeout was about time only
    const nc = await connect({ servers: `nats://127.0.0.1:${port}`, user: 'u', pass: 'p', timeout: 5_000, reconnect: false });
    await nc.close();
  });
});
