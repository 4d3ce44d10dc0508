// Real brine masters and minions with `transport: nats` on a real nats-server fixture
// (test/helpers/nats.ts): each master's pki_dir holds a master key the servers trust (the
// fixture's own master, or one added with `brine nats update-accounts`), minions get the
// enrolment file from `brine nats enrolment`.

import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, type Proc, runCli, treesUnder } from './cluster.js';
import type { NatsFixture } from './nats.js';

/** Liveness settings for tests: a heartbeat every 0.5 s, silence noticed within 3 s. */
export const NATS_FAST = { heartbeat_interval: 0.5, heartbeat_timeout: 3 };

export class NatsBrine {
  readonly masters: Proc[] = [];
  /** Masters given a key of their own (addMasterKey), listed in the enrolment file. */
  private readonly addedMasters: number[] = [];
  private constructor(
    readonly cluster: Cluster,
    readonly nats: NatsFixture,
  ) {}

  /** A brine cluster whose first master has the fixture's master key (the servers trust it). */
  static async create(nats: NatsFixture): Promise<NatsBrine> {
    const cluster = await Cluster.create();
    const nb = new NatsBrine(cluster, nats);
    nb.copyFixtureKey(nb.masterPki());
    return nb;
  }

  /** The pki_dir of master `n` (0: the cluster's own master config). */
  masterPki(n = 0): string {
    return path.join(this.masterRoot(n), 'etc', 'brine', 'pki', 'master');
  }

  masterRoot(n = 0): string {
    return n === 0 ? path.join(this.cluster.root, 'master') : path.join(this.cluster.root, `master${n}`);
  }

  masterConfigDir(n = 0): string {
    return n === 0 ? this.cluster.masterConfigDir : path.join(this.masterRoot(n), 'etc');
  }

  private copyFixtureKey(pki: string): void {
    const from = path.join(path.dirname(this.nats.masterConfigDir), 'master', 'etc', 'brine', 'pki', 'master');
    fs.mkdirSync(path.dirname(pki), { recursive: true });
    fs.cpSync(from, pki, { recursive: true });
  }

  /**
   * Gives master `n` (> 0) a key of its own and makes the servers trust it, as an operator adds a
   * master: its key in every server's configuration (an operator signing key, to push
   * revocations; the servers restart one by one) and in the running accounts (to issue users).
   */
  async addMasterKey(n: number): Promise<void> {
    const pki = this.masterPki(n);
    fs.mkdirSync(path.join(pki, 'nats'), { recursive: true, mode: 0o700 });
    const key = generateKeyPairSync('ed25519').privateKey;
    fs.writeFileSync(path.join(pki, 'master.pem'), key.export({ type: 'pkcs8', format: 'pem' }) as string, { mode: 0o600 });
    const pub = path.join(pki, 'master.pub');
    fs.writeFileSync(pub, createPublicKey(key).export({ type: 'spki', format: 'pem' }) as string);
    fs.copyFileSync(path.join(this.masterPki(0), 'nats', 'accounts.json'), path.join(pki, 'nats', 'accounts.json'));
    for (const node of this.nats.nodes) {
      node.configArgs.push('--master-key', pub);
      await this.nats.restart(node, { regenerate: true });
    }
    const r = await runCli(['nats', 'update-accounts', '-c', this.nats.masterConfigDir, '--server', this.nats.urls[0]!, '--master-key', pub]);
    if (r.code !== 0) throw new Error(`brine nats update-accounts failed: ${r.stdout}${r.stderr}`);
    this.addedMasters.push(n);
  }

  /** Master `n` with transport: nats, ready (master `n` > 0 needs addMasterKey first). */
  async startMaster(n = 0, extra: Record<string, unknown> = {}, servers = this.nats.urls): Promise<Proc> {
    const p = this.spawnMaster(n, extra, servers);
    await p.waitForOutput(/brine master connected to NATS/, 30_000);
    return p;
  }

  /** Master `n` started, without waiting for it to be ready. */
  spawnMaster(n = 0, extra: Record<string, unknown> = {}, servers = this.nats.urls): Proc {
    const dir = this.masterConfigDir(n);
    fs.mkdirSync(dir, { recursive: true });
    const settings = { root_dir: this.masterRoot(n), ...treesUnder(this.masterRoot(n)), id: `master${n}`, transport: 'nats', nats_servers: servers, log_level: 'info', ...NATS_FAST, ...extra };
    fs.writeFileSync(
      path.join(dir, 'master'),
      `${Object.entries(settings)
        .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
        .join('\n')}\n`,
    );
    const p = this.cluster.spawnBrine(`master${n}`, ['master', '-c', dir]);
    this.masters[n] = p;
    return p;
  }

  /** The enrolment file every minion starts from (written once, from master 0). */
  async enrolmentFile(): Promise<string> {
    const file = path.join(this.cluster.root, 'nats-enrolment.json');
    if (fs.existsSync(file)) return file;
    // every master added so far: minions take sign-in answers and run jobs only from the masters listed
    const others = this.addedMasters.flatMap((n) => ['--master-key', path.join(this.masterPki(n), 'master.pub')]);
    const r = await runCli(['nats', 'enrolment', '-c', this.masterConfigDir(0), '-o', file, ...others]);
    if (r.code !== 0) throw new Error(`brine nats enrolment failed: ${r.stderr}`);
    return file;
  }

  async startMinion(name: string, extra: Record<string, unknown> = {}, servers = this.nats.urls): Promise<Proc> {
    return this.cluster.startMinion(name, { transport: 'nats', nats_servers: servers, nats_enrolment: await this.enrolmentFile(), ...NATS_FAST, ...extra });
  }

  /** A minion whose key is accepted on master 0 and that is connected with its own credentials. */
  async startAcceptedMinion(name: string, extra: Record<string, unknown> = {}, servers = this.nats.urls, connectMs = 20_000): Promise<Proc> {
    const m = await this.startMinion(name, extra, servers);
    await this.cluster.waitForPending([name]);
    const a = await this.brine(['key', '-a', name, '-y']);
    if (a.code !== 0) throw new Error(`brine key -a ${name} failed (${a.code}): ${a.stderr}`);
    await m.waitForOutput(/connected to NATS server/, connectMs);
    return m;
  }

  /** `brine` against master `n`. */
  brine(args: string[], n = 0, opts: { timeoutMs?: number } = {}) {
    return runCli([...args, '-c', this.masterConfigDir(n)], opts);
  }

  cleanup(): Promise<void> {
    return this.cluster.cleanup();
  }
}
