// Which minions a job was actually sent to, in the `job_sent` table of the job cache file. A
// return is stored only from one of them (threats.md #36): a minion that was offline at publish
// and returns later for the jid was never asked, so its "return" is forged or stray. Kept on
// disk so a minion's queued return is still recognised after a master restart.

import type Database from 'better-sqlite3';

export const JOB_SENT_SCHEMA = `
CREATE TABLE IF NOT EXISTS job_sent (
  jid TEXT PRIMARY KEY,
  minions TEXT NOT NULL
);
`;

/** Prepared statements over one open database; errors are mapped by the owning JobCache. */
export class JobSentTable {
  private readonly upsert: Database.Statement;
  private readonly selectOne: Database.Statement;
  private readonly deleteOne: Database.Statement;

  constructor(db: Database.Database) {
    this.upsert = db.prepare('INSERT OR REPLACE INTO job_sent (jid, minions) VALUES (?, ?)');
    this.selectOne = db.prepare('SELECT minions FROM job_sent WHERE jid = ?');
    this.deleteOne = db.prepare('DELETE FROM job_sent WHERE jid = ?');
  }

  save(jid: string, minions: readonly string[]): void {
    this.upsert.run(jid, JSON.stringify(minions));
  }

  /** undefined for a job published before this table existed (or never sent to anyone). */
  get(jid: string): string[] | undefined {
    const row = this.selectOne.get(jid) as { minions: string } | undefined;
    return row === undefined ? undefined : (JSON.parse(row.minions) as string[]);
  }

  /** Drops the rows of purged jobs (in the purge's transaction). */
  delete(jids: readonly string[]): void {
    for (const jid of jids) this.deleteOne.run(jid);
  }
}
