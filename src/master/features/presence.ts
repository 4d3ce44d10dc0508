// Presence: which minions are signed in, and their history across restarts (the session table,
// written through to the job cache). Loaded and pruned when built; written at once on stop.
// Every SAMPLE_MS it also records how many minions are connected (the web view's fleet chart).

import type { Clock, TimerHandle } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { CLOSE_REASONS, type SessionInfo } from '../../protocol/index.js';
import { KEY_STATES, type KeyState, type KeyStore } from '../../pki/index.js';
import type { JobCache } from '../../jobs/index.js';
import type { EventBus } from '../event-bus.js';
import type { MinionSession } from '../minion-session.js';
import { SessionTable } from '../session-table.js';
import type { MasterFeature } from './master-feature.js';

export interface PresenceDeps {
  cache: JobCache;
  keys: KeyStore;
  events: EventBus;
  logger: Logger;
  clock: Clock;
}

/** How often the connected count is sampled: 288 points a day, enough for a one-day chart. */
export const SAMPLE_MS = 300_000;

export class Presence implements MasterFeature {
  readonly name = 'presence';
  readonly sessions: SessionTable;
  private sampler: TimerHandle | undefined;

  constructor(private readonly deps: PresenceDeps) {
    const { cache, logger, clock } = deps;
    this.sessions = new SessionTable(clock, {
      store: cache,
      batchWrites: true,
      onStoreError: (err, doing) =>
        logger.error({ err }, `presence history: ${doing} failed; brine minions status keeps working from memory, but this history will not survive a restart (check the job cache: ${cache.file})`),
    });
    // history of IDs whose key was deleted while the master was down: an ID enrolled again
    // inherits nothing (threats.md #6)
    this.forgetKeyless(() => true);
    // written now, not on the next tick: a master stopped (or killed) right after it starts must
    // not leave the old history in the store for a later start to load
    this.sessions.flush();
  }

  /** Attaches the new session; a session it replaces is announced and closed. */
  onReady(s: MinionSession): void {
    const replaced = this.sessions.attach(s);
    if (!replaced) return;
    this.deps.logger.info({ id: s.id, old: replaced.remoteAddress, new: s.remoteAddress }, `minion ${s.id} reconnected; replacing its previous session`);
    this.deps.events.emit({ kind: 'minion_replaced', id: s.id, oldRemote: replaced.remoteAddress, newRemote: s.remoteAddress, at: this.deps.clock.now() });
    replaced.close('replaced');
  }

  onDown(s: MinionSession, reason: string): void {
    this.sessions.detach(s, CLOSE_REASONS.find((r) => r === reason) ?? 'peer_closed');
  }

  start(): void {
    this.sample();
    this.sampler = this.deps.clock.setInterval(() => this.sample(), SAMPLE_MS);
  }

  /** The history is written even when a server failed to close (stop runs every feature's stop). */
  stop(): void {
    this.sampler?.cancel();
    this.sampler = undefined;
    this.sessions.flush();
  }

  /** One point of the connected-minion history; a failed write loses a point, not the master. */
  private sample(): void {
    try {
      const all = this.presence();
      this.deps.cache.recordPresenceSample({ at: this.deps.clock.now(), connected: all.filter((s) => s.state === 'connected').length, known: all.length });
    } catch (err) {
      this.deps.logger.warn({ err }, `presence sample not recorded; the web view's fleet chart misses this point (check the job cache: ${this.deps.cache.file})`);
    }
  }

  /** Forgets the history of IDs that have no key at all any more (among those `which` picks). */
  forgetKeyless(which: (info: SessionInfo) => boolean): void {
    const withKeys = this.keyStatesById();
    for (const info of this.sessions.list()) if (which(info) && !withKeys.has(info.id)) this.sessions.forget(info.id);
  }

  /**
   * Every accepted minion and every minion with presence history (kept across restarts). One
   * whose key is no longer accepted shows its key state (rejected, denied, pending) instead of
   * `disconnected`, and one with no key left is not listed. Sorted by ID unless `sorted` is false
   * (the metrics only count: a sort of 1,000 IDs by localeCompare per scrape is not free).
   */
  presence(opts: { sorted?: boolean } = {}): SessionInfo[] {
    const states = this.keyStatesById();
    const accepted = new Set([...states].filter(([, st]) => st.includes('accepted')).map(([id]) => id));
    const out = new Map<string, SessionInfo>();
    for (const info of this.sessions.infos()) {
      if (info.state === 'connected' || accepted.has(info.id)) {
        out.set(info.id, info);
        continue;
      }
      const keyState = states.get(info.id)?.find((st) => st !== 'accepted');
      if (keyState !== undefined) out.set(info.id, { ...info, state: keyState });
    }
    for (const id of accepted) if (!out.has(id)) out.set(id, { id, state: 'never_connected', reconnects: 0 });
    const list = [...out.values()];
    return opts.sorted === false ? list : list.sort((a, b) => a.id.localeCompare(b.id));
  }

  /**
   * ID -> the states it has a key in (in KEY_STATES order), from one listing of the four key
   * directories: asking per ID would open four files for every minion with presence history.
   */
  private keyStatesById(): Map<string, KeyState[]> {
    const byId = new Map<string, KeyState[]>();
    const all = this.deps.keys.listAll();
    for (const state of KEY_STATES) {
      for (const id of all[state]) {
        const states = byId.get(id);
        if (states) states.push(state);
        else byId.set(id, [state]);
      }
    }
    return byId;
  }
}
