// Raw floor of the emulated fleet state run, server side (forked, driven over IPC): a node:tls
// TLS 1.3 server with mutual certificates. 'go' writes the job to every connection; each request
// frame is answered with a reply of the size brine's reply had (file bytes held in memory: the
// floor reads no disk); time from 'go' until every connection's return arrived.
// argv[2]: { keyFile, certFile, job, replies: [bytes...] }

import * as fs from 'node:fs';
import * as tls from 'node:tls';
import { feed, frame, JOB, REP, REQ, RET } from './raw-state-frames.mjs';

const { keyFile, certFile, job, replies } = JSON.parse(process.argv[2]);
const replyFrames = replies.map((size, i) => frame(REP, size, i));
const jobFrame = frame(JOB, job);
const sockets = new Set();
let round;

const server = tls.createServer({ key: fs.readFileSync(keyFile), cert: fs.readFileSync(certFile), minVersion: 'TLSv1.3', requestCert: true, rejectUnauthorized: false }, (socket) => {
  const state = { carry: undefined };
  sockets.add(socket);
  socket.on('data', (chunk) =>
    feed(state, chunk, (tag, index) => {
      if (tag === REQ) socket.write(replyFrames[index]);
      else if (tag === RET && round && ++round.returns === round.waiting) {
        process.send({ t: 'round', ms: Number(process.hrtime.bigint() - round.t0) / 1e6, returns: round.returns });
        round = undefined;
      }
    }),
  );
  socket.on('error', () => {});
  socket.on('close', () => sockets.delete(socket));
});
server.on('tlsClientError', () => {});

process.on('message', (cmd) => {
  if (cmd.t === 'count') process.send({ t: 'count', n: sockets.size });
  else if (cmd.t === 'go') {
    round = { t0: process.hrtime.bigint(), waiting: sockets.size, returns: 0 };
    for (const s of sockets) s.write(jobFrame);
  } else if (cmd.t === 'close') {
    for (const s of sockets) s.destroy();
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 2000).unref();
  }
});

server.listen(0, '127.0.0.1', () => process.send({ t: 'listening', port: server.address().port }));
