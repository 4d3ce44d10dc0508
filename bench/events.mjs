// Events benchmark (issue 25 point 1): a real master with N emulated minions; a `test.ping`
// round's Salt events (the bare <jid>, salt/job/<jid>/new and N salt/job/<jid>/ret/<id>) followed
// at the same time by `brine events` (a child process, its stdout a pipe) and by the REST API's
// /events stream (HTTPS server-sent events). Raw floors in the same run: the very bytes each
// consumer received, written by a bare Node process to a pipe, and by a bare Node HTTPS server as
// one SSE write per event.

import * as fs from 'node:fs';
import * as https from 'node:https';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { parseFlags, resolveBuild } from './lib/args.mjs';
import { stopChild, tempDir, track } from './lib/cleanup.mjs';
import { BenchMaster, freePort, startEmulator, waitFor } from './lib/brine-procs.mjs';
import { ensureFdLimit } from './lib/fd-limit.mjs';
import { msSince } from './lib/procfs.mjs';
import { printReport, progress, ratio, secs, showRatio } from './lib/report.mjs';

const USAGE = `usage: npm run bench:events -- [--counts 1000,10000] [--rounds 3] [--build-dir DIR]
  --counts LIST  emulated minion counts (default 1000,10000)
  --rounds N     test.ping rounds per count; the median is reported (default 3)
  --build-dir D  compiled tree to run (default dist)`;
const f = parseFlags(process.argv.slice(2), { counts: '1000,10000', rounds: 3, buildDir: 'dist' }, USAGE);
const counts = String(f.counts)
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
ensureFdLimit(Math.max(...counts) + 1024);

// {SHA} of "bench" (htpasswd -s): the API user that follows /events
const HTPASSWD = 'bench:{SHA}5cicUp3MubQnFvTZEY1hB5yIPZ4=\n';
const RET = /^salt\/job\/\d+\/ret\//;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** An SSE reader: events by tag, with the arrival time of each, and the raw bytes. */
function readSse(res, sink) {
  let buf = '';
  res.setEncoding('utf8');
  res.on('data', (d) => {
    buf += d;
    let i = buf.indexOf('\n\n');
    while (i >= 0) {
      const block = buf.slice(0, i + 2);
      buf = buf.slice(i + 2);
      const tag = /^tag: (.*)$/m.exec(block)?.[1];
      if (tag !== undefined) sink(tag, block);
      i = buf.indexOf('\n\n');
    }
  });
}

function request(port, ca, method, urlPath, headers, body) {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path: urlPath, method, headers, ca, agent: false }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A consumer's view of one round: when each ret arrived, and the bytes of the round's events. */
class Consumer {
  constructor(name) {
    this.name = name;
    this.recording = false;
    this.rets = 0;
    this.bytes = [];
    this.lastAt = 0n;
    this.seen = new Set();
  }
  start() {
    this.recording = true;
    this.rets = 0;
    this.bytes = [];
  }
  take(tag, chunk) {
    this.seen.add(tag);
    if (!this.recording) return;
    this.bytes.push(chunk);
    if (RET.test(tag)) {
      this.rets++;
      this.lastAt = process.hrtime.bigint();
    }
  }
}

/** The raw pipe floor: a bare node process writes these lines, one write each, to its stdout. */
async function rawPipe(lines) {
  const file = path.join(tmp, 'raw-lines.json');
  fs.writeFileSync(file, JSON.stringify(lines));
  const code = `const l=JSON.parse(require('fs').readFileSync(${JSON.stringify(file)},'utf8'));process.stdin.once('data',()=>{for(const x of l)process.stdout.write(x);process.stdout.end()})`;
  const child = track(spawn(process.execPath, ['-e', code], { stdio: ['pipe', 'pipe', 'inherit'] }));
  const total = lines.reduce((n, l) => n + Buffer.byteLength(l), 0);
  let got = 0;
  // timed from the first byte: the bare process's start-up is not the pipe's cost
  let t0;
  const done = new Promise((resolve) => child.stdout.on('end', resolve));
  child.stdout.on('data', (d) => {
    t0 ??= process.hrtime.bigint();
    got += d.length;
  });
  child.stdin.end('go\n');
  await done;
  if (got !== total) throw new Error(`raw pipe: ${got} of ${total} bytes`);
  return msSince(t0);
}

/** The raw SSE floor: a bare node HTTPS server writes these blocks, one write each, to one client. */
async function rawSse(blocks, cert, key, ca) {
  const server = https.createServer({ cert, key }, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const b of blocks) res.write(b);
    res.end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  try {
    let n = 0;
    // timed from the response's start: brine's stream is connected before the round too
    let t0;
    await new Promise((resolve, reject) => {
      const req = https.get({ host: '127.0.0.1', port, path: '/', ca, agent: false }, (res) => {
        t0 = process.hrtime.bigint();
        readSse(res, () => n++);
        res.on('end', resolve);
      });
      req.on('error', reject);
    });
    if (n !== blocks.length) throw new Error(`raw SSE: ${n} of ${blocks.length} events`);
    return msSince(t0);
  } finally {
    server.close();
  }
}

const tmp = tempDir('brine-bench-events-');

async function fleet(build, n) {
  const dir = path.join(tmp, `master-${n}`);
  const htpasswd = path.join(tmp, 'htpasswd');
  fs.writeFileSync(htpasswd, HTPASSWD, { mode: 0o600 });
  const port = await freePort();
  const apiPort = await freePort();
  const master = new BenchMaster(build, dir, port, {
    auth_rate: 1000,
    auth_rate_per_source: 1000,
    preauth_max_connections_per_source: 0,
    preauth_max_connections: 0,
    api: { port: apiPort, webhook_url: '/hook' },
    external_auth: { file: { '^filename': htpasswd, '^filetype': 'htpasswd', bench: ['.*', '@runner'] } },
  });
  let emu;
  let cliChild;
  let sseReq;
  try {
    await master.start();
    const ca = fs.readFileSync(path.join(dir, 'pki', 'api.crt'));
    progress(`N=${n}: ${n} emulated minions sign in`);
    emu = startEmulator(build, {
      port,
      count: n,
      prefix: 'emu-',
      pkiDir: path.join(tmp, 'emulator-pki'),
      ramp: 500,
      heartbeatInterval: 10,
      heartbeatTimeout: 30,
      reconDefault: 1000,
      reconMax: 10000,
      authTimeout: 10,
      logFile: path.join(tmp, `emulator-${n}.log`),
    });
    // sign-ins are paced by the master under load (about 15/s at a load average of 20 on 2 cores)
    await emu.waitUntil((s) => s.ready === n, 120_000 + n * 150, `${n} emulated minions ready`);
    const login = await request(apiPort, ca, 'POST', '/login', { 'content-type': 'application/json' }, JSON.stringify({ username: 'bench', password: 'bench', eauth: 'file' }));
    if (login.status !== 200) throw new Error(`login: ${login.status} ${login.text}`);
    const token = JSON.parse(login.text).return[0].token;
    // the two consumers
    const cli = new Consumer('brine events');
    cliChild = track(spawn(process.execPath, [build.cli, 'events', '-c', master.configDir], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, NO_COLOR: '1' } }));
    let partial = '';
    cliChild.stdout.setEncoding('utf8');
    cliChild.stdout.on('data', (d) => {
      const parts = (partial + d).split('\n');
      partial = parts.pop();
      for (const line of parts) cli.take(line.slice(0, line.indexOf('\t')), `${line}\n`);
    });
    const sse = new Consumer('/events');
    await new Promise((resolve, reject) => {
      sseReq = https.get({ host: '127.0.0.1', port: apiPort, path: '/events', headers: { 'x-auth-token': token }, ca, agent: false }, (res) => {
        readSse(res, (tag, block) => sse.take(tag, block));
        resolve();
      });
      sseReq.on('error', reject);
    });
    // both are subscribed once a hook fired after they opened reaches them
    let probe = 0;
    await waitFor(
      async () => {
        probe++;
        await request(apiPort, ca, 'POST', `/hook/ready/${probe}`, { 'x-auth-token': token, 'content-type': 'application/json' }, '{}');
        await new Promise((r) => setTimeout(r, 200));
        return cli.seen.has(`salt/netapi/hook/ready/${probe}`) && sse.seen.has(`salt/netapi/hook/ready/${probe}`);
      },
      30_000,
      'both consumers to be subscribed',
    );
    const rounds = [];
    for (let r = 0; r < f.rounds; r++) {
      progress(`N=${n}: test.ping round ${r + 1}/${f.rounds}`);
      cli.start();
      sse.start();
      const t0 = process.hrtime.bigint();
      const ping = await master.pingRound('emu-*', n);
      if (ping.returns !== n) throw new Error(`round ${r + 1}: ${ping.returns} of ${n} returns`);
      await waitFor(() => cli.rets >= n && sse.rets >= n, 120_000, `${n} returns on both consumers (cli ${cli.rets}, sse ${sse.rets})`);
      const cliMs = Number(cli.lastAt - t0) / 1e6;
      const sseMs = Number(sse.lastAt - t0) / 1e6;
      // the round's own events: the bare <jid>, new, N rets (others, e.g. auth, are not counted)
      const events = n + 2;
      rounds.push({ masterDoneMs: ping.ms, cliMs, sseMs, events, cliBytes: [...cli.bytes], sseBlocks: [...sse.bytes] });
      cli.recording = false;
      sse.recording = false;
    }
    const mid = rounds.slice().sort((a, b) => a.cliMs - b.cliMs)[Math.floor(rounds.length / 2)];
    progress(`N=${n}: raw floors with the same bytes`);
    const rawPipeMs = median([await rawPipe(mid.cliBytes), await rawPipe(mid.cliBytes), await rawPipe(mid.cliBytes)]);
    const cert = fs.readFileSync(path.join(dir, 'pki', 'api.crt'));
    const key = fs.readFileSync(path.join(dir, 'pki', 'api.pem'));
    const rawSseMs = median([await rawSse(mid.sseBlocks, cert, key, ca), await rawSse(mid.sseBlocks, cert, key, ca), await rawSse(mid.sseBlocks, cert, key, ca)]);
    const eps = (events, ms) => (events * 1000) / ms;
    return {
      n,
      rounds: rounds.map(({ cliBytes, sseBlocks, ...r }) => ({ ...r, cliKiB: cliBytes.join('').length / 1024 })),
      masterDoneMs: median(rounds.map((r) => r.masterDoneMs)),
      cliMs: median(rounds.map((r) => r.cliMs)),
      sseMs: median(rounds.map((r) => r.sseMs)),
      cliEps: eps(n + 2, median(rounds.map((r) => r.cliMs))),
      sseEps: eps(n + 2, median(rounds.map((r) => r.sseMs))),
      rawPipeMs,
      rawSseMs,
      rawPipeEps: eps(mid.cliBytes.length, rawPipeMs),
      rawSseEps: eps(mid.sseBlocks.length, rawSseMs),
      bytesPerEvent: Math.round(mid.cliBytes.join('').length / mid.cliBytes.length),
    };
  } finally {
    sseReq?.destroy();
    if (cliChild) await stopChild(cliChild);
    if (emu) await stopChild(emu.child);
    if (master.child) await stopChild(master.child);
  }
}

async function main() {
  const build = resolveBuild(f.buildDir);
  const runs = [];
  const failed = [];
  for (const n of counts) {
    // a count that cannot finish (a loaded machine signing 10k in slowly) leaves the others' figures
    try {
      runs.push(await fleet(build, n));
    } catch (err) {
      failed.push({ n, error: err instanceof Error ? err.message : String(err) });
      progress(`N=${n} failed: ${failed.at(-1).error}`);
    }
  }
  if (runs.length === 0) throw new Error(`every count failed: ${JSON.stringify(failed)}`);
  const sections = runs.map((r) => [
    `real master, ${r.n} emulated minions, test.ping round (${r.n + 2} Salt events, ~${r.bytesPerEvent} B each on brine events; median of ${r.rounds.length})`,
    [
      `master: publish -> done (all returns stored): ${secs(r.masterDoneMs)}`,
      `brine events: last return printed ${secs(r.cliMs)} after the publish = ${r.cliEps.toFixed(0)} events/s; raw floor (the same lines written to a pipe by bare node) ${r.rawPipeEps.toFixed(0)} events/s (${secs(r.rawPipeMs)}); ratio ${showRatio(ratio(r.rawPipeEps, r.cliEps))}`,
      `/events (SSE): last return received ${secs(r.sseMs)} after the publish = ${r.sseEps.toFixed(0)} events/s; raw floor (the same SSE blocks from a bare node HTTPS server) ${r.rawSseEps.toFixed(0)} events/s (${secs(r.rawSseMs)}); ratio ${showRatio(ratio(r.rawSseEps, r.sseEps))}`,
      `consumers trail the master's done by ${secs(Math.max(0, r.cliMs - r.masterDoneMs))} (brine events) and ${secs(Math.max(0, r.sseMs - r.masterDoneMs))} (/events)`,
    ],
  ]);
  for (const x of failed) sections.push([`${x.n} emulated minions`, [`not measured: ${x.error}`]]);
  printReport('bench:events', sections, { runs, failed });
  if (failed.length > 0) process.exitCode = 1;
}

main().catch((err) => {
  process.stderr.write(`bench:events failed: ${err instanceof Error ? err.stack : err}\n`);
  process.exitCode = 1;
});
