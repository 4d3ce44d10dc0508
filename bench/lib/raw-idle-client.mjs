// The idle minion's floor (bench:minion-rss): a plain node:tls client with a client certificate
// holding one mutual TLS 1.3 connection and sending a 32 B heartbeat every few seconds, as an idle
// minion does. Spawned without an IPC channel (a forked child loads child_process and its pipe);
// it says "connected" on stdout once the handshake is done.

import * as fs from 'node:fs';
import * as tls from 'node:tls';
import { feed, message, HEARTBEAT } from './raw-frames.mjs';

const { port, keyFile, certFile, heartbeatMs } = JSON.parse(process.argv[2]);
const heartbeat = message(HEARTBEAT);
const state = { carry: undefined };
const socket = tls.connect({ host: '127.0.0.1', port, key: fs.readFileSync(keyFile), cert: fs.readFileSync(certFile), rejectUnauthorized: false, minVersion: 'TLSv1.3' });
socket.on('secureConnect', () => {
  process.stdout.write(`connected ${socket.getProtocol()}\n`);
  setInterval(() => socket.write(heartbeat), heartbeatMs);
});
socket.on('data', (chunk) => feed(state, chunk, () => {}));
socket.on('error', (err) => {
  process.stderr.write(`raw-idle-client: ${err.message}\n`);
  process.exit(1);
});
