// The floor of the emulated fleet state run, measured in the same run: a plain node:tls server
// and a client process holding N TLS 1.3 connections (Ed25519 certificates from brine's pki); one
// round = the job to all N, each connection's requests answered one after another with replies
// of brine's sizes, then its return. Time from the job to the last return, inside the server.

import { fork } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeForked, nextMessage, track } from './cleanup.mjs';
import { waitFor } from './brine-procs.mjs';
import { cpuSeconds } from './procfs.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

/** sizes: { job, requests: [bytes], replies: [bytes], ret } of one minion's state.apply. */
export async function rawStateRound(build, tmp, count, sizes) {
  const { loadOrCreateIdentity } = await import(build.module('pki/index.js'));
  const srvId = await loadOrCreateIdentity({ pkiDir: path.join(tmp, 'raw-state-server'), name: 'master', commonName: 'raw-server' });
  const cliId = await loadOrCreateIdentity({ pkiDir: path.join(tmp, 'raw-state-client'), name: 'minion', commonName: 'raw-client' });
  const server = track(
    fork(path.join(here, 'raw-state-server.mjs'), [JSON.stringify({ keyFile: srvId.paths.key, certFile: srvId.paths.cert, job: sizes.job, replies: sizes.replies })], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }),
  );
  let client;
  try {
    const { port } = await nextMessage(server, 'listening', 10_000, 'the raw TLS server to listen');
    client = track(
      fork(path.join(here, 'raw-state-client.mjs'), [JSON.stringify({ port, count, keyFile: cliId.paths.key, certFile: cliId.paths.cert, requests: sizes.requests, ret: sizes.ret })], {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      }),
    );
    await nextMessage(client, 'connected', 300_000, `the raw client to open ${count} connections`);
    // the client's handshake may finish before the server's: wait until the server holds all
    await waitFor(
      async () => {
        server.send({ t: 'count' });
        return (await nextMessage(server, 'count', 10_000, 'the raw server connection count')).n === count;
      },
      60_000,
      `the raw server to hold ${count} connections`,
    );
    const cpu0 = cpuSeconds(server.pid);
    server.send({ t: 'go' });
    const r = await nextMessage(server, 'round', 300_000, 'the raw state round');
    return { ms: r.ms, returns: r.returns, serverCpuSeconds: cpuSeconds(server.pid) - cpu0 };
  } finally {
    await closeForked(server);
    await closeForked(client);
  }
}
