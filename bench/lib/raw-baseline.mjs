// The raw floor measured in the same run: a plain node:tls server and a client process holding
// N TLS 1.3 connections (Ed25519 certificates from brine's pki), same heartbeat schedule as brine.

import { fork } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeForked, nextMessage, track } from './cleanup.mjs';
import { cpuSeconds, idleWindow, median, msSince, sleep } from './procfs.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * opts: { count, heartbeatMs, idleMs, rounds, tmp, build, log }. Returns server RSS per
 * connection, idle CPU of both processes, and the ping-round times.
 */
export async function runRawBaseline(opts) {
  const { loadOrCreateIdentity } = await import(opts.build.module('pki/index.js'));
  const srvId = await loadOrCreateIdentity({ pkiDir: path.join(opts.tmp, 'raw-server'), name: 'master', commonName: 'raw-server' });
  const cliId = await loadOrCreateIdentity({ pkiDir: path.join(opts.tmp, 'raw-client'), name: 'minion', commonName: 'raw-client' });

  const server = track(fork(path.join(here, 'raw-tls-server.mjs'), [JSON.stringify({ keyFile: srvId.paths.key, certFile: srvId.paths.cert })], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  let client;
  try {
    const { port } = await nextMessage(server, 'listening', 10_000, 'the raw TLS server to listen');
    const [{ rssKb: idleRss }] = await idleWindow([server.pid], 2000);
    const t0 = process.hrtime.bigint();
    client = track(
      fork(path.join(here, 'raw-tls-client.mjs'), [JSON.stringify({ port, count: opts.count, keyFile: cliId.paths.key, certFile: cliId.paths.cert, heartbeatMs: opts.heartbeatMs, concurrency: 64 })], {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      }),
    );
    const connected = await nextMessage(client, 'connected', 300_000, `the raw client to open ${opts.count} connections`);
    const connectMs = msSince(t0);
    opts.log(`raw: ${opts.count} TLS connections open in ${(connectMs / 1000).toFixed(1)} s (${connected.failures} retried)`);
    await sleep(2000);
    server.send({ t: 'count' });
    const { n } = await nextMessage(server, 'count', 10_000, 'the raw server connection count');
    opts.log(`raw: measuring idle CPU and RSS for ${opts.idleMs / 1000} s`);
    const [srv, cli] = await idleWindow([server.pid, client.pid], opts.idleMs);
    const rss = srv.rssKb;
    const rounds = [];
    // CPU of each process per round (utime + stime, 10 ms ticks), to set against brine's master and emulator
    const roundsCpuS = [];
    for (let i = 0; i < opts.rounds; i++) {
      const [s0, c0] = [cpuSeconds(server.pid), cpuSeconds(client.pid)];
      server.send({ t: 'round' });
      const r = await nextMessage(server, 'round', 60_000, 'a raw ping round');
      if (r.replies !== opts.count) throw new Error(`raw round got ${r.replies} replies of ${opts.count}`);
      rounds.push(r.ms);
      roundsCpuS.push({ server: Math.round((cpuSeconds(server.pid) - s0) * 100) / 100, client: Math.round((cpuSeconds(client.pid) - c0) * 100) / 100 });
      await sleep(300);
    }
    return {
      connections: n,
      connectMs,
      idleRssKb: idleRss,
      rssKb: rss,
      perConnBytes: ((rss - idleRss) * 1024) / n,
      clientRssKb: cli.rssKb,
      idleCpuPct: srv.cpuPct,
      clientIdleCpuPct: cli.cpuPct,
      roundsMs: rounds,
      roundsCpuS,
      roundMs: median(rounds),
    };
  } finally {
    await closeForked(server);
    await closeForked(client);
  }
}
