// Shared key state between masters (issue 13): each master keeps its Salt-layout key files, and
// a JetStream key-value bucket holds one record per minion ID that every master follows. Local
// changes are published with compare-and-set; the bucket's changes are written to the files.
// Which side changed is decided against what both last agreed on (key-record.ts, decideMerge).

import { type KV, type KvEntry, Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { KeyStore } from '../pki/key-store.js';
import { BrineError, isBrineError, errorMessage } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { minionIdProblem } from '../util/minion-id.js';
import { join } from 'node:path';
import { applyLocal, decideMerge, digestOf, encodeRecord, type KeySet, kvKeyOf, minionIdOfKvKey, NO_KEYS, parseRecord, readLocal } from './key-record.js';
import { KeySyncBase } from './key-sync-base.js';

export const DEFAULT_KEY_BUCKET = 'brine-keys';
const DEFAULT_HISTORY = 5;
const DEFAULT_TIMEOUT_MS = 5000;
/** Compare-and-set rounds for one ID before leaving it to the next publish. */
const CAS_ATTEMPTS = 5;
/** Bucket writes in flight at once when many IDs changed (a master joining with 10,000 keys). */
const WRITE_CONCURRENCY = 16;

export interface KeyStateSyncOptions {
  /** This master's connection in BRINE. */
  nc: NatsConnection;
  keys: KeyStore;
  logger: Logger;
  /** This master's name, written into each record as `by`. */
  name: string;
  /** Bucket replicas: 1 for one server, 3 (or 5) for a cluster. */
  replicas: number;
  bucket?: string;
  history?: number;
  /** Where what this master and the bucket last agreed on is kept; default <pki_dir>/nats/key-sync-<bucket>.json, null for none. */
  stateFile?: string | null;
  /** Called with the IDs whose key files this object changed (the master reconciles sessions there). */
  onApplied?: (ids: string[]) => void;
  /** Per bucket request, and for start() to read the bucket (ms). */
  timeoutMs?: number;
}

export interface PublishResult {
  /** IDs written to the bucket. */
  published: string[];
  /** IDs whose files were changed to the bucket's record instead (a conflict: the bucket won). */
  conflicts: string[];
  /** IDs skipped: a damaged key file, an invalid ID, or a record that kept changing under us. */
  failed: string[];
}

interface Known {
  /** Bucket revision of the last entry seen or written for the ID. */
  rev: number;
  /** Digest of that entry (NO_KEYS for a delete); for a malformed entry, of the last valid one. */
  digest: string;
  /**
   * The entry at `rev` is malformed: a master holding keys for the ID replaces it at its next
   * publish; one without keys leaves it (it must not turn someone's garbage into a delete).
   */
  invalid?: true;
  /** The ID's file stamp when the files last matched `digest`: an unchanged stamp needs no read. */
  stamp?: string;
}

type Watch = Awaited<ReturnType<KV['watch']>>;

function unavailable(bucket: string, err: unknown): BrineError {
  if (isBrineError(err, 'NATS_KV_UNAVAILABLE')) return err;
  return new BrineError(
    'NATS_KV_UNAVAILABLE',
    `the key bucket ${bucket} did not answer (${errorMessage(err)}): check that a majority of the NATS servers run with JetStream; key changes stay in this master's files and are published when the bucket answers again`,
    { cause: err },
  );
}

const isWrongLastSequence = (err: unknown): boolean => (err as { code?: unknown })?.code === 10071 || /wrong last sequence/i.test(errorMessage(err));

export class KeyStateSync {
  private readonly known = new Map<string, Known>();
  private readonly bucket: string;
  private chain: Promise<unknown> = Promise.resolve();
  private watch: Watch | undefined;
  private loop: Promise<void> = Promise.resolve();
  private stopped = false;
  private wake: (() => void) | undefined;
  private lastRevision = 0;
  private readonly pendingApplied = new Set<string>();
  /** Set once every entry up to the start's last revision was read. */
  private caughtUp = false;

  private constructor(
    private readonly opts: KeyStateSyncOptions,
    private readonly kv: KV,
    private readonly base: KeySyncBase,
  ) {
    this.bucket = opts.bucket ?? DEFAULT_KEY_BUCKET;
  }

  /**
   * Opens (or creates) the bucket, reconciles every ID with it (see decideMerge) and follows it.
   * Resolves once the files and the bucket agree; NATS_KV_UNAVAILABLE if the bucket cannot be read.
   */
  static async start(opts: KeyStateSyncOptions): Promise<KeyStateSync> {
    const bucket = opts.bucket ?? DEFAULT_KEY_BUCKET;
    const timeout = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    let kv: KV | undefined;
    let lastSeq = 0;
    for (let attempt = 1; kv === undefined; attempt++) {
      try {
        // a new replica on a server that has not loaded the account yet can fail once (scale-out.md)
        kv = await new Kvm(opts.nc).create(bucket, { replicas: opts.replicas, history: opts.history ?? DEFAULT_HISTORY, timeout });
        lastSeq = (await kv.status()).streamInfo.state.last_seq;
      } catch (err) {
        kv = undefined;
        if (attempt >= 3) throw unavailable(bucket, err);
        await new Promise((r) => setTimeout(r, 500 * attempt));
      }
    }
    const stateFile = opts.stateFile === undefined ? join(opts.keys.pkiDir, 'nats', `key-sync-${bucket}.json`) : (opts.stateFile ?? undefined);
    const sync = new KeyStateSync(opts, kv, KeySyncBase.load(stateFile, bucket, opts.logger));
    let ready!: { resolve: () => void; reject: (err: unknown) => void };
    const caughtUp = new Promise<void>((resolve, reject) => {
      ready = { resolve, reject };
    });
    sync.loop = sync.follow(lastSeq, ready);
    // only reading the bucket has a deadline: publishing a joining master's 10,000 keys may take longer
    const deadline = setTimeout(() => {
      if (!sync.caughtUp) ready.reject(unavailable(bucket, new Error(`its entries were not read within ${timeout * 4} ms`)));
    }, timeout * 4);
    try {
      await caughtUp;
    } catch (err) {
      await sync.stop();
      throw err;
    } finally {
      clearTimeout(deadline);
    }
    return sync;
  }

  /**
   * Publishes this master's key changes: the given IDs (after `brine key`, a sign-in), or every ID
   * (a periodic scan; an ID whose files are unchanged since they last matched the bucket costs a
   * few stats). Throws NATS_KV_UNAVAILABLE if the bucket does not answer; what was not published
   * is published by the next call.
   */
  publishLocal(ids?: readonly string[]): Promise<PublishResult> {
    return this.locked(async () => {
      const result: PublishResult = { published: [], conflicts: [], failed: [] };
      if (this.stopped) return result;
      const scan = ids === undefined;
      const all = scan ? this.allIds() : [...new Set(ids)];
      const changed: Array<{ id: string; local: KeySet; stamp: string }> = [];
      for (const id of all) {
        try {
          const known = this.known.get(id);
          const stamp = this.opts.keys.idStamp(id); // before the read: a change after it shows next time
          if (scan && known?.stamp === stamp) continue;
          const local = readLocal(this.opts.keys, id);
          const digest = digestOf(local);
          if (known?.invalid === true ? digest === NO_KEYS : digest === (known?.digest ?? NO_KEYS)) {
            if (known !== undefined) known.stamp = stamp;
            continue;
          }
          changed.push({ id, local, stamp });
        } catch (err) {
          result.failed.push(id);
          this.opts.logger.error({ code: (err as BrineError).code ?? 'INTERNAL', id, err: errorMessage(err) }, `cannot publish the keys of ${id}: ${errorMessage(err)}`);
        }
      }
      await this.pool(changed, async ({ id, local, stamp }) => {
        const outcome = await this.write(id, local, stamp);
        if (outcome === 'published') result.published.push(id);
        else if (outcome === 'conflict') result.conflicts.push(id);
        else if (outcome === 'failed') result.failed.push(id);
      });
      this.flushApplied();
      return result;
    });
  }

  /** Stops following the bucket and saves the agreed state. Idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.watch?.stop();
    this.wake?.();
    await this.loop.catch(() => undefined);
    await this.chain.catch(() => undefined);
    this.base.save();
  }

  /** Follows the bucket from its start; reconciles once caught up with `lastSeq`, then applies updates. */
  private async follow(lastSeq: number, ready: { resolve: () => void; reject: (err: unknown) => void }): Promise<void> {
    let initial: Map<string, KvEntry> | undefined = new Map();
    const catchUp = async (): Promise<void> => {
      const entries = initial ?? new Map<string, KvEntry>();
      initial = undefined;
      this.caughtUp = true;
      try {
        await this.locked(() => this.reconcileAll(entries));
        ready.resolve();
      } catch (err) {
        ready.reject(err);
      }
    };
    if (lastSeq === 0) await catchUp();
    for (let attempt = 0; !this.stopped; attempt++) {
      try {
        this.watch = await this.kv.watch(this.lastRevision > 0 ? { resumeFromRevision: this.lastRevision + 1 } : {});
        if (this.stopped) this.watch.stop();
        for await (const e of this.watch) {
          attempt = 0;
          this.lastRevision = Math.max(this.lastRevision, e.revision);
          if (initial !== undefined) {
            initial.set(e.key, e);
            if (e.revision >= lastSeq) await catchUp();
            continue;
          }
          await this.locked(() => this.onEntry(e));
          // a burst of entries is applied before the master hears of it once
          if (this.watch.getPending() === 0) this.flushApplied();
        }
      } catch (err) {
        if (!this.stopped) this.opts.logger.error({ code: 'NATS_KV_UNAVAILABLE', bucket: this.bucket, err: errorMessage(err) }, `watching the key bucket ${this.bucket} failed; retrying`);
      }
      if (this.stopped) break;
      this.flushApplied();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(30_000, 250 * 2 ** Math.min(attempt, 7)));
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** The start: every ID this master has files for or the bucket knows, merged one by one. */
  private async reconcileAll(entries: ReadonlyMap<string, KvEntry>): Promise<void> {
    const remote = new Map<string, { rev: number; set: KeySet | undefined; digest: string }>();
    for (const e of entries.values()) {
      const parsed = this.parseEntry(e);
      if (parsed !== undefined) remote.set(parsed.id, parsed);
    }
    const local = this.opts.keys.listAll();
    const ids = new Set([...local.accepted, ...local.pending, ...local.rejected, ...local.denied, ...remote.keys()]);
    const toPublish: Array<{ id: string; local: KeySet; stamp: string }> = [];
    for (const id of ids) {
      const r = remote.get(id);
      const set = r?.set;
      if (r !== undefined && set === undefined) {
        this.markInvalid(id, r.rev);
        continue;
      }
      const stamp = this.opts.keys.idStamp(id);
      const mine = this.readTolerant(id);
      // (a record whose set did not parse was marked invalid above)
      if (r === undefined || set === undefined) {
        if (mine !== undefined && digestOf(mine) !== NO_KEYS) toPublish.push({ id, local: mine, stamp });
        continue;
      }
      this.settle(id, mine, stamp, r.rev, set, r.digest, toPublish);
    }
    await this.pool(toPublish, async ({ id, local: set, stamp }) => {
      await this.write(id, set, stamp);
    });
    this.flushApplied();
  }

  /** One live bucket entry: ignored if not newer than what this master wrote or saw. */
  private async onEntry(e: KvEntry): Promise<void> {
    const parsed = this.parseEntry(e);
    if (parsed === undefined) return;
    const known = this.known.get(parsed.id);
    if (known !== undefined && e.revision <= known.rev) return; // the echo of our own write
    if (parsed.set === undefined) {
      this.markInvalid(parsed.id, e.revision);
      return;
    }
    const stamp = this.opts.keys.idStamp(parsed.id);
    const mine = this.readTolerant(parsed.id);
    const toPublish: Array<{ id: string; local: KeySet; stamp: string }> = [];
    this.settle(parsed.id, mine, stamp, e.revision, parsed.set, parsed.digest, toPublish);
    for (const p of toPublish) await this.write(p.id, p.local, p.stamp);
  }

  /** The ID's local keys, or undefined (logged) when a file is damaged: the bucket's record then replaces them. */
  private readTolerant(id: string): KeySet | undefined {
    try {
      return readLocal(this.opts.keys, id);
    } catch (err) {
      this.opts.logger.error({ code: 'PKI_KEY_INVALID', id, err: errorMessage(err) }, `cannot read the keys of ${id}; the key bucket's record replaces them`);
      return undefined;
    }
  }

  /**
   * Merges one ID with a bucket record: records agreement, applies the record, or queues a
   * publish. `mine` undefined (damaged files) always takes the record.
   */
  private settle(id: string, mine: KeySet | undefined, stamp: string, rev: number, remote: KeySet, remoteDigest: string, toPublish: Array<{ id: string; local: KeySet; stamp: string }>): void {
    const decision = mine === undefined ? 'apply' : decideMerge(digestOf(mine), remoteDigest, this.known.get(id)?.digest ?? this.base.get(id));
    if (decision === 'publish' && mine !== undefined) {
      this.agree(id, rev, remoteDigest, undefined);
      toPublish.push({ id, local: mine, stamp });
      return;
    }
    if (decision === 'same') {
      this.agree(id, rev, remoteDigest, stamp);
      return;
    }
    if (decision === 'conflict') {
      this.opts.logger.warn(
        { code: 'NATS_KEY_SYNC_CONFLICT', id, revision: rev },
        `the keys of ${id} changed both here and in the key bucket; keeping the bucket's (check with brine key -L and repeat the command if needed)`,
      );
    }
    try {
      applyLocal(this.opts.keys, id, remote);
      this.agree(id, rev, remoteDigest, this.opts.keys.idStamp(id));
      this.pendingApplied.add(id);
    } catch (err) {
      // left disagreeing (no stamp): the next publish reads the files and retries this record's ID
      this.known.set(id, { rev, digest: remoteDigest });
      this.opts.logger.error({ code: (err as BrineError).code ?? 'INTERNAL', id, err: errorMessage(err) }, `cannot write the keys of ${id} from the key bucket: ${errorMessage(err)}`);
    }
  }

  /**
   * Writes the ID's local keys to the bucket with compare-and-set on the last revision seen. On a
   * conflicting revision the entry is read again and merged: the same keys, a retry, or the bucket wins.
   */
  private async write(id: string, local: KeySet, stamp: string): Promise<'published' | 'same' | 'conflict' | 'failed'> {
    const key = kvKeyOf(id);
    const digest = digestOf(local);
    for (let attempt = 1; attempt <= CAS_ATTEMPTS; attempt++) {
      const known = this.known.get(id);
      try {
        if (digest === NO_KEYS) {
          if (known === undefined || known.digest === NO_KEYS) return 'same';
          await this.kv.delete(key, { previousSeq: known.rev });
          this.agree(id, known.rev, NO_KEYS, stamp); // the delete's revision comes back on the watch, as "same"
        } else {
          const value = encodeRecord(local, this.opts.name, Date.now());
          const rev = known === undefined ? await this.kv.create(key, value) : await this.kv.update(key, value, known.rev);
          this.agree(id, rev, digest, stamp);
        }
        return 'published';
      } catch (err) {
        if (!isWrongLastSequence(err)) throw unavailable(this.bucket, err);
      }
      let entry: KvEntry | null;
      try {
        entry = await this.kv.get(key);
      } catch (err) {
        throw unavailable(this.bucket, err);
      }
      if (entry === null) {
        this.known.delete(id);
        continue;
      }
      const parsed = this.parseEntry(entry);
      if (parsed?.set === undefined) {
        this.markInvalid(id, entry.revision);
        continue;
      }
      const toPublish: Array<{ id: string; local: KeySet; stamp: string }> = [];
      const before = this.pendingApplied.has(id);
      this.settle(id, local, stamp, entry.revision, parsed.set, parsed.digest, toPublish);
      if (toPublish.length > 0) continue;
      return this.pendingApplied.has(id) && !before ? 'conflict' : 'same';
    }
    this.opts.logger.warn({ code: 'NATS_KEY_SYNC_CONFLICT', id }, `the record of ${id} in the key bucket kept changing; publishing it again later`);
    return 'failed';
  }

  private agree(id: string, rev: number, digest: string, stamp: string | undefined): void {
    this.known.set(id, stamp === undefined ? { rev, digest } : { rev, digest, stamp });
    this.base.set(id, digest);
  }

  private markInvalid(id: string, rev: number): void {
    this.known.set(id, { rev, digest: this.known.get(id)?.digest ?? this.base.get(id) ?? NO_KEYS, invalid: true });
  }

  /** ID and record of an entry, `set` undefined for a malformed value; undefined for a key no ID maps to. */
  private parseEntry(e: KvEntry): { id: string; rev: number; set: KeySet | undefined; digest: string } | undefined {
    let id: string;
    try {
      id = minionIdOfKvKey(e.key);
    } catch (err) {
      this.opts.logger.error(
        { code: 'NATS_KV_VALUE_INVALID', key: e.key.slice(0, 300), revision: e.revision },
        `skipping key bucket entry ${JSON.stringify(e.key.slice(0, 80))}: ${errorMessage(err)}`,
      );
      return undefined;
    }
    if (e.operation !== 'PUT') return { id, rev: e.revision, set: { denied: [] }, digest: NO_KEYS };
    try {
      const set = parseRecord(e.value);
      return { id, rev: e.revision, set, digest: digestOf(set) };
    } catch (err) {
      this.opts.logger.error(
        { code: 'NATS_KV_VALUE_INVALID', id, revision: e.revision, err: errorMessage(err) },
        `skipping the key bucket's record of ${id} (revision ${e.revision}): ${errorMessage(err)}; this master's files for ${id} are kept and replace it at the next publish`,
      );
      return { id, rev: e.revision, set: undefined, digest: '' };
    }
  }

  /** Every ID with local files or a record this master knows of (a scan must see local deletes). */
  private allIds(): string[] {
    const local = this.opts.keys.listAll();
    const ids = new Set([...local.accepted, ...local.pending, ...local.rejected, ...local.denied]);
    for (const [id, k] of this.known) if (k.digest !== NO_KEYS && minionIdProblem(id) === undefined) ids.add(id);
    return [...ids];
  }

  private flushApplied(): void {
    if (this.pendingApplied.size === 0) return;
    const ids = [...this.pendingApplied];
    this.pendingApplied.clear();
    try {
      this.opts.onApplied?.(ids);
    } catch (err) {
      this.opts.logger.error({ err: errorMessage(err) }, 'the key sync onApplied callback failed');
    }
  }

  /** Runs `fn` after every earlier call: the watch, the start and publishes never interleave. */
  private locked<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn, fn);
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Runs `fn` over items, WRITE_CONCURRENCY at a time; the first error stops the rest and is thrown. */
  private async pool<T>(items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
    // the workers share one iterator: each item is taken by exactly one of them
    const queue = items.values();
    let failure: unknown;
    const worker = async (): Promise<void> => {
      for (const item of queue) {
        if (failure !== undefined) return;
        try {
          await fn(item);
        } catch (err) {
          failure ??= err;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(WRITE_CONCURRENCY, items.length) }, worker));
    if (failure !== undefined) throw failure;
  }
}
