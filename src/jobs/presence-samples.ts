// How many minions were connected over the last day, sampled by the master (the web view's fleet
// chart, GET /fleet/history). One row per sample in the job cache file, so a standalone
// `brine api` reads the same history and a restart keeps it; rows older than a day are dropped.

import type Database from 'better-sqlite3';

/** The chart's span; older samples are pruned. */
export const PRESENCE_SAMPLE_WINDOW_MS = 86_400_000;

export const PRESENCE_SAMPLES_SCHEMA = `
CREATE TABLE IF NOT EXISTS presence_samples (
  at INTEGER NOT NULL,
  connected INTEGER NOT NULL,
  known INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS presence_samples_at ON presence_samples (at);
`;

export interface PresenceSample {
  at: number;
  connected: number;
  known: number;
}

/** Prepared statements over one open database; errors are mapped by the owning JobCache. */
export class PresenceSampleTable {
  private readonly insert: Database.Statement;
  private readonly prune: Database.Statement;
  private readonly select: Database.Statement;

  constructor(db: Database.Database) {
    this.insert = db.prepare('INSERT INTO presence_samples (at, connected, known) VALUES (?, ?, ?)');
    this.prune = db.prepare('DELETE FROM presence_samples WHERE at < ?');
    this.select = db.prepare('SELECT at, connected, known FROM presence_samples WHERE at >= ? ORDER BY at');
  }

  /** Adds a sample and drops those that left the window. */
  add(s: PresenceSample): void {
    this.insert.run(Math.floor(s.at), s.connected, s.known);
    this.prune.run(Math.floor(s.at - PRESENCE_SAMPLE_WINDOW_MS));
  }

  since(at: number): PresenceSample[] {
    return this.select.all(Math.floor(at)) as PresenceSample[];
  }
}
