// The master's minion data cache on disk: each minion's last grains, with the fingerprint of the
// key that sent them, in the `minion_data` table of the job cache file, so grain targeting works
// right after a master restart. The fingerprint lets the master drop data sent under a key that
// is no longer accepted (a re-imaged host must not inherit its predecessor's grains).

import type Database from 'better-sqlite3';
import { assertValidMinionId } from '../util/minion-id.js';

export const MINION_DATA_SCHEMA = `
CREATE TABLE IF NOT EXISTS minion_data (
  id TEXT PRIMARY KEY,
  fingerprint TEXT NOT NULL,
  grains TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
`;

export interface MinionDataRecord {
  id: string;
  /** Fingerprint of the key whose session sent these grains. */
  fingerprint: string;
  grains: Record<string, unknown>;
  /** Milliseconds since the epoch. */
  updatedAt: number;
}

interface Row {
  id: string;
  fingerprint: string;
  grains: string;
  updated_at: number;
}

/** Prepared statements over one open database; errors are mapped by the owning JobCache. */
export class MinionDataTable {
  private readonly upsert: Database.Statement;
  private readonly selectAll: Database.Statement;
  private readonly selectOne: Database.Statement;
  private readonly deleteOne: Database.Statement;

  constructor(db: Database.Database) {
    this.upsert = db.prepare(
      `INSERT INTO minion_data (id, fingerprint, grains, updated_at) VALUES (@id, @fingerprint, @grains, @updated_at)
       ON CONFLICT (id) DO UPDATE SET fingerprint = excluded.fingerprint, grains = excluded.grains, updated_at = excluded.updated_at`,
    );
    this.selectAll = db.prepare('SELECT * FROM minion_data ORDER BY id');
    this.selectOne = db.prepare('SELECT * FROM minion_data WHERE id = ?');
    this.deleteOne = db.prepare('DELETE FROM minion_data WHERE id = ?');
  }

  save(rec: MinionDataRecord): void {
    assertValidMinionId(rec.id);
    this.upsert.run({ id: rec.id, fingerprint: rec.fingerprint, grains: JSON.stringify(rec.grains), updated_at: Math.floor(rec.updatedAt) });
  }

  get(id: string): MinionDataRecord | undefined {
    const row = this.selectOne.get(id) as Row | undefined;
    return row === undefined ? undefined : toRecord(row);
  }

  all(): MinionDataRecord[] {
    return (this.selectAll.all() as Row[]).map(toRecord);
  }

  delete(id: string): boolean {
    return this.deleteOne.run(id).changes > 0;
  }
}

function toRecord(row: Row): MinionDataRecord {
  return { id: row.id, fingerprint: row.fingerprint, grains: JSON.parse(row.grains) as Record<string, unknown>, updatedAt: row.updated_at };
}
