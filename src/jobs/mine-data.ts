// The master's mine on disk: each minion's mine entries (alias -> data and allow_tgt), with the
// fingerprint of the key whose session sent them, in the `mine_data` table of the job cache
// file, so mine.get answers right after a master restart. The fingerprint lets the master drop a
// mine sent under a key that is no longer accepted (a re-imaged host must not inherit it).

import type Database from 'better-sqlite3';
import { assertValidMinionId } from '../util/minion-id.js';

export const MINE_DATA_SCHEMA = `
CREATE TABLE IF NOT EXISTS mine_data (
  id TEXT PRIMARY KEY,
  fingerprint TEXT NOT NULL,
  mine TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
`;

/** One mine entry as stored: the function's return and Salt's allow_tgt restriction. */
export interface StoredMineEntry {
  data: unknown;
  allowTgt?: string | string[];
  allowTgtType?: string;
}

export interface MineRecord {
  id: string;
  /** Fingerprint of the key whose session sent this mine. */
  fingerprint: string;
  mine: Record<string, StoredMineEntry>;
  /** Milliseconds since the epoch. */
  updatedAt: number;
}

interface Row {
  id: string;
  fingerprint: string;
  mine: string;
  updated_at: number;
}

/** Prepared statements over one open database; errors are mapped by the owning JobCache. */
export class MineDataTable {
  private readonly upsert: Database.Statement;
  private readonly selectAll: Database.Statement;
  private readonly deleteOne: Database.Statement;

  constructor(db: Database.Database) {
    this.upsert = db.prepare(
      `INSERT INTO mine_data (id, fingerprint, mine, updated_at) VALUES (@id, @fingerprint, @mine, @updated_at)
       ON CONFLICT (id) DO UPDATE SET fingerprint = excluded.fingerprint, mine = excluded.mine, updated_at = excluded.updated_at`,
    );
    this.selectAll = db.prepare('SELECT * FROM mine_data ORDER BY id');
    this.deleteOne = db.prepare('DELETE FROM mine_data WHERE id = ?');
  }

  save(rec: MineRecord): void {
    assertValidMinionId(rec.id);
    this.upsert.run({ id: rec.id, fingerprint: rec.fingerprint, mine: JSON.stringify(rec.mine), updated_at: Math.floor(rec.updatedAt) });
  }

  all(): MineRecord[] {
    return (this.selectAll.all() as Row[]).map((row) => ({
      id: row.id,
      fingerprint: row.fingerprint,
      mine: JSON.parse(row.mine) as Record<string, StoredMineEntry>,
      updatedAt: row.updated_at,
    }));
  }

  delete(id: string): boolean {
    return this.deleteOne.run(id).changes > 0;
  }
}
