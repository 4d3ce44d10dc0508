// The master's mine (Salt's per-minion `mine` cache bank): each minion's mine entries, in memory
// for mine.get and in the job cache file so they survive a restart. Written only under the
// identity of the session that sent them; a mine sent under a key that is no longer the accepted
// one is dropped, never inherited. mine.get is answered from here, without asking any minion.

import { BrineError } from '../util/errors.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { MAX_MINE_JSON, MAX_MINE_REPLY_JSON, type TargetType } from '../protocol/index.js';
import { matchTarget, selectsByPillar, type MatchOptions, type Target } from '../targeting/index.js';
import type { MineRecord, StoredMineEntry } from '../jobs/index.js';

/** The persistent side (JobCache). */
export interface MineDataStore {
  saveMine(rec: MineRecord): void;
  listMine(): MineRecord[];
  deleteMine(id: string): boolean;
}

interface Entry {
  fingerprint: string;
  mine: Record<string, StoredMineEntry>;
}

export interface MineQuery {
  tgt: Target;
  tgtType: TargetType;
  funs: readonly string[];
  delimiter?: string | undefined;
}

export class MineStore {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly store: MineDataStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** The master's targeting view (cached grains, nodegroups, ...), as for jobs. */
    private readonly targeting: () => Omit<MatchOptions, 'delimiter'>,
    /** mine_get_pillar_targets: minions may select by pillar in mine.get (Salt's behaviour; off by default). */
    private readonly pillarTargets = false,
  ) {
    try {
      for (const rec of store.listMine()) this.entries.set(rec.id, { fingerprint: rec.fingerprint, mine: rec.mine });
      if (this.entries.size > 0) logger.info({ minions: this.entries.size }, `loaded the mine of ${this.entries.size} minions`);
    } catch (err) {
      logger.error({ err }, 'could not read the mine from the job cache; mine.get answers nothing until minions send their mine again (mine.update)');
    }
  }

  ids(): string[] {
    return [...this.entries.keys()];
  }

  /** A minion's mine as stored (tests and diagnostics). */
  mineOf(id: string): Readonly<Record<string, StoredMineEntry>> | undefined {
    return this.entries.get(id)?.mine;
  }

  /**
   * Stores entries sent by the session of `id` (merged over what it had, or replacing it with
   * `clear`). Refused as a whole with MINE_DATA_TOO_LARGE when the result would exceed the bound.
   */
  send(id: string, fingerprint: string, data: Record<string, StoredMineEntry>, clear: boolean): void {
    const old = this.entries.get(id);
    // a mine sent under another key is not this host's: start from nothing
    const base = clear || old === undefined || old.fingerprint !== fingerprint ? {} : old.mine;
    const mine: Record<string, StoredMineEntry> = { ...base };
    for (const [fun, entry] of Object.entries(data)) mine[fun] = entry;
    const size = JSON.stringify(mine).length;
    if (size > MAX_MINE_JSON) {
      throw new BrineError('MINE_DATA_TOO_LARGE', `the mine of ${id} would be ${size} characters of JSON, over the limit of ${MAX_MINE_JSON}; nothing was stored. Mine smaller data`);
    }
    this.save(id, { fingerprint, mine });
    this.logger.debug({ id, funs: Object.keys(data) }, `stored ${Object.keys(data).length} mine entries of ${id}`);
  }

  /** Drops one entry of the session's own mine. */
  deleteFun(id: string, fingerprint: string, fun: string): void {
    const old = this.entries.get(id);
    if (old === undefined || !Object.hasOwn(old.mine, fun)) return;
    const mine = { ...old.mine };
    delete mine[fun];
    this.save(id, { fingerprint, mine });
  }

  /** Drops the session's whole mine (mine.flush). */
  flush(id: string): void {
    this.purge(id, 'flushed');
  }

  /**
   * mine.get for `requester`: {fun: {minion: data}} for the minions with a mine that match the
   * target (Salt's greedy check_minions), leaving out entries whose allow_tgt does not match
   * the requester. Throws TARGET_INVALID for a bad expression, MINE_DATA_TOO_LARGE for an
   * answer over the bound.
   */
  get(requester: string, q: MineQuery): Record<string, Record<string, unknown>> {
    // which minions answer would tell the asker whether their pillar matches its pattern: with
    // pillar_pcre one query per guessed character reads another minion's secret (threats.md #38)
    if (!this.pillarTargets && selectsByPillar(q.tgt, q.tgtType)) {
      throw new BrineError(
        'PILLAR_DENIED',
        "mine.get cannot select minions by their pillar (tgt_type pillar, pillar_pcre, pillar_exact, or I@/J@ in a compound): the answer would tell this minion about another minion's pillar. Target by ID, grains or a nodegroup, or set mine_get_pillar_targets: True on the master if every minion may know every minion's pillar",
      );
    }
    const opts = this.targeting();
    const ids = this.ids();
    const found = matchTarget(q.tgt, q.tgtType, ids, { ...opts, ...(q.delimiter ? { delimiter: q.delimiter } : {}) });
    const selected = new Set([...found.matched, ...found.missing]);
    const out: Record<string, Record<string, unknown>> = {};
    // allow_tgt is evaluated once per distinct restriction
    const allowed = new Map<string, boolean>();
    for (const fun of q.funs) {
      const byMinion: Record<string, unknown> = {};
      for (const id of [...selected].sort()) {
        const entry = this.entries.get(id)?.mine[fun];
        if (entry === undefined) continue;
        if (entry.allowTgt !== undefined && !this.mayRead(requester, entry, opts, allowed)) continue;
        byMinion[id] = entry.data;
      }
      out[fun] = byMinion;
    }
    const size = JSON.stringify(out).length;
    if (size > MAX_MINE_REPLY_JSON) {
      throw new BrineError('MINE_DATA_TOO_LARGE', `the mine.get answer would be ${size} characters of JSON, over the limit of ${MAX_MINE_REPLY_JSON}; narrow the target or ask for fewer functions`);
    }
    return out;
  }

  private mayRead(requester: string, entry: StoredMineEntry, opts: Omit<MatchOptions, 'delimiter'>, cache: Map<string, boolean>): boolean {
    const type = (entry.allowTgtType ?? 'glob') as TargetType;
    const key = JSON.stringify([entry.allowTgt, type]);
    let ok = cache.get(key);
    if (ok === undefined) {
      try {
        // An access rule fails closed: an asker whose grains the master has not cached (never sent,
        // or minion_data_cache off) is judged by empty grains, not let in by Salt's greedy rule.
        const strict = { ...opts, dataCache: true, grains: (id: string) => opts.grains?.(id) ?? {} };
        ok = matchTarget(entry.allowTgt as Target, type, [requester], strict).matched.includes(requester);
      } catch {
        // an allow_tgt that cannot be evaluated allows nobody (fail closed)
        ok = false;
      }
      cache.set(key, ok);
    }
    return ok;
  }

  /** Forgets a minion's mine (its key was deleted, rejected or replaced, or mine.flush). */
  purge(id: string, why = 'its key is no longer accepted'): boolean {
    const had = this.entries.delete(id);
    try {
      this.store.deleteMine(id);
    } catch (err) {
      this.logger.error({ err, id }, `could not delete the mine of ${id} from the job cache`);
    }
    if (had) this.logger.info({ id }, `forgot the mine of ${id}: ${why}`);
    return had;
  }

  /** Drops the mine of IDs no longer accepted, and of IDs whose accepted key is not the one that sent it. */
  reconcile(accepted: ReadonlySet<string>, keys: { fingerprintOf(id: string): string | undefined }): string[] {
    const purged: string[] = [];
    for (const [id, entry] of [...this.entries]) {
      if (!accepted.has(id) || keys.fingerprintOf(id) !== entry.fingerprint) {
        if (this.purge(id)) purged.push(id);
      }
    }
    return purged;
  }

  private save(id: string, entry: Entry): void {
    this.entries.set(id, entry);
    try {
      this.store.saveMine({ id, fingerprint: entry.fingerprint, mine: entry.mine, updatedAt: this.clock.now() });
    } catch (err) {
      this.logger.error({ err, id }, `could not store the mine of ${id} in the job cache; it is kept in memory until the master restarts`);
    }
  }
}
