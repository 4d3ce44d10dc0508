// Minion data shared by the masters of one NATS cluster: the grains and mine a minion sends reach
// every running master (grains on brine.hb.<m>, mine requests on brine.req.<m>.mine), the pillar
// is rendered by the one master that answered the minion's request, and each master offers what
// it then holds to the `brine-minion-data` key-value bucket, so every master (one that starts
// later, or lost its job cache, too) targets by grain and pillar and answers mine.get at once
// instead of waiting for each minion to send again. Pillar data is as secret here as in a
// master's cachedir: the bucket is readable by masters only (minions are refused $KV.>). Keys are `<kind>.<ID as a KV key>`; an entry carries
// the fingerprint of the key that sent it, and a master takes it only while that key is the
// accepted one (a replaced host's old data never comes back). A flushed mine is a delete.

import { createHash } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import { type KV, Kvm } from '@nats-io/kv';
import { BrineError, toBrineError, errorMessage } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { type Infer, s } from '../protocol/index.js';
import { kvKeyOf, minionIdOfKvKey } from './key-record.js';
import { readShape } from './json-shape.js';

export const MINION_DATA_BUCKET = 'brine-minion-data';

/** What the bucket holds per minion: its grains (the data cache), its rendered pillar, its mine. */
export type SharedKind = 'grains' | 'pillar' | 'mine';
const KINDS: readonly SharedKind[] = ['grains', 'pillar', 'mine'];

export interface MinionDataShareOptions {
  nc: NatsConnection;
  replicas: number;
  logger: Logger;
  /** The accepted key's fingerprint of an ID (undefined: none). */
  acceptedFingerprint(id: string): string | undefined;
  /** Data from the bucket, for this master's data cache or mine. */
  apply(kind: SharedKind, id: string, fingerprint: string, data: Record<string, unknown>): void;
  /** Another master dropped it (a flushed mine). */
  remove(kind: SharedKind, id: string): void;
  bucket?: string;
}

/** One bucket entry: a minion's data of one kind and the key fingerprint it was sent under. */
const ENTRY = s.object({ v: s.int({ min: 1, max: 1 }), fingerprint: s.string(), data: s.record(s.json()) });
type Entry = Infer<typeof ENTRY>;

const digest = (fingerprint: string, data: unknown): string => createHash('sha256').update(fingerprint).update('\0').update(JSON.stringify(data)).digest('base64url');

/** The bucket key of one kind of one minion's data, and back. */
const keyOf = (kind: SharedKind, id: string): string => `${kind}.${kvKeyOf(id)}`;
function parseKey(key: string): { kind: SharedKind; id: string } {
  const dot = key.indexOf('.');
  const kind = KINDS.find((k) => k === key.slice(0, dot));
  if (dot < 0 || kind === undefined) throw new Error(`${key.slice(0, 100)} is not <grains|pillar|mine>.<minion>`);
  return { kind, id: minionIdOfKvKey(key.slice(dot + 1)) };
}

export class MinionDataShare {
  /** bucket key -> digest of the entry this master last wrote or read: an offer of the same is not written again. */
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
      throw new BrineError('NATS_KV_UNAVAILABLE', `cannot open the ${opts.bucket ?? MINION_DATA_BUCKET} bucket: ${errorMessage(err)}`, { cause: err });
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
          else this.dropped(e.key);
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
    let kind: SharedKind;
    let id: string;
    let entry: Entry;
    try {
      ({ kind, id } = parseKey(key));
      entry = readShape(ENTRY, value, 'minion data entry');
    } catch (err) {
      this.opts.logger.warn({ code: 'NATS_KV_VALUE_INVALID', key: key.slice(0, 200) }, `skipped an entry of the ${MINION_DATA_BUCKET} bucket: ${errorMessage(err)}`);
      return;
    }
    const d = digest(entry.fingerprint, entry.data);
    if (this.known.get(key) === d) return;
    this.known.set(key, d);
    // data sent under a key since deleted or replaced is not this minion's any more
    if (this.opts.acceptedFingerprint(id) !== entry.fingerprint) return;
    this.opts.apply(kind, id, entry.fingerprint, entry.data);
  }

  private dropped(key: string): void {
    if (!this.known.has(key)) return;
    this.known.delete(key);
    try {
      const { kind, id } = parseKey(key);
      this.opts.remove(kind, id);
    } catch {}
  }

  /** Data this master holds now for a minion: written to the bucket unless it holds it already. */
  offer(kind: SharedKind, id: string, fingerprint: string, data: Record<string, unknown>): void {
    if (this.stopped) return;
    const key = keyOf(kind, id);
    const d = digest(fingerprint, data);
    if (this.known.get(key) === d) return;
    this.known.set(key, d);
    const entry: Entry = { v: 1, fingerprint, data };
    this.kv.put(key, JSON.stringify(entry)).catch((err: unknown) => {
      this.known.delete(key);
      this.opts.logger.warn({ code: 'NATS_KV_UNAVAILABLE', id }, `could not share the ${kind} of ${id} with the other masters: ${errorMessage(err)}`);
    });
  }

  /** This master dropped a minion's data (a flushed mine): the other masters drop it too. */
  withdraw(kind: SharedKind, id: string): void {
    if (this.stopped) return;
    const key = keyOf(kind, id);
    if (!this.known.delete(key)) return;
    this.kv.delete(key).catch((err: unknown) => {
      this.opts.logger.warn({ code: 'NATS_KV_UNAVAILABLE', id }, `could not withdraw the ${kind} of ${id} from the shared bucket: ${errorMessage(err)}`);
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopWatch?.();
    await this.watching;
  }
}
