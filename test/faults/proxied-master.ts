// Shared setup for the fault-suite files that put a FaultProxy between minions and masters: a
// master (its own Cluster) with a proxy in front, scaled-down liveness settings, and readers for
// `brine minions status` and the minion's log (event streams: test/helpers/events.ts).

import * as fs from 'node:fs';
import * as path from 'node:path';
import { Cluster, waitUntil, type CliResult, type Proc } from '../helpers/cluster.js';
import { FaultProxy } from './index.js';

export const HB_INTERVAL = 0.5;
export const HB_TIMEOUT = 1.5;
export const RECON_DEFAULT = 100;
export const RECON_MAX = 1000;
export const AUTH_TIMEOUT = 2;
export const LIVENESS = { heartbeat_interval: HB_INTERVAL, heartbeat_timeout: HB_TIMEOUT };
export const FAST = { ...LIVENESS, recon_default: RECON_DEFAULT, recon_max: RECON_MAX, auth_timeout: AUTH_TIMEOUT };

/** One row of `brine minions status --out sessions`. */
export interface StatusRow {
  id: string;
  state: 'connected' | 'disconnected' | 'never_connected';
  remote?: string;
  connectedSince?: number;
  reconnects: number;
  lastDisconnectReason?: string;
  drops?: number;
  flapping?: boolean;
  typicalConnectedMs?: number;
  typicalSilentMs?: number;
  dropReasons?: string[];
}

/** A master in its own root, reached through a FaultProxy. */
export class ProxiedMaster {
  private constructor(
    readonly cluster: Cluster,
    readonly master: Proc,
    readonly proxy: FaultProxy,
  ) {}

  /**
   * `sameKeyAs`: start with that master's key pair, as Salt's multi-master requires (a minion
   * pins one master key and refuses any other).
   */
  static async start(masterConfig: Record<string, unknown> = {}, sameKeyAs?: ProxiedMaster): Promise<ProxiedMaster> {
    const cluster = await Cluster.create();
    try {
      if (sameKeyAs) {
        fs.mkdirSync(pkiDir(cluster), { recursive: true });
        for (const f of ['master.pem', 'master.pub', 'master.crt']) fs.copyFileSync(path.join(pkiDir(sameKeyAs.cluster), f), path.join(pkiDir(cluster), f));
      }
      const master = await cluster.startMaster({ auto_accept: true, ...LIVENESS, ...masterConfig });
      const proxy = await FaultProxy.start({ target: { host: '127.0.0.1', port: cluster.port } });
      return new ProxiedMaster(cluster, master, proxy);
    } catch (err) {
      await cluster.cleanup();
      throw err;
    }
  }

  /** The `master` entry a minion uses to go through the proxy. */
  get viaProxy(): string {
    return `127.0.0.1:${this.proxy.port}`;
  }

  async status(id: string): Promise<StatusRow | undefined> {
    const r = await this.cluster.brine(['minions', 'status', '--out', 'sessions']);
    if (r.code !== 0) throw new Error(`brine minions status failed: ${r.stdout}${r.stderr}`);
    return (JSON.parse(r.stdout) as StatusRow[]).find((row) => row.id === id);
  }

  /** Polls the status until `ok` holds for the minion's row; returns that row. */
  waitForStatus(id: string, ok: (row: StatusRow) => boolean, timeoutMs: number, what: string): Promise<StatusRow> {
    let last: StatusRow | undefined;
    return waitUntil(
      async () => {
        last = await this.status(id);
        return last !== undefined && ok(last) ? last : undefined;
      },
      timeoutMs,
      `${what} (last status: ${JSON.stringify(last)})`,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n--- master log ---\n${this.master.output}`);
    });
  }

  /** `brine run <id> test.ping --out txt` on this master: true when the minion answered True. */
  async ping(id: string, timeoutS = 5): Promise<CliResult & { ok: boolean }> {
    const r = await this.cluster.brine(['run', id, 'test.ping', '-t', String(timeoutS), '--out', 'txt']);
    return { ...r, ok: r.code === 0 && r.stdout === `${id}: True\n` };
  }

  async close(): Promise<void> {
    await this.proxy.close();
    await this.cluster.cleanup();
  }
}

function pkiDir(cluster: Cluster): string {
  return path.join(cluster.root, 'master', 'etc', 'brine', 'pki', 'master');
}

/** Lines of a process's log that contain `text`. */
export function logLines(p: Proc, text: string | RegExp): string[] {
  return p.output.split('\n').filter((l) => (typeof text === 'string' ? l.includes(text) : text.test(l)));
}

/** `Minion is ready ...` lines, with the master each one names (host:port). */
export function readyMasters(p: Proc): string[] {
  return logLines(p, 'Minion is ready to receive requests').map((l) => /master=(\S+)/.exec(l)?.[1] ?? '?');
}

/** Waits until the minion has logged more than `after` ready lines; returns the newest master. */
export async function waitForReady(p: Proc, after: number, timeoutMs: number): Promise<string> {
  await waitForLog(p, () => readyMasters(p).length > after, timeoutMs, `ready line #${after + 1}`);
  return readyMasters(p).at(-1)!;
}

/** waitUntil on a process's log; the error carries the log as it was at the deadline. */
export async function waitForLog(p: Proc, ok: () => boolean, timeoutMs: number, what: string): Promise<void> {
  try {
    await waitUntil(ok, timeoutMs, `${p.name}: ${what}`);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n--- ${p.name} output ---\n${p.output}`);
  }
}

/** The jid that `brine run -v` prints first. */
export function jidOf(output: string): string | undefined {
  return /Executing job with jid (\d+)/.exec(output)?.[1];
}
