// The presence history behind `brine minions status` (connects, unplanned drops with how long the
// connection had been up and silent, the last disconnect), in the job cache file, so a master
// restart does not wipe the evidence of a flapping minion. Bounded: only the last hour counts,
// at most PRESENCE_MAX_PER_MINION rows of each kind per minion and PRESENCE_MAX_ROWS in total.

import type Database from 'better-sqlite3';
import { assertValidMinionId } from '../util/minion-id.js';

/** The window `brine minions status` reports on; older rows are pruned. */
export const PRESENCE_WINDOW_MS = 3_600_000;
/** Connects (and, separately, drops) kept per minion: more than enough to call it flapping. */
export const PRESENCE_MAX_PER_MINION = 200;
/** Rows kept in total across all minions; the oldest go first. */
export const PRESENCE_MAX_ROWS = 100_000;
/** Age and total pruning run once per this many writes (per-minion pruning runs on each). */
const PRUNE_EVERY = 500;

export const PRESENCE_SCHEMA = `
CREATE TABLE IF NOT EXISTS presence_history (
  id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('connect', 'drop')),
  at INTEGER NOT NULL,
  reason TEXT,
  connected_for_ms INTEGER,
  silent_for_ms INTEGER
);
CREATE INDEX IF NOT EXISTS presence_history_id ON presence_history (id, kind, at);
CREATE INDEX IF NOT EXISTS presence_history_at ON presence_history (at);
CREATE TABLE IF NOT EXISTS presence_last (
  id TEXT PRIMARY KEY,
  remote TEXT,
  agent TEXT,
  protocol INTEGER,
  last_seen INTEGER,
  rtt_ms REAL,
  last_disconnect_reason TEXT,
  last_disconnect_at INTEGER
);
`;

export interface PresenceDrop {
  at: number;
  reason: string;
  connectedForMs: number;
  silentForMs: number;
}

/** What is known of a minion's last connection, kept while it is disconnected. */
export interface PresenceLast {
  remote?: string | undefined;
  agent?: string | undefined;
  protocol?: number | undefined;
  lastSeen?: number | undefined;
  rttMs?: number | undefined;
  lastDisconnectReason?: string | undefined;
  lastDisconnectAt?: number | undefined;
}

export interface PresenceRecord {
  id: string;
  /** Connect times within the window, oldest first. */
  connects: number[];
  /** Unplanned drops within the window, oldest first. */
  drops: PresenceDrop[];
  last: PresenceLast;
}

interface HistoryRow {
  id: string;
  kind: 'connect' | 'drop';
  at: number;
  reason: string | null;
  connected_for_ms: number | null;
  silent_for_ms: number | null;
}

interface LastRow {
  id: string;
  remote: string | null;
  agent: string | null;
  protocol: number | null;
  last_seen: number | null;
  rtt_ms: number | null;
  last_disconnect_reason: string | null;
  last_disconnect_at: number | null;
}

const orUndefined = <T>(v: T | null): T | undefined => (v === null ? undefined : v);

/** Prepared statements over one open database; errors are mapped by the owning JobCache. */
export class PresenceHistoryTable {
  private readonly insert: Database.Statement;
  private readonly trimMinion: Database.Statement;
  private readonly upsertLast: Database.Statement;
  private readonly pruneOld: Database.Statement;
  private readonly pruneTotal: Database.Statement;
  private readonly selectHistory: Database.Statement;
  private readonly selectLast: Database.Statement;
  private readonly deleteHistory: Database.Statement;
  private readonly deleteLast: Database.Statement;
  private writes = 0;

  constructor(
    private readonly db: Database.Database,
    private readonly limits: { perMinion: number; total: number } = { perMinion: PRESENCE_MAX_PER_MINION, total: PRESENCE_MAX_ROWS },
  ) {
    this.insert = db.prepare('INSERT INTO presence_history (id, kind, at, reason, connected_for_ms, silent_for_ms) VALUES (@id, @kind, @at, @reason, @connected_for_ms, @silent_for_ms)');
    this.trimMinion = db.prepare(
      `DELETE FROM presence_history WHERE id = @id AND kind = @kind AND rowid NOT IN
         (SELECT rowid FROM presence_history WHERE id = @id AND kind = @kind ORDER BY at DESC, rowid DESC LIMIT @keep)`,
    );
    this.upsertLast = db.prepare(
      `INSERT INTO presence_last (id, remote, agent, protocol, last_seen, rtt_ms, last_disconnect_reason, last_disconnect_at)
       VALUES (@id, @remote, @agent, @protocol, @last_seen, @rtt_ms, @last_disconnect_reason, @last_disconnect_at)
       ON CONFLICT (id) DO UPDATE SET remote = excluded.remote, agent = excluded.agent, protocol = excluded.protocol, last_seen = excluded.last_seen,
         rtt_ms = excluded.rtt_ms, last_disconnect_reason = excluded.last_disconnect_reason, last_disconnect_at = excluded.last_disconnect_at`,
    );
    this.pruneOld = db.prepare('DELETE FROM presence_history WHERE at < ?');
    this.pruneTotal = db.prepare('DELETE FROM presence_history WHERE rowid IN (SELECT rowid FROM presence_history ORDER BY at DESC, rowid DESC LIMIT -1 OFFSET ?)');
    this.selectHistory = db.prepare('SELECT * FROM presence_history WHERE at >= ? ORDER BY id, at, rowid');
    this.selectLast = db.prepare('SELECT * FROM presence_last ORDER BY id');
    this.deleteHistory = db.prepare('DELETE FROM presence_history WHERE id = ?');
    this.deleteLast = db.prepare('DELETE FROM presence_last WHERE id = ?');
  }

  /** A connect, with what the new session says about the minion. */
  connect(id: string, at: number, last: PresenceLast): void {
    assertValidMinionId(id);
    this.db.transaction(() => {
      this.add(id, 'connect', at, null, null, null);
      this.saveLast(id, last);
    })();
    this.afterWrite(at);
  }

  /** A disconnect: `drop` is set when it was unplanned (it counts towards flapping). */
  disconnect(id: string, last: PresenceLast, drop: PresenceDrop | undefined): void {
    assertValidMinionId(id);
    this.db.transaction(() => {
      if (drop) this.add(id, 'drop', drop.at, drop.reason, Math.round(drop.connectedForMs), Math.round(drop.silentForMs));
      this.saveLast(id, last);
    })();
    this.afterWrite(drop?.at ?? last.lastDisconnectAt ?? 0);
  }

  /** Everything known, per minion, with history rows no older than `since`. */
  load(since: number): PresenceRecord[] {
    const out = new Map<string, PresenceRecord>();
    const entry = (id: string) => {
      let r = out.get(id);
      if (!r) {
        r = { id, connects: [], drops: [], last: {} };
        out.set(id, r);
      }
      return r;
    };
    for (const row of this.selectLast.all() as LastRow[]) {
      entry(row.id).last = {
        remote: orUndefined(row.remote),
        agent: orUndefined(row.agent),
        protocol: orUndefined(row.protocol),
        lastSeen: orUndefined(row.last_seen),
        rttMs: orUndefined(row.rtt_ms),
        lastDisconnectReason: orUndefined(row.last_disconnect_reason),
        lastDisconnectAt: orUndefined(row.last_disconnect_at),
      };
    }
    for (const row of this.selectHistory.all(since) as HistoryRow[]) {
      const r = entry(row.id);
      if (row.kind === 'connect') r.connects.push(row.at);
      else r.drops.push({ at: row.at, reason: row.reason ?? 'unknown', connectedForMs: row.connected_for_ms ?? 0, silentForMs: row.silent_for_ms ?? 0 });
    }
    return [...out.values()];
  }

  /** Forgets an ID entirely (its key was deleted or is no longer accepted). */
  forget(id: string): void {
    this.db.transaction(() => {
      this.deleteHistory.run(id);
      this.deleteLast.run(id);
    })();
  }

  /** Drops rows older than the window and the oldest beyond the total bound. */
  prune(now: number): void {
    this.pruneOld.run(Math.floor(now - PRESENCE_WINDOW_MS));
    this.pruneTotal.run(this.limits.total);
  }

  private add(id: string, kind: 'connect' | 'drop', at: number, reason: string | null, connectedFor: number | null, silentFor: number | null): void {
    this.insert.run({ id, kind, at: Math.floor(at), reason, connected_for_ms: connectedFor, silent_for_ms: silentFor });
    this.trimMinion.run({ id, kind, keep: this.limits.perMinion });
  }

  private saveLast(id: string, last: PresenceLast): void {
    const n = (v: number | undefined) => (v === undefined ? null : v);
    this.upsertLast.run({
      id,
      remote: last.remote ?? null,
      agent: last.agent ?? null,
      protocol: n(last.protocol),
      last_seen: n(last.lastSeen),
      rtt_ms: n(last.rttMs),
      last_disconnect_reason: last.lastDisconnectReason ?? null,
      last_disconnect_at: n(last.lastDisconnectAt),
    });
  }

  private afterWrite(now: number): void {
    if (++this.writes % PRUNE_EVERY === 0) this.prune(now);
  }
}
