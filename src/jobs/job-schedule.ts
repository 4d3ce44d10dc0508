// Scheduled runs in the job cache (`job_schedule` table): which master jid a minion's scheduled
// run got, and the schedule job's name. The master gives each scheduled return a fresh jid, as
// Salt does for a return with jid "req"; the minion's own jid only keys resends, so a return
// queued across a reconnect (or a master restart) is stored once. A `brine call` run through the
// minion daemon is kept here the same way, with the name '' (a schedule job's name is never empty).

import type Database from 'better-sqlite3';

export const JOB_SCHEDULE_SCHEMA = `
CREATE TABLE IF NOT EXISTS job_schedule (
  jid TEXT PRIMARY KEY,
  minion TEXT NOT NULL,
  minion_jid TEXT NOT NULL,
  name TEXT NOT NULL,
  UNIQUE (minion, minion_jid)
);
`;

export class JobScheduleTable {
  private readonly insert: Database.Statement;
  private readonly byMinionJid: Database.Statement;
  private readonly deleteOne: Database.Statement;

  constructor(db: Database.Database) {
    this.insert = db.prepare('INSERT INTO job_schedule (jid, minion, minion_jid, name) VALUES (?, ?, ?, ?)');
    this.byMinionJid = db.prepare('SELECT jid FROM job_schedule WHERE minion = ? AND minion_jid = ?');
    this.deleteOne = db.prepare('DELETE FROM job_schedule WHERE jid = ?');
  }

  save(jid: string, minion: string, minionJid: string, name: string): void {
    this.insert.run(jid, minion, minionJid, name);
  }

  /** The master jid already given to this minion's run, if its return was stored before. */
  find(minion: string, minionJid: string): string | undefined {
    return (this.byMinionJid.get(minion, minionJid) as { jid: string } | undefined)?.jid;
  }

  /** Drops the rows of purged jobs (in the purge's transaction). */
  delete(jids: readonly string[]): void {
    for (const jid of jids) this.deleteOne.run(jid);
  }
}
