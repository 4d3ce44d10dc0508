// Real brine processes for the benchmarks: a master from a generated config, `brine emulate`
// with its JSON stats stream, a real minion, and test.ping through the control socket or the CLI.

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { track } from './cleanup.mjs';
import { msSince, sleep } from './procfs.mjs';

export async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// JSON values are valid YAML, so a config file is one `key: <json>` line per option
export function writeConfig(file, settings) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(
    file,
    `${Object.entries(settings)
      .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
      .join('\n')}\n`,
  );
}

function canConnect(port) {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

export async function waitFor(fn, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(25);
  }
}

/** The last lines of a log file, for error messages. */
export function tail(file, lines = 15) {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/**
 * Environment for the master alone, from BENCH_MASTER_ENV (`NAME=value` pairs separated by spaces),
 * e.g. `BENCH_MASTER_ENV='LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2'`: an allocator or
 * malloc setting tried on the master without the emulator and the bench getting it too.
 */
function masterEnv() {
  const env = {};
  for (const pair of (process.env.BENCH_MASTER_ENV ?? '').split(' ')) {
    const eq = pair.indexOf('=');
    if (eq > 0) env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return env;
}

/** A master in `dir` (config, pki, cache, socket, log all inside) that can be killed and restarted. */
export class BenchMaster {
  constructor(build, dir, port, settings, nodeArgs = []) {
    this.build = build;
    this.nodeArgs = nodeArgs;
    this.dir = dir;
    this.port = port;
    this.configDir = path.join(dir, 'etc');
    this.sockPath = path.join(dir, 'run', 'master.sock');
    this.logFile = path.join(dir, 'master.log');
    this.child = undefined;
    writeConfig(path.join(this.configDir, 'master'), {
      root_dir: dir,
      pki_dir: path.join(dir, 'pki'),
      cachedir: path.join(dir, 'cache'),
      sock_dir: path.join(dir, 'run'),
      interface: '127.0.0.1',
      ret_port: port,
      auto_accept: true,
      log_level: 'warning',
      ...settings,
    });
  }

  get pid() {
    return this.child.pid;
  }

  /** Starts the master and resolves once its control socket exists and its port accepts. */
  async start(timeoutMs = 60_000) {
    fs.rmSync(this.sockPath, { force: true });
    const log = fs.openSync(this.logFile, 'a');
    this.child = track(
      spawn(process.execPath, [...this.nodeArgs, this.build.cli, 'master', '-c', this.configDir], { stdio: ['ignore', log, log], env: { ...process.env, ...masterEnv(), NO_COLOR: '1' } }),
    );
    fs.closeSync(log);
    const child = this.child;
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`the master exited with code ${child.exitCode}:\n${tail(this.logFile)}`);
        return fs.existsSync(this.sockPath) && (await canConnect(this.port));
      },
      timeoutMs,
      'the master to listen',
    );
  }

  kill(signal) {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      child.once('exit', () => resolve());
      child.kill(signal);
    });
  }

  /** Publishes test.ping over the control socket and times it until the master says done. */
  async pingRound(target, expected) {
    const { openControl } = await import(this.build.module('cli/control-client.js'));
    const conn = await openControl(this.sockPath);
    const t0 = process.hrtime.bigint();
    return new Promise((resolve, reject) => {
      let returns = 0;
      let trueReturns = 0;
      let publishedMs;
      conn.onMessage((m) => {
        if (m.t === 'published') publishedMs = msSince(t0);
        else if (m.t === 'ret') {
          returns++;
          if (m.ret === true) trueReturns++;
        } else if (m.t === 'done') {
          resolve({ ms: msSince(t0), publishedMs, returns, trueReturns, noResponse: m.noResponse.length, expected });
          conn.close('shutdown');
        } else if (m.t === 'error') reject(new Error(`publish failed: ${m.code}: ${m.message}`));
      });
      conn.onClose((info) => reject(new Error(`the control connection closed before the job finished (${info.reason})`)));
      conn.send({ t: 'publish', tgt: target, tgtType: 'glob', fun: 'test.ping', arg: [], kwarg: {}, timeout: 120, user: 'bench' });
    });
  }

  /** `brine run TARGET test.ping` as an operator types it: wall time and returns printed. */
  cliPing(target) {
    return new Promise((resolve, reject) => {
      const t0 = process.hrtime.bigint();
      const child = track(
        spawn(process.execPath, [this.build.cli, 'run', target, 'test.ping', '-c', this.configDir, '--out', 'json', '--out-indent', '-1', '-t', '120'], {
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, NO_COLOR: '1' },
        }),
      );
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (err += d));
      child.once('error', reject);
      child.once('exit', (code) => {
        const ms = msSince(t0);
        const returns = (out.match(/^\{"[^"]+": true\}$/gm) ?? []).length;
        resolve({ ms, code, returns, stderr: err.trim().slice(0, 500) });
      });
    });
  }
}

/**
 * `brine emulate` with `count` minions; `stats` is the latest JSON stats line and `history`
 * every line ({ at, total, ready, connects, drops, jobs, fatal }).
 */
export function startEmulator(build, opts) {
  const args = [
    build.cli,
    'emulate',
    '--master',
    `127.0.0.1:${opts.port}`,
    '--count',
    String(opts.count),
    '--prefix',
    opts.prefix,
    '--pki-dir',
    opts.pkiDir,
    '--ramp',
    String(opts.ramp),
    '--heartbeat-interval',
    String(opts.heartbeatInterval),
    '--heartbeat-timeout',
    String(opts.heartbeatTimeout),
    '--recon-default',
    String(opts.reconDefault),
    '--recon-max',
    String(opts.reconMax),
    '--auth-timeout',
    String(opts.authTimeout),
    '--stats-interval',
    '0.1',
    ...(opts.extraArgs ?? []),
  ];
  const log = fs.openSync(opts.logFile, 'a');
  const child = track(spawn(process.execPath, [...(opts.nodeArgs ?? []), ...args], { stdio: ['ignore', 'pipe', log], env: { ...process.env, NO_COLOR: '1' } }));
  fs.closeSync(log);
  const emu = { child, stats: undefined, history: [] };
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    try {
      const s = JSON.parse(line);
      emu.stats = s;
      emu.history.push(s);
    } catch {
      // not a stats line
    }
  });
  emu.waitUntil = (pred, timeoutMs, what) =>
    waitFor(
      () => {
        if (child.exitCode !== null) throw new Error(`the emulator exited with code ${child.exitCode}:\n${tail(opts.logFile)}`);
        return emu.stats !== undefined && pred(emu.stats);
      },
      timeoutMs,
      what,
    );
  return emu;
}
