// Minion data shared by the masters of one NATS cluster: the grains a minion sends reach every
// running master (brine.hb.<m>), and each master also offers them to the `brine-minion-data`
// key-value bucket, so a master that starts later, or lost its job cache, targets by grain at
// once instead of waiting for each minion to send its grains again. An entry carries the
// fingerprint of the key that sent it; a master takes it only while that key is the accepted
// one (a replaced host's old grains never come back).

import { createHash } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import { type KV, Kvm } from '@nats-io/kv';
import { BrineError, toBrineError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { kvKeyOf, minionIdOfKvKey } from './key-record.js';

export const MINION_DATA_BUCKET = 'brine-minion-data';

export interface MinionDataShareOptions {
  nc: NatsConnection;
  replicas: number;
  logger: Logger;
  /** The accepted key's fingerprint of an ID (undefined: none). */
  acceptedFingerprint(id: string): string | undefined;
  /** Grains from the bucket, for this master's data cache. */
  apply(id: string, fingerprint: string, grains: Record<string, unknown>): void;
  bucket?: string;
}

interface Entry {
  v: 1;
  fingerprint: string;
  grains: Record<string, unknown>;
}

const digest = (fingerprint: string, grains: unknown): string => createHash('sha256').update(fingerprint).update('\0').update(JSON.stringify(grains)).digest('base64url');

export class MinionDataShare {
  /** ID -> digest of the entry this master last wrote or read: an offer of the same is not written again. */
  private readonly known = new Map<string, string>();
  private stopped = false;
  private watching: Promise<void> | undefined;
  private stopWatch: (() => void) | undefined;

  private constructor(
    private readonly kv: KV,
    private readonly opts: MinionDataShareOptions,
  ) {}

  /** Opens (or makes) the bucket and applies what it holds; NATS_KV_UNAVAILABLE when it cannot. */
  static async start(opts: MinionDataShareOptions): Promise<MinionDataShare> {
    let kv: KV;
    try {
      kv = await new Kvm(opts.nc).create(opts.bucket ?? MINION_DATA_BUCKET, { replicas: opts.replicas, history: 1 });
    } catch (err) {
      throw new BrineError('NATS_KV_UNAVAILABLE', `cannot open the ${opts.bucket ?? MINION_DATA_BUCKET} bucket: ${(err as Error).message}`, { cause: err });
    }
    const share = new MinionDataShare(kv, opts);
    await share.watch();
    return share;
  }

  /** Applies the bucket's current entries, then follows its updates. */
  private async watch(): Promise<void> {
    const iter = await this.kv.watch();
    this.stopWatch = () => iter.stop();
    let initial = true;
    const caughtUp = new Promise<void>((resolve) => {
      this.watching = (async () => {
        // with no entries at all, the watcher says nothing: resolve at once in that case too
        if (iter.getPending() === 0) resolve();
        for await (const e of iter) {
          if (this.stopped) break;
          if (e.operation === 'PUT') this.take(e.key, e.value);
          if (initial && e.delta === 0) {
            initial = false;
            resolve();
          }
        }
        resolve();
      })().catch((err: unknown) => this.opts.logger.warn({ code: 'NATS_KV_UNAVAILABLE' }, `stopped following the ${MINION_DATA_BUCKET} bucket: ${toBrineError(err).message}`));
    });
    await caughtUp;
  }

  private take(key: string, value: Uint8Array): void {
    let id: string;
    let entry: Entry;
    try {
      id = minionIdOfKvKey(key);
      entry = JSON.parse(Buffer.from(value).toString('utf8')) as Entry;
      if (entry.v !== 1 || typeof entry.fingerprint !== 'string' || typeof entry.grains !== 'object' || entry.grains === null || Array.isArray(entry.grains)) throw new Error('not a grains entry');
    } catch (err) {
      this.opts.logger.warn({ code: 'NATS_KV_VALUE_INVALID', key: key.slice(0, 200) }, `skipped an entry of the ${MINION_DATA_BUCKET} bucket: ${(err as Error).message}`);
      return;
    }
    const d = digest(entry.fingerprint, entry.grains);
    if (this.known.get(id) === d) return;
    this.known.set(id, d);
    // grains sent under a key since deleted or replaced are not this minion's any more
    if (this.opts.acceptedFingerprint(id) !== entry.fingerprint) return;
    this.opts.apply(id, entry.fingerprint, entry.grains);
  }

  /** Grains this master received from a minion: written to the bucket unless it holds them already. */
  offer(id: string, fingerprint: string, grains: Record<string, unknown>): void {
    if (this.stopped) return;
    const d = digest(fingerprint, grains);
    if (this.known.get(id) === d) return;
    this.known.set(id, d);
    const entry: Entry = { v: 1, fingerprint, grains };
    this.kv.put(kvKeyOf(id), JSON.stringify(entry)).catch((err: unknown) => {
      this.known.delete(id);
      this.opts.logger.warn({ code: 'NATS_KV_UNAVAILABLE', id }, `could not share the grains of ${id} with the other masters: ${(err as Error).message}`);
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopWatch?.();
    await this.watching;
  }
}
