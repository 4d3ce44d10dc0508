// Raw baseline, client side (a child process driven over IPC): holds N TLS 1.3 connections with
// one shared client certificate, sends a 32 B heartbeat per connection per interval, and answers
// every 256 B job with a 64 B reply.

import * as fs from 'node:fs';
import * as tls from 'node:tls';
import { feed, message, HEARTBEAT, JOB, REPLY } from './raw-frames.mjs';

const { port, count, keyFile, certFile, heartbeatMs, concurrency } = JSON.parse(process.argv[2]);
const context = tls.createSecureContext({ key: fs.readFileSync(keyFile), cert: fs.readFileSync(certFile), minVersion: 'TLSv1.3' });
const reply = message(REPLY);
const heartbeat = message(HEARTBEAT);
const sockets = new Set();
const timers = [];
let started = 0;
let connected = 0;
let failures = 0;

function heartbeatLoop(socket) {
  // spread the first beat over one interval, as connections made over time would be
  const first = setTimeout(() => {
    socket.write(heartbeat);
    timers.push(setInterval(() => socket.write(heartbeat), heartbeatMs));
  }, Math.random() * heartbeatMs);
  timers.push(first);
}

function connectOne() {
  started++;
  const socket = tls.connect({ host: '127.0.0.1', port, secureContext: context, rejectUnauthorized: false, minVersion: 'TLSv1.3' });
  const state = { carry: undefined };
  let up = false;
  socket.on('secureConnect', () => {
    up = true;
    sockets.add(socket);
    connected++;
    if (heartbeatMs > 0) heartbeatLoop(socket);
    if (connected === count) process.send({ t: 'connected', n: connected, failures });
    else if (started < count) connectOne();
  });
  socket.on('data', (chunk) => feed(state, chunk, (tag) => tag === JOB && socket.write(reply)));
  socket.on('error', () => {});
  socket.on('close', () => {
    sockets.delete(socket);
    if (!up) {
      failures++;
      started--;
      setTimeout(connectOne, 100);
    }
  });
}

process.on('message', (cmd) => {
  if (cmd.t === 'close') {
    for (const t of timers) clearTimeout(t);
    for (const s of sockets) s.destroy();
    setTimeout(() => process.exit(0), 200);
  }
});

for (let i = 0; i < Math.min(concurrency, count); i++) connectOne();
