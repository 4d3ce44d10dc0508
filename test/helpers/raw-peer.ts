// An attack-test setup used by several suites: a real master, optionally one real accepted
// minion `good` to prove the master still serves, and a raw peer with its own key whose
// connections are all closed with the cluster.

import * as path from 'node:path';
import type { Identity } from '../../src/pki/index.js';
import { Cluster, type Proc } from './cluster.js';
import { RawClient, makeClientIdentity, type RawConnectOptions } from './raw-client.js';

export class RawPeerFixture {
  private readonly clients: RawClient[] = [];

  private constructor(
    readonly cluster: Cluster,
    readonly master: Proc,
    readonly identity: Identity,
  ) {}

  /** Starts the master with `masterOpts` and, unless `goodMinion` is false, the minion `good`. */
  static async start(masterOpts: Record<string, unknown>, { goodMinion = true } = {}): Promise<RawPeerFixture> {
    const cluster = await Cluster.create();
    const identity = await makeClientIdentity(path.join(cluster.root, 'raw-client'));
    const master = await cluster.startMaster(masterOpts);
    if (goodMinion) await cluster.startMinion('good').waitForOutput(/ready to receive requests/);
    return new RawPeerFixture(cluster, master, identity);
  }

  /** TLS with the fixture's key unless `opts` says otherwise (`identity: null`: no certificate; `'tcp'`: plain TCP). */
  async connect(opts: Omit<Partial<RawConnectOptions>, 'identity'> & { identity?: Identity | null | 'tcp' } = {}): Promise<RawClient> {
    const { identity = this.identity, ...rest } = opts;
    const c = await RawClient.connect({ port: this.cluster.port, ...rest, ...(identity === 'tcp' ? {} : { identity }) });
    this.clients.push(c);
    return c;
  }

  async close(): Promise<void> {
    for (const c of this.clients) c.destroy();
    await this.cluster.cleanup();
  }
}
