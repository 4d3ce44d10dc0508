// Raw baseline, server side (a child process driven over IPC): a plain node:tls TLS 1.3 server
// with mutual certificates, answering heartbeats and timing "write 256 B to all, collect 64 B".

import * as fs from 'node:fs';
import * as tls from 'node:tls';
import { feed, message, HEARTBEAT, JOB, PONG, REPLY } from './raw-frames.mjs';

const { keyFile, certFile } = JSON.parse(process.argv[2]);
const sockets = new Set();
const pong = message(PONG);
const job = message(JOB);
let round; // { t0, waiting, replies, done }

const server = tls.createServer({ key: fs.readFileSync(keyFile), cert: fs.readFileSync(certFile), minVersion: 'TLSv1.3', requestCert: true, rejectUnauthorized: false }, (socket) => {
  const state = { carry: undefined };
  sockets.add(socket);
  socket.on('data', (chunk) =>
    feed(state, chunk, (tag) => {
      if (tag === HEARTBEAT) socket.write(pong);
      else if (tag === REPLY && round) {
        round.replies++;
        if (round.replies === round.waiting) round.done();
      }
    }),
  );
  socket.on('error', () => {});
  socket.on('close', () => sockets.delete(socket));
});
server.on('tlsClientError', () => {});

process.on('message', (cmd) => {
  if (cmd.t === 'count') process.send({ t: 'count', n: sockets.size });
  else if (cmd.t === 'round') {
    const t0 = process.hrtime.bigint();
    round = { t0, waiting: sockets.size, replies: 0 };
    round.done = () => {
      process.send({ t: 'round', ms: Number(process.hrtime.bigint() - t0) / 1e6, replies: round.replies, sent: round.waiting });
      round = undefined;
    };
    for (const s of sockets) s.write(job);
  } else if (cmd.t === 'close') {
    // the server closes first, so TIME_WAIT lands on its port and not on the client's ephemeral ones
    for (const s of sockets) s.destroy();
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 2000).unref();
  }
});

server.listen(0, '127.0.0.1', () => process.send({ t: 'listening', port: server.address().port }));
