// Raw floor of the emulated fleet state run, client side (forked): N TLS 1.3 connections; on
// the job frame each sends its requests one after another (the sizes brine's requests had),
// waiting for each reply as the minion's caching client does, then a return of brine's size.
// argv[2]: { port, count, keyFile, certFile, requests: [bytes...], ret }

import * as fs from 'node:fs';
import * as tls from 'node:tls';
import { feed, frame, JOB, REP, REQ, RET } from './raw-state-frames.mjs';

const { port, count, keyFile, certFile, requests, ret } = JSON.parse(process.argv[2]);
const context = tls.createSecureContext({ key: fs.readFileSync(keyFile), cert: fs.readFileSync(certFile), minVersion: 'TLSv1.3' });
const requestFrames = requests.map((size, i) => frame(REQ, size, i));
const retFrame = frame(RET, ret);
const sockets = new Set();
let connected = 0;

function connectOne() {
  const socket = tls.connect({ host: '127.0.0.1', port, secureContext: context, rejectUnauthorized: false, minVersion: 'TLSv1.3' });
  const state = { carry: undefined };
  const step = (i) => socket.write(i < requestFrames.length ? requestFrames[i] : retFrame);
  socket.on('secureConnect', () => {
    sockets.add(socket);
    if (++connected === count) process.send({ t: 'connected', n: connected });
    else if (connected + 63 < count) connectOne();
  });
  socket.on('data', (chunk) =>
    feed(state, chunk, (tag, index) => {
      if (tag === JOB) step(0);
      else if (tag === REP) step(index + 1);
    }),
  );
  socket.on('error', () => {});
}

process.on('message', (cmd) => {
  if (cmd.t === 'close') {
    for (const s of sockets) s.destroy();
    setTimeout(() => process.exit(0), 200);
  }
});

for (let i = 0; i < Math.min(64, count); i++) connectOne();
