// Who is connected, since when, from where, and why each minion that is not connected left.
// One live session per ID: attaching a new session for an ID returns the one it replaces.

import type { Clock } from '../util/clock.js';
import type { CloseReason, SessionInfo } from '../protocol/index.js';

/** What the table needs from a live session. */
export interface LiveSession {
  readonly id: string;
  readonly remoteAddress: string;
  readonly fingerprint: string;
  readonly agent: string;
  readonly protocolVersion: number;
  readonly rttMs: number | undefined;
  readonly lastSeen: number;
  close(reason: CloseReason): void;
}

export type PresenceState = 'connected' | 'disconnected';

interface Entry {
  id: string;
  session: LiveSession | undefined;
  connectedSince?: number;
  lastSeen?: number;
  remote?: string;
  agent?: string;
  protocol?: number;
  rttMs?: number;
  /** Connection times (wall clock), kept for the last hour. */
  connects: number[];
  lastDisconnectReason?: CloseReason;
  lastDisconnectAt?: number;
  /** Unplanned disconnects in the last hour. */
  drops: Drop[];
}

interface Drop {
  at: number;
  reason: CloseReason;
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

  constructor(private readonly clock: Clock) {}

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
    entry.connects = entry.connects.filter((t) => now - t < HOUR_MS);
    entry.connects.push(now);
    if (replaced) {
      // the minion came back before this side noticed the old connection die
      this.recordDrop(entry, { at: now, reason: 'replaced', connectedForMs: now - (entry.connectedSince ?? now), silentForMs: now - replaced.lastSeen });
      entry.lastDisconnectReason = 'replaced';
      entry.lastDisconnectAt = now;
    }
    entry.connectedSince = now;
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
    entry.lastDisconnectReason = reason;
    entry.lastDisconnectAt = now;
    this.recordDrop(entry, { at: now, reason, connectedForMs: now - (entry.connectedSince ?? now), silentForMs: now - session.lastSeen });
  }

  private recordDrop(entry: Entry, drop: Drop): void {
    entry.drops = entry.drops.filter((d) => drop.at - d.at < HOUR_MS);
    if (!PLANNED.has(drop.reason)) entry.drops.push(drop);
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

  /** Forgets an ID entirely (its key was deleted). */
  forget(id: string): void {
    if (this.entries.get(id)?.session) this.liveCount--;
    this.entries.delete(id);
  }

  info(id: string): SessionInfo | undefined {
    const e = this.entries.get(id);
    return e ? this.toInfo(e) : undefined;
  }

  list(): SessionInfo[] {
    return [...this.entries.values()].map((e) => this.toInfo(e)).sort((a, b) => a.id.localeCompare(b.id));
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
