// Real nats-server processes for the NATS tests (issue 13): one server or a 3-node cluster with
// JetStream on loopback, each configured by the real `brine nats server-config` of a throwaway
// master config directory, on free ports and in temp dirs that cleanup removes. A machine
// without nats-server skips these tests with the reason; under BRINE_REQUIRE_PRIVILEGED (CI,
// where .ci/run installs it) the skip is a failure.

import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { type AccountKeys, masterSystemUserJwt, masterUserJwt, NkeySigner } from '../../src/nats/index.js';
import { freePort, Proc, runCli, treesUnder, waitUntil } from './cluster.js';
import { privilegedSkip } from './privileged.js';

export const NATS_SERVER = process.env.BRINE_NATS_SERVER ?? '/usr/sbin/nats-server';

/** `skip` for a suite that needs nats-server. */
export function natsSkip(what: string): string | false {
  return privilegedSkip(what, fs.existsSync(NATS_SERVER) ? false : `${NATS_SERVER} is missing (apt-get install nats-server; .ci/run does)`);
}

import { makeTestCertificate } from './test-cert.js';

export { makeTestCertificate };

export interface NatsNode {
  name: string;
  url: string;
  monitor: number;
  routePort: number;
  confPath: string;
  /** The `brine` arguments that wrote confPath (run them again to regenerate it). */
  configArgs: string[];
  proc: Proc;
}

export interface NatsFixture {
  nodes: NatsNode[];
  /** Every client URL, for a client that may use any server. */
  urls: string[];
  /** The master whose config generated the servers' configs. */
  master: NkeySigner;
  masterConfigDir: string;
  accounts: AccountKeys;
  /**
   * A cluster's route TLS: one certificate (its own CA) every server presents and verifies on
   * its routes; the route password is the file `brine nats server-config` made beside the
   * operator key on its first run.
   */
  routeTls?: { ca: string; cert: string; key: string; passwordFile: string };
  /** A connection as the master in BRINE (everything) or SYS (account JWT updates). */
  connectMaster(account: 'brine' | 'sys', servers?: string[]): Promise<NatsConnection>;
  /** Starts the servers `startOnly` held back and waits until the whole cluster is ready. */
  startDeferred(): Promise<void>;
  /** Stops one server (SIGKILL with `kill`), for fault tests. */
  stop(node: NatsNode, signal?: NodeJS.Signals): Promise<void>;
  /** Stops one server and starts it again from its config file (regenerated first if asked). */
  restart(node: NatsNode, opts?: { regenerate?: boolean }): Promise<void>;
  cleanup(): Promise<void>;
}

/** An authenticator signing the server's nonce with a brine key: the seed never leaves it. */
export function nkeyAuth(signer: NkeySigner, jwt: string) {
  return (nonce?: string) => ({ jwt, nkey: signer.publicKey('user'), sig: signer.sign(Buffer.from(nonce ?? '')).toString('base64url') });
}

export function newEd25519(): { key: KeyObject; signer: NkeySigner } {
  const key = generateKeyPairSync('ed25519').privateKey;
  return { key, signer: NkeySigner.fromKey(key) };
}

async function healthy(monitor: number, routes: number): Promise<boolean> {
  try {
    const health = await fetch(`http://127.0.0.1:${monitor}/healthz`);
    if (!health.ok) return false;
    if (routes === 0) return true;
    const routez = (await (await fetch(`http://127.0.0.1:${monitor}/routez`)).json()) as { num_routes?: number };
    return (routez.num_routes ?? 0) >= routes;
  } catch {
    return false;
  }
}

async function writeConfig(args: string[]): Promise<void> {
  const r = await runCli(args);
  if (r.code !== 0) throw new Error(`brine ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
}

/** The process of a server held back by `startOnly` until startDeferred starts it: one that has ended. */
const notStarted = (name: string): Proc => new Proc(`nats-server ${name} (not started)`, spawn('true', { stdio: 'ignore' }));

/** The monitoring port answers (a server without a JetStream quorum is not healthy yet). */
async function waitListening(n: NatsNode): Promise<void> {
  await waitUntil(
    async () => {
      if (!n.proc.running) throw new Error(`${n.proc.name} exited (${n.proc.exitCode}):\n${n.proc.output}`);
      try {
        return (await fetch(`http://127.0.0.1:${n.monitor}/varz`)).ok;
      } catch {
        return false;
      }
    },
    30_000,
    `${n.proc.name} to listen`,
  );
}

/**
 * `n` answers /healthz with its routes up. `peers` (a cluster's start) must keep running meanwhile:
 * one that exited (a port taken since it was chosen, say) fails at once with its own output,
 * instead of `n` waiting out the timeout for routes that cannot come.
 */
async function waitHealthy(n: NatsNode, routes: number, peers: NatsNode[] = []): Promise<void> {
  await waitUntil(
    async () => {
      for (const p of [n, ...peers]) if (!p.proc.running) throw new Error(`${p.proc.name} exited (${p.proc.exitCode}):\n${p.proc.output}`);
      return healthy(n.monitor, routes);
    },
    30_000,
    `${n.proc.name} to be healthy\n--- output so far ---\n${n.proc.output}`,
  );
}

/**
 * Starts `size` nats-servers (1, or 3 for a cluster with JetStream), waits until each answers
 * /healthz (JetStream ready) and, in a cluster, has a route to every other, and returns them.
 * Always call cleanup (register it with t.after before anything can fail).
 */
export interface NatsFixtureOptions {
  /** More `brine nats server-config` flags for every server (e.g. --tls-cert, --tls-key). */
  serverArgs?: string[];
  /** The CA the fixture's own clients verify the servers with (servers with TLS). */
  tlsCaFile?: string;
  /**
   * Start only the first `startOnly` servers (a cluster without a JetStream quorum); the others
   * start with `startDeferred()`, which then waits for the whole cluster as startNats does.
   */
  startOnly?: number;
}

export async function startNats(size: 1 | 3, options: NatsFixtureOptions = {}): Promise<NatsFixture> {
  const tls = options.tlsCaFile === undefined ? {} : { tls: { caFile: options.tlsCaFile } };
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-nats-'));
  const procs: Proc[] = [];
  const conns: NatsConnection[] = [];
  const spawnServer = (name: string, confPath: string): Proc => {
    const proc = new Proc(`nats-server ${name}`, spawn(NATS_SERVER, ['-c', confPath], { stdio: ['ignore', 'pipe', 'pipe'] }));
    procs.push(proc);
    return proc;
  };
  const cleanup = async (): Promise<void> => {
    await Promise.all(conns.map((c) => c.close().catch(() => undefined)));
    await Promise.all(procs.map((p) => p.kill('SIGTERM')));
    fs.rmSync(root, { recursive: true, force: true });
  };
  try {
    const masterConfigDir = path.join(root, 'master-config');
    fs.mkdirSync(masterConfigDir);
    const masterRoot = path.join(root, 'master');
    const trees = treesUnder(masterRoot);
    fs.writeFileSync(
      path.join(masterConfigDir, 'master'),
      `root_dir: ${JSON.stringify(masterRoot)}\nfile_roots: ${JSON.stringify(trees.file_roots)}\npillar_roots: ${JSON.stringify(trees.pillar_roots)}\n`,
    );
    let routeTls: NatsFixture['routeTls'];
    if (size > 1) {
      const { cert, key } = makeTestCertificate(root, 'route');
      routeTls = { ca: cert, cert, key, passwordFile: path.join(root, 'master', 'etc', 'brine', 'pki', 'master', 'nats', 'route-password') };
    }
    const ports = [];
    for (let i = 0; i < size; i++) ports.push({ client: await freePort(), route: await freePort(), monitor: await freePort() });
    const nodes: NatsNode[] = [];
    const started = options.startOnly ?? size;
    for (let i = 0; i < size; i++) {
      const p = ports[i]!;
      const name = `n${i + 1}`;
      const dir = path.join(root, name);
      fs.mkdirSync(dir);
      const confPath = path.join(dir, 'nats.conf');
      const args = ['nats', 'server-config', '-c', masterConfigDir, '--server-name', name, '--listen', `127.0.0.1:${p.client}`, '--monitor', `127.0.0.1:${p.monitor}`];
      args.push('--jetstream-dir', path.join(dir, 'jetstream'), '--resolver-dir', path.join(dir, 'jwt'), '-o', confPath, ...(options.serverArgs ?? []));
      if (routeTls !== undefined) {
        args.push('--cluster-listen', `127.0.0.1:${p.route}`, '--cluster-tls-ca', routeTls.ca, '--cluster-tls-cert', routeTls.cert, '--cluster-tls-key', routeTls.key);
        for (const [j, o] of ports.entries()) if (j !== i) args.push('--route', `nats-route://127.0.0.1:${o.route}`);
      }
      await writeConfig(args);
      nodes.push({ name, url: `nats://127.0.0.1:${p.client}`, monitor: p.monitor, routePort: p.route, confPath, configArgs: args, proc: i < started ? spawnServer(name, confPath) : notStarted(name) });
    }
    const pkiDir = path.join(root, 'master', 'etc', 'brine', 'pki', 'master');
    const master = NkeySigner.fromKey(fs.readFileSync(path.join(pkiDir, 'master.pem'), 'utf8'));
    const accounts = JSON.parse(fs.readFileSync(path.join(pkiDir, 'nats', 'accounts.json'), 'utf8')) as AccountKeys;
    const urls = nodes.map((n) => n.url);
    const deferred = nodes.slice(started);
    const ready = async (): Promise<void> => {
      for (const n of nodes) await waitHealthy(n, size - 1, nodes);
      // Each server loads an account on first use; a stream replica placed on a server that has
      // not loaded BRINE yet fails with "error creating store for stream" (seen on 2.9.10). Ready
      // means every server answers JetStream account info for BRINE.
      for (const url of urls) {
        const nc = await connect({ servers: url, authenticator: nkeyAuth(master, masterUserJwt(master, accounts, 'test-master-warmup')), ...tls });
        try {
          await (await jetstreamManager(nc)).getAccountInfo();
        } finally {
          await nc.close();
        }
      }
    };
    if (deferred.length === 0) await ready();
    else for (const n of nodes) if (!deferred.includes(n)) await waitListening(n);
    return {
      nodes,
      urls,
      master,
      masterConfigDir,
      accounts,
      ...(routeTls === undefined ? {} : { routeTls }),
      async connectMaster(account, servers = urls) {
        const jwt = account === 'brine' ? masterUserJwt(master, accounts, 'test-master') : masterSystemUserJwt(master, accounts, 'test-master-sys');
        const nc = await connect({ servers, authenticator: nkeyAuth(master, jwt), name: `test-master-${account}`, ...tls });
        conns.push(nc);
        return nc;
      },
      async startDeferred() {
        for (const n of deferred.splice(0)) n.proc = spawnServer(n.name, n.confPath);
        await ready();
      },
      async stop(node, signal = 'SIGTERM') {
        await node.proc.kill(signal);
      },
      async restart(node, opts = {}) {
        await node.proc.kill('SIGTERM');
        if (opts.regenerate === true) await writeConfig(node.configArgs);
        node.proc = spawnServer(node.name, node.confPath);
        await waitHealthy(node, size - 1);
      },
      cleanup,
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}
