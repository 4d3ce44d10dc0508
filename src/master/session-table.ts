// Who is connected, since when, from where, and why each minion that is not connected left.
// One live session per ID: attaching a new session for an ID returns the one it replaces. The
// history (connects, drops, the last disconnect) is written through to a PresenceStore (the job
// cache) and read back at start, so a master restart keeps the evidence of a flapping minion.

import type { Clock } from '../util/clock.js';
import type { CloseReason, SessionInfo } from '../protocol/index.js';
import { PRESENCE_MAX_PER_MINION, type PresenceDrop, type PresenceLast, type PresenceRecord } from '../jobs/index.js';

/** What the table needs from a live session. */
export interface LiveSession {
  readonly id: string;
  readonly remoteAddress: string;
  readonly fingerprint: string;
  readonly agent: string;
  readonly protocolVersion: number;
  readonly rttMs: number | undefined;
  /** Messages dropped by minion_msg_rate in this session. */
  readonly droppedMessages?: number;
  /** Returns queued on the minion, as its last heartbeat said (metrics). */
  readonly returnsQueued?: number | undefined;
  readonly lastSeen: number;
  close(reason: CloseReason): void;
}

export type PresenceState = 'connected' | 'disconnected';

/** The persistent side (JobCache); bounded there (src/jobs/presence-history.ts). */
export interface PresenceStore {
  recordConnect(id: string, at: number, last: PresenceLast): void;
  recordDisconnect(id: string, last: PresenceLast, drop: PresenceDrop | undefined): void;
  loadPresence(): PresenceRecord[];
  forgetPresence(id: string): void;
  /** Runs several writes as one transaction (one commit instead of one each). */
  batch?(fn: () => void): void;
}

export interface SessionTableOptions {
  store?: PresenceStore;
  /** A store failure: presence still works in memory, so it is reported, never thrown. */
  onStoreError?: (err: unknown, doing: string) => void;
  /**
   * Collect the writes of one turn of the event loop and commit them together (the master: 10,000
   * sign-ins after a restart are 10,000 commits otherwise). `flush()` writes what is waiting.
   */
  batchWrites?: boolean;
}

interface Entry {
  id: string;
  session: LiveSession | undefined;
  connectedSince?: number;
  lastSeen?: number;
  remote?: string;
  agent?: string;
  protocol?: number;
  rttMs?: number;
  /** Messages the last session dropped by minion_msg_rate (in memory only, not kept across restarts). */
  droppedMessages?: number;
  /** Connection times (wall clock), kept for the last hour. */
  connects: number[];
  lastDisconnectReason?: CloseReason | string;
  lastDisconnectAt?: number;
  /** Unplanned disconnects in the last hour. */
  drops: Drop[];
}

interface Drop {
  at: number;
  reason: CloseReason | string;
  /** How long the connection had been up. */
  connectedForMs: number;
  /** How long nothing had arrived on it when it ended. */
  silentForMs: number;
}

const HOUR_MS = 3_600_000;
/** This many unplanned drops in an hour mark a minion as flapping. */
export const FLAPPING_DROPS = 3;
/** Deliberate ends that say nothing about the network. */
const PLANNED: ReadonlySet<CloseReason> = new Set(['shutdown', 'failback']);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : Math.round((sorted[mid - 1]! + sorted[mid]!) / 2);
}

export class SessionTable {
  private readonly entries = new Map<string, Entry>();
  private liveCount = 0;
  /** Writes waiting for the end of this turn (batchWrites). */
  private pending: Array<{ doing: string; fn: (store: PresenceStore) => void }> = [];
  private flushScheduled = false;

  constructor(
    private readonly clock: Clock,
    private readonly options: SessionTableOptions = {},
  ) {
    if (options.store) this.load(options.store);
  }

  /** Disconnected entries with their last hour of history, as the store kept them. */
  private load(store: PresenceStore): void {
    let records: PresenceRecord[];
    try {
      records = store.loadPresence();
    } catch (err) {
      this.options.onStoreError?.(err, 'loading the presence history');
      return;
    }
    for (const r of records) {
      const e = this.entryFor(r.id);
      e.connects = r.connects.slice(-PRESENCE_MAX_PER_MINION);
      e.drops = r.drops.slice(-PRESENCE_MAX_PER_MINION);
      const l = r.last;
      if (l.remote !== undefined) e.remote = l.remote;
      if (l.agent !== undefined) e.agent = l.agent;
      if (l.protocol !== undefined) e.protocol = l.protocol;
      if (l.lastSeen !== undefined) e.lastSeen = l.lastSeen;
      if (l.rttMs !== undefined) e.rttMs = l.rttMs;
      if (l.lastDisconnectReason !== undefined) e.lastDisconnectReason = l.lastDisconnectReason;
      if (l.lastDisconnectAt !== undefined) e.lastDisconnectAt = l.lastDisconnectAt;
    }
  }

  private persist(doing: string, fn: (store: PresenceStore) => void): void {
    const store = this.options.store;
    if (!store) return;
    if (!this.options.batchWrites) {
      this.write(store, doing, fn);
      return;
    }
    this.pending.push({ doing, fn });
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  private write(store: PresenceStore, doing: string, fn: (store: PresenceStore) => void): void {
    try {
      fn(store);
    } catch (err) {
      this.options.onStoreError?.(err, doing);
    }
  }

  /** Writes the presence changes still waiting, in one transaction; safe to call any time. */
  flush(): void {
    this.flushScheduled = false;
    const store = this.options.store;
    const work = this.pending;
    this.pending = [];
    if (!store || work.length === 0) return;
    const all = (): void => {
      for (const w of work) this.write(store, w.doing, w.fn);
    };
    try {
      if (store.batch) store.batch(all);
      else all();
    } catch (err) {
      this.options.onStoreError?.(err, `recording ${work.length} presence changes`);
    }
  }

  private lastOf(e: Entry): PresenceLast {
    return { remote: e.remote, agent: e.agent, protocol: e.protocol, lastSeen: e.lastSeen, rttMs: e.rttMs, lastDisconnectReason: e.lastDisconnectReason, lastDisconnectAt: e.lastDisconnectAt };
  }

  /** Registers a live session; returns the session it replaced (already detached), if any. */
  attach(session: LiveSession): LiveSession | undefined {
    const now = this.clock.now();
    const entry = this.entryFor(session.id);
    const replaced = entry.session;
    if (!replaced) this.liveCount++;
    entry.session = session;
    entry.lastSeen = now;
    entry.remote = session.remoteAddress;
    entry.agent = session.agent;
    entry.protocol = session.protocolVersion;
    // concat, not push: an array of exactly its length (a push onto a fresh array reserves 17
    // slots, ~130 B kept by each of 10,000 entries; issue 27, sessmem)
    entry.connects = entry.connects
      .filter((t) => now - t < HOUR_MS)
      .slice(-(PRESENCE_MAX_PER_MINION - 1))
      .concat(now);
    let drop: Drop | undefined;
    if (replaced) {
      // the minion came back before this side noticed the old connection die
      drop = this.recordDrop(entry, { at: now, reason: 'replaced', connectedForMs: now - (entry.connectedSince ?? now), silentForMs: now - replaced.lastSeen });
      entry.lastDisconnectReason = 'replaced';
      entry.lastDisconnectAt = now;
    }
    entry.connectedSince = now;
    this.persist(`recording the connect of ${session.id}`, (store) => {
      if (replaced) store.recordDisconnect(session.id, this.lastOf(entry), drop);
      store.recordConnect(session.id, now, this.lastOf(entry));
    });
    return replaced;
  }

  /** Records the end of a session; ignored if a newer session already took the ID. */
  detach(session: LiveSession, reason: CloseReason): void {
    const entry = this.entries.get(session.id);
    if (!entry || entry.session !== session) return;
    const now = this.clock.now();
    entry.session = undefined;
    this.liveCount--;
    entry.lastSeen = session.lastSeen;
    entry.rttMs = session.rttMs;
    entry.droppedMessages = session.droppedMessages;
    entry.lastDisconnectReason = reason;
    entry.lastDisconnectAt = now;
    const drop = this.recordDrop(entry, { at: now, reason, connectedForMs: now - (entry.connectedSince ?? now), silentForMs: now - session.lastSeen });
    this.persist(`recording the disconnect of ${session.id}`, (store) => store.recordDisconnect(session.id, this.lastOf(entry), drop));
  }

  /** Keeps the drop when it was unplanned and returns it (undefined for a planned end). */
  private recordDrop(entry: Entry, drop: Drop): Drop | undefined {
    entry.drops = entry.drops.filter((d) => drop.at - d.at < HOUR_MS).slice(-(PRESENCE_MAX_PER_MINION - 1));
    if (PLANNED.has(drop.reason as CloseReason)) return undefined;
    entry.drops = entry.drops.concat(drop);
    return drop;
  }

  get(id: string): LiveSession | undefined {
    return this.entries.get(id)?.session;
  }

  isConnected(id: string): boolean {
    return this.entries.get(id)?.session !== undefined;
  }

  /** Kept as a counter: it is read on every sign-in (max_minions). */
  get connectedCount(): number {
    return this.liveCount;
  }

  connected(): LiveSession[] {
    const out: LiveSession[] = [];
    for (const e of this.entries.values()) if (e.session) out.push(e.session);
    return out;
  }

  /** Forgets an ID entirely, in memory and in the store (its key was deleted or is no longer accepted). */
  forget(id: string): void {
    if (this.entries.get(id)?.session) this.liveCount--;
    this.entries.delete(id);
    this.persist(`forgetting the presence history of ${id}`, (store) => store.forgetPresence(id));
  }

  info(id: string): SessionInfo | undefined {
    const e = this.entries.get(id);
    return e ? this.toInfo(e) : undefined;
  }

  list(): SessionInfo[] {
    return this.infos().sort((a, b) => a.id.localeCompare(b.id));
  }

  /** As `list`, in no particular order: a caller that sorts (or only counts) skips a sort by ID. */
  infos(): SessionInfo[] {
    return Array.from(this.entries.values(), (e) => this.toInfo(e));
  }

  private entryFor(id: string): Entry {
    let e = this.entries.get(id);
    if (!e) {
      e = { id, session: undefined, connects: [], drops: [] };
      this.entries.set(id, e);
    }
    return e;
  }

  private toInfo(e: Entry): SessionInfo {
    const now = this.clock.now();
    const s = e.session;
    const info: SessionInfo = {
      id: e.id,
      state: s ? 'connected' : 'disconnected',
      // reconnects in the last hour: every connect after the first one in the window
      reconnects: Math.max(0, e.connects.filter((t) => now - t < HOUR_MS).length - 1),
    };
    const lastSeen = s ? s.lastSeen : e.lastSeen;
    const rtt = s ? s.rttMs : e.rttMs;
    if (e.remote !== undefined) info.remote = e.remote;
    if (e.connectedSince !== undefined && s) info.connectedSince = e.connectedSince;
    if (lastSeen !== undefined) info.lastSeen = lastSeen;
    if (e.agent !== undefined) info.agent = e.agent;
    if (e.protocol !== undefined) info.protocol = e.protocol;
    if (rtt !== undefined) info.rttMs = rtt;
    const dropped = s ? s.droppedMessages : e.droppedMessages;
    if (dropped) info.droppedMessages = dropped;
    if (e.lastDisconnectReason !== undefined) info.lastDisconnectReason = e.lastDisconnectReason;
    if (e.lastDisconnectAt !== undefined) info.lastDisconnectAt = e.lastDisconnectAt;
    const drops = e.drops.filter((d) => now - d.at < HOUR_MS);
    if (drops.length > 0) {
      info.drops = drops.length;
      info.flapping = drops.length >= FLAPPING_DROPS;
      // the typical time up before each drop is what identifies a middlebox idle timeout
      info.typicalConnectedMs = median(drops.map((d) => d.connectedForMs));
      info.typicalSilentMs = median(drops.map((d) => d.silentForMs));
      info.dropReasons = [...new Set(drops.map((d) => d.reason))].sort();
    }
    return info;
  }
}
