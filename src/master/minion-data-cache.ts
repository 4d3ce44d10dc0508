// The master's minion data cache (Salt's minion_data_cache): each minion's grains as it last sent
// them, in memory for targeting and in the job cache file so they survive a master restart.
// Data sent under a key that is no longer the accepted one is dropped, never inherited.

import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { MinionDataRecord } from '../jobs/index.js';

/** The persistent side (JobCache). */
export interface MinionDataStore {
  saveMinionData(rec: MinionDataRecord): void;
  listMinionData(): MinionDataRecord[];
  deleteMinionData(id: string): boolean;
}

interface Entry {
  fingerprint: string;
  grains: Record<string, unknown>;
}

export class MinionDataCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly store: MinionDataStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** The master's minion_data_cache option: off means nothing is kept. */
    readonly enabled: boolean,
  ) {
    if (!enabled) return;
    try {
      for (const rec of store.listMinionData()) this.entries.set(rec.id, { fingerprint: rec.fingerprint, grains: rec.grains });
      if (this.entries.size > 0) logger.info({ minions: this.entries.size }, `loaded cached grains of ${this.entries.size} minions`);
    } catch (err) {
      // targeting still works without it (greedy rule), so a damaged table must not stop the master
      logger.error({ err }, 'could not read the minion data cache from the job cache; grain targets expect every minion until they send their grains again');
    }
  }

  get size(): number {
    return this.entries.size;
  }

  /** Cached grains of a minion, or undefined when the master has none. */
  grainsOf(id: string): Record<string, unknown> | undefined {
    return this.entries.get(id)?.grains;
  }

  ids(): string[] {
    return [...this.entries.keys()];
  }

  /** Grains from an authenticated session (the ID and fingerprint come from the session). */
  put(id: string, fingerprint: string, grains: Record<string, unknown>): void {
    if (!this.enabled) return;
    this.entries.set(id, { fingerprint, grains });
    try {
      this.store.saveMinionData({ id, fingerprint, grains, updatedAt: this.clock.now() });
    } catch (err) {
      this.logger.error({ err, id }, `could not store the grains of ${id} in the job cache; they are kept in memory until the master restarts`);
    }
    this.logger.info({ id, grains: Object.keys(grains).length }, `cached grains of ${id}`);
  }

  /** Forgets a minion (its key was deleted, rejected or replaced). */
  purge(id: string): boolean {
    const had = this.entries.delete(id);
    try {
      this.store.deleteMinionData(id);
    } catch (err) {
      this.logger.error({ err, id }, `could not delete the cached grains of ${id} from the job cache`);
    }
    if (had) this.logger.info({ id }, `forgot the cached grains of ${id}: its key is no longer accepted`);
    return had;
  }

  /**
   * Drops data of IDs that are no longer accepted, and of `suspects` whose accepted key differs
   * from the one that sent the data. `keys` is the master's accepted-key index, which re-reads a
   * key file only when its stamp changed, so this stays cheap for a large fleet.
   */
  reconcile(accepted: ReadonlySet<string>, suspects: Iterable<string>, keys: { fingerprintOf(id: string): string | undefined }): string[] {
    const purged: string[] = [];
    for (const id of [...this.entries.keys()]) {
      if (!accepted.has(id) && this.purge(id)) purged.push(id);
    }
    for (const id of suspects) {
      const entry = this.entries.get(id);
      if (!entry) continue;
      // the master's accepted-key index re-reads a key file only when it changed
      if (keys.fingerprintOf(id) !== entry.fingerprint && this.purge(id)) purged.push(id);
    }
    return purged;
  }
}
