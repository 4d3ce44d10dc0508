// Processes of bench/nats.mjs: a 3-node nats-server cluster configured by the real
// `brine nats server-config` (as test/helpers/nats.ts does), brine masters with
// `transport: nats`, the emulated minions' identities (keys written into the masters' key
// stores as accepted, user JWTs issued with a master's key), and groups of forked emulator
// processes whose stats are summed.

import { execFileSync, fork, spawn } from 'node:child_process';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { nextMessage, stopChild, track } from './cleanup.mjs';
import { BenchMaster, freePort, tail, waitFor } from './brine-procs.mjs';
import { sleep } from './procfs.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const NATS_SERVER = process.env.BRINE_NATS_SERVER ?? '/usr/sbin/nats-server';

/** Runs the brine CLI to its end; rejects with its output on a non-zero exit. */
export function runBrine(build, args, timeoutMs = 60_000) {
  return new Promise((resolve, reject) => {
    const child = track(spawn(process.execPath, [build.cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } }));
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`brine ${args.join(' ')} exited ${code}: ${err.trim().slice(0, 2000)}`));
    });
  });
}

async function getJson(url) {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return res.json();
}

/** One nats-server of the cluster. */
class NatsNode {
  constructor(name, dir, ports) {
    this.name = name;
    this.dir = dir;
    this.ports = ports;
    this.url = `nats://127.0.0.1:${ports.client}`;
    this.confPath = path.join(dir, 'nats.conf');
    this.logFile = path.join(dir, 'server.log');
    this.child = undefined;
  }

  get pid() {
    return this.child.pid;
  }

  get running() {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  spawn() {
    const log = fs.openSync(this.logFile, 'a');
    this.child = track(spawn(NATS_SERVER, ['-c', this.confPath], { stdio: ['ignore', log, log] }));
    fs.closeSync(log);
  }

  async healthy(routes) {
    try {
      const h = await fetch(`http://127.0.0.1:${this.ports.monitor}/healthz`, { signal: AbortSignal.timeout(2000) });
      if (!h.ok) return false;
      if (routes === 0) return true;
      const r = await getJson(`http://127.0.0.1:${this.ports.monitor}/routez`);
      return (r.num_routes ?? 0) >= routes;
    } catch {
      return false;
    }
  }

  /** The names of the clients connected to this server (its /connz). */
  async clientNames() {
    const names = [];
    for (let offset = 0; ; ) {
      const page = await getJson(`http://127.0.0.1:${this.ports.monitor}/connz?limit=5000&offset=${offset}`);
      for (const c of page.connections ?? []) names.push(c.name ?? '');
      offset += (page.connections ?? []).length;
      if ((page.connections ?? []).length === 0 || offset >= page.total) return names;
    }
  }

  async varz() {
    return getJson(`http://127.0.0.1:${this.ports.monitor}/varz`);
  }
}

/**
 * A `size`-node cluster (routes between all), every server configured by `brine nats
 * server-config -c masterConfigDir` with the extra masters' keys, in `dir`.
 */
export class BenchNatsCluster {
  constructor(build, dir, masterConfigDir, extraMasterPubs, size = 3) {
    this.build = build;
    this.dir = dir;
    this.masterConfigDir = masterConfigDir;
    this.extraMasterPubs = extraMasterPubs;
    this.size = size;
    this.nodes = [];
  }

  get urls() {
    return this.nodes.map((n) => n.url);
  }

  get pids() {
    return this.nodes.filter((n) => n.running).map((n) => n.pid);
  }

  /** Picks the ports, so the client URLs are known before any configuration is written. */
  async allocate() {
    for (let i = 0; i < this.size; i++) {
      const ports = { client: await freePort(), route: await freePort(), monitor: await freePort() };
      this.nodes.push(new NatsNode(`n${i + 1}`, path.join(this.dir, `n${i + 1}`), ports));
    }
  }

  /** Writes every server's configuration and starts them; resolves when all are healthy with routes. */
  async start() {
    const ports = this.nodes.map((n) => n.ports);
    // routes need TLS with a certificate from the cluster CA (threats.md #41): one self-signed
    // certificate for 127.0.0.1 serves as every server's and as the CA
    const routeCert = path.join(this.dir, 'route.crt');
    const routeKey = path.join(this.dir, 'route.key');
    if (this.size > 1 && !fs.existsSync(routeCert)) {
      fs.mkdirSync(this.dir, { recursive: true });
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-days',
          '7',
          '-subj',
          '/CN=brine-bench-route',
          '-addext',
          'subjectAltName=IP:127.0.0.1',
          '-keyout',
          routeKey,
          '-out',
          routeCert,
        ],
        { stdio: 'ignore' },
      );
    }
    for (const [i, node] of this.nodes.entries()) {
      fs.mkdirSync(node.dir, { recursive: true });
      const args = ['nats', 'server-config', '-c', this.masterConfigDir, '--server-name', node.name, '--listen', `127.0.0.1:${node.ports.client}`, '--monitor', `127.0.0.1:${node.ports.monitor}`];
      args.push('--jetstream-dir', path.join(node.dir, 'jetstream'), '--resolver-dir', path.join(node.dir, 'jwt'), '-o', node.confPath);
      for (const pub of this.extraMasterPubs) args.push('--master-key', pub);
      if (this.size > 1) {
        args.push('--cluster-listen', `127.0.0.1:${node.ports.route}`, '--cluster-tls-ca', routeCert, '--cluster-tls-cert', routeCert, '--cluster-tls-key', routeKey);
        for (const [j, o] of ports.entries()) if (j !== i) args.push('--route', `nats-route://127.0.0.1:${o.route}`);
      }
      await runBrine(this.build, args);
    }
    for (const n of this.nodes) n.spawn();
    for (const n of this.nodes) await this.waitHealthy(n);
  }

  /** Stops every server and starts them again on the same configuration and stores. */
  async restartAll() {
    await this.stop();
    for (const n of this.nodes) n.spawn();
    for (const n of this.nodes) await this.waitHealthy(n);
  }

  async waitHealthy(node) {
    await waitFor(
      async () => {
        if (!node.running) throw new Error(`nats-server ${node.name} exited (${node.child.exitCode}):\n${tail(node.logFile)}`);
        return node.healthy(this.size - 1);
      },
      30_000,
      `nats-server ${node.name} to be healthy`,
    );
  }

  /**
   * A server loads an account on first use; a stream replica placed on a server that has not
   * loaded BRINE yet fails ("error creating store for stream", seen on 2.9.10): ask each for
   * BRINE's JetStream info first (test/helpers/nats.ts does the same).
   */
  async warmUp(signerPem, natsDir) {
    const nats = await import(this.build.module('nats/index.js'));
    const signer = nats.NkeySigner.fromKey(signerPem);
    const { accounts } = nats.loadAccounts(natsDir);
    for (const url of this.urls) {
      const nc = await connect({ servers: url, authenticator: nats.nkeyAuthenticator(signer, nats.masterUserJwt(signer, accounts, 'bench-warmup')) });
      try {
        await waitFor(
          async () => {
            try {
              await (await jetstreamManager(nc)).getAccountInfo();
              return true;
            } catch {
              return false;
            }
          },
          30_000,
          `JetStream for BRINE on ${url}`,
        );
      } finally {
        await nc.close();
      }
    }
  }

  /** SIGKILL (or another signal) one server; resolves when it is gone. */
  kill(node, signal = 'SIGKILL') {
    return stopChild(node.child, signal, 5000);
  }

  async restart(node) {
    if (node.running) await this.kill(node, 'SIGTERM');
    node.spawn();
    await this.waitHealthy(node);
  }

  /** Per server: how many clients whose name matches `re` it holds. */
  async countClients(re) {
    const out = {};
    for (const n of this.nodes) {
      if (!n.running) continue;
      out[n.name] = (await n.clientNames()).filter((name) => re.test(name)).length;
    }
    return out;
  }

  async stop() {
    await Promise.all(this.nodes.filter((n) => n.child).map((n) => stopChild(n.child, 'SIGTERM', 5000)));
  }
}

/**
 * A master with transport: nats in `dir`; its control socket, CLI and test.ping rounds are
 * BenchMaster's. Keys are accepted by writing them into its key store before it starts.
 */
export class NatsBenchMaster extends BenchMaster {
  constructor(build, dir, id, settings, nodeArgs = []) {
    super(build, dir, 1, { id, transport: 'nats', auto_accept: false, ...settings }, nodeArgs);
    this.id = id;
    this.pkiDir = path.join(dir, 'pki');
  }

  /** Writes the minions' public keys as accepted (SPKI PEM, as KeyStore writes them). */
  acceptKeys(minions) {
    for (const d of ['minions', 'minions_pre', 'minions_rejected', 'minions_denied']) fs.mkdirSync(path.join(this.pkiDir, d), { recursive: true, mode: 0o700 });
    for (const m of minions) fs.writeFileSync(path.join(this.pkiDir, 'minions', m.id), m.pub, { mode: 0o644 });
  }

  /** Resolves once the control socket answers and the master's NATS connection is up. */
  async start(cluster, timeoutMs = 120_000) {
    fs.rmSync(this.sockPath, { force: true });
    const log = fs.openSync(this.logFile, 'a');
    this.child = track(spawn(process.execPath, [...this.nodeArgs, this.build.cli, 'master', '-c', this.configDir], { stdio: ['ignore', log, log], env: { ...process.env, NO_COLOR: '1' } }));
    fs.closeSync(log);
    const child = this.child;
    const name = new RegExp(`^brine-master ${this.id}$`);
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`master ${this.id} exited with code ${child.exitCode}:\n${tail(this.logFile)}`);
        if (!fs.existsSync(this.sockPath)) return false;
        const on = await cluster.countClients(name);
        return Object.values(on).some((v) => v > 0);
      },
      timeoutMs,
      `master ${this.id} to connect to NATS`,
    );
  }

  /** The master's session table (what `brine minions status` prints): connected count, reconnects seen. */
  async sessions() {
    const { requestOnce } = await import(this.build.module('cli/control-client.js'));
    let reply;
    // a master that has just started may close the control connection before it answers
    for (let attempt = 0; ; attempt++) {
      try {
        reply = await requestOnce(this.sockPath, { t: 'sessions' }, 'sessions');
        break;
      } catch (err) {
        if (attempt >= 40 || this.child.exitCode !== null) throw err;
        this.sessionErrors = (this.sessionErrors ?? 0) + 1;
        await sleep(250);
      }
    }
    let connected = 0;
    let reconnects = 0;
    for (const s of reply.sessions) {
      if (s.state === 'connected') connected++;
      reconnects += s.reconnects ?? 0;
    }
    return { connected, reconnects, total: reply.sessions.length };
  }

  /** test.ping over the control socket with a job timeout of `timeoutS`, timed until the master's `done`. */
  async pingRoundT(target, expected, timeoutS) {
    const { openControl } = await import(this.build.module('cli/control-client.js'));
    const conn = await openControl(this.sockPath);
    const t0 = process.hrtime.bigint();
    const ms = () => Number(process.hrtime.bigint() - t0) / 1e6;
    return new Promise((resolve, reject) => {
      let returns = 0;
      let trueReturns = 0;
      let publishedMs;
      conn.onMessage((m) => {
        if (m.t === 'published') publishedMs = ms();
        else if (m.t === 'ret') {
          returns++;
          if (m.ret === true) trueReturns++;
        } else if (m.t === 'done') {
          resolve({ ms: ms(), publishedMs, returns, trueReturns, noResponse: m.noResponse.length, expected });
          conn.close('shutdown');
        } else if (m.t === 'error') reject(new Error(`publish failed: ${m.code}: ${m.message}`));
      });
      conn.onClose((info) => reject(new Error(`the control connection closed before the job finished (${info.reason})`)));
      conn.send({ t: 'publish', tgt: target, tgtType: 'glob', fun: 'test.ping', arg: [], kwarg: {}, timeout: timeoutS, user: 'bench' });
    });
  }
}

/** A new master key of its own for a second master: master.pem, master.pub and accounts.json. */
export function makeMasterKey(pkiDir, accountsJsonFrom) {
  fs.mkdirSync(path.join(pkiDir, 'nats'), { recursive: true, mode: 0o700 });
  const key = generateKeyPairSync('ed25519').privateKey;
  fs.writeFileSync(path.join(pkiDir, 'master.pem'), key.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  fs.writeFileSync(path.join(pkiDir, 'master.pub'), createPublicKey(key).export({ type: 'spki', format: 'pem' }));
  if (accountsJsonFrom) fs.copyFileSync(accountsJsonFrom, path.join(pkiDir, 'nats', 'accounts.json'));
  return path.join(pkiDir, 'master.pub');
}

/**
 * N minion identities: an Ed25519 key each and a user JWT issued by `masterPem` (as a master's
 * sign-in answer would carry it). Returns [{ id, pem, pub, jwt }].
 */
export async function makeMinions(build, n, prefix, masterPem, natsDir) {
  const nats = await import(build.module('nats/index.js'));
  const signer = nats.NkeySigner.fromKey(masterPem);
  const { accounts } = nats.loadAccounts(natsDir);
  const out = [];
  for (let i = 0; i < n; i++) {
    const id = `${prefix}${i}`;
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const raw = publicKey.export({ type: 'spki', format: 'der' }).subarray(12);
    out.push({
      id,
      pem: privateKey.export({ type: 'pkcs8', format: 'pem' }),
      pub: publicKey.export({ type: 'spki', format: 'pem' }),
      jwt: nats.minionUserJwt(signer, accounts, id, raw),
    });
  }
  return out;
}

const SUM_KEYS = ['total', 'ready', 'connected', 'reconnects', 'disconnects', 'stales', 'connectFailures', 'closes', 'redials', 'hellos', 'pings', 'jobs', 'acks', 'retFailures', 'findJobs'];
const TABLE_KEYS = ['connectErrors', 'closeErrors', 'statusErrors'];

/**
 * The emulated minions split over `procs` forked processes; `stats` sums their latest stats,
 * `history` keeps every sum with its time.
 */
export async function startEmulators(build, minions, opts) {
  const procs = Math.max(1, Math.min(opts.procs, minions.length));
  const per = Math.ceil(minions.length / procs);
  const children = [];
  const latest = [];
  const group = {
    children,
    history: [],
    stats: undefined,
    pids: () => children.filter((c) => c.exitCode === null).map((c) => c.pid),
  };
  const sum = () => {
    const s = { at: Date.now(), lagMaxMs: 0 };
    for (const k of SUM_KEYS) s[k] = 0;
    for (const t of TABLE_KEYS) s[t] = {};
    for (const l of latest) {
      if (!l) continue;
      for (const k of SUM_KEYS) s[k] += l[k] ?? 0;
      for (const t of TABLE_KEYS) for (const [k, v] of Object.entries(l[t] ?? {})) s[t][k] = (s[t][k] ?? 0) + v;
      // the worst process's event-loop delay, not a sum
      s.lagMaxMs = Math.max(s.lagMaxMs, l.lagMaxMs ?? 0);
    }
    group.stats = s;
    group.history.push(s);
  };
  for (let p = 0; p < procs; p++) {
    const slice = minions.slice(p * per, (p + 1) * per);
    if (slice.length === 0) break;
    const file = path.join(opts.tmp, `${opts.name}-${p}.json`);
    fs.writeFileSync(file, JSON.stringify(slice.map(({ id, pem, jwt }) => ({ id, pem, jwt }))));
    const logFile = path.join(opts.tmp, `${opts.name}-${p}.log`);
    const log = fs.openSync(logFile, 'a');
    const child = track(fork(path.join(HERE, 'nats-emulator.mjs'), [], { stdio: ['ignore', 'ignore', log, 'ipc'], execArgv: opts.nodeArgs ?? [] }));
    fs.closeSync(log);
    child.logFile = logFile;
    const i = children.length;
    children.push(child);
    child.on('message', (m) => {
      if (m?.t === 'stats') {
        latest[i] = m;
        sum();
      }
    });
    child.send({
      t: 'start',
      buildRoot: build.root,
      minionsFile: file,
      servers: opts.servers,
      heartbeatIntervalMs: opts.heartbeatIntervalMs,
      heartbeatTimeoutMs: opts.heartbeatTimeoutMs,
      reconnectTimeWaitMs: opts.reconDefaultMs,
      reconnectJitterMs: opts.reconDefaultMs,
      reconDefaultMs: opts.reconDefaultMs,
      reconMaxMs: opts.reconMaxMs,
      connectTimeoutMs: opts.authTimeoutMs,
      concurrency: Math.max(1, Math.round(opts.concurrency / procs)),
      statsMs: 100,
    });
  }
  group.waitUntil = (pred, timeoutMs, what) =>
    waitFor(
      () => {
        for (const c of children) if (c.exitCode !== null) throw new Error(`an emulator process exited with code ${c.exitCode}:\n${tail(c.logFile)}`);
        return group.stats !== undefined && group.stats.total === minions.length && pred(group.stats);
      },
      timeoutMs,
      what,
    );
  group.stop = async () => {
    await Promise.all(
      children.map(async (c) => {
        if (c.exitCode !== null) return;
        c.send({ t: 'stop' });
        await stopChild(c, null, 10_000);
      }),
    );
  };
  return group;
}

/** The raw floor's master process (bench/lib/nats-raw-master.mjs), started and ready. */
export async function startRawMaster(opts) {
  const log = fs.openSync(path.join(opts.tmp, 'raw-master.log'), 'a');
  const child = track(fork(path.join(HERE, 'nats-raw-master.mjs'), [], { stdio: ['ignore', 'ignore', log, 'ipc'] }));
  fs.closeSync(log);
  let hb = 0;
  child.on('message', (m) => {
    if (m?.t === 'stats') hb = m.hb;
  });
  const ready = nextMessage(child, 'ready', 60_000, 'the raw master to be ready');
  child.send({ t: 'start', ...opts.start });
  await ready;
  return {
    child,
    get hb() {
      return hb;
    },
    async round(ids, jid, timeoutMs = 120_000) {
      const p = nextMessage(child, 'round', timeoutMs + 10_000, 'a raw round');
      child.send({ t: 'round', ids, jid, timeoutMs });
      return p;
    },
    async stop() {
      child.send({ t: 'stop' });
      await stopChild(child, null, 10_000);
    },
  };
}
