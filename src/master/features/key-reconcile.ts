// Sessions against the key store: a session whose key is no longer the accepted one (deleted,
// rejected or replaced) is closed and what the master knew of that ID is forgotten, so an ID
// enrolled again inherits nothing (threats.md #6). `brine key` asks at once; a 5 s check of the
// accepted directory catches keys changed by hand.

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Clock, TimerHandle } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import type { KeyStore } from '../../pki/index.js';
import type { AcceptedKeyIndex } from '../accepted-keys.js';
import type { MinionDataCache } from '../minion-data-cache.js';
import type { MineStore } from '../mine-store.js';
import type { PillarService } from '../pillar-service.js';
import type { MasterFeature } from './master-feature.js';
import type { Presence } from './presence.js';

export interface KeyReconcileDeps {
  pkiDir: string;
  keys: KeyStore;
  acceptedKeys: AcceptedKeyIndex;
  presence: Presence;
  minionData: MinionDataCache;
  pillar: PillarService;
  mine: MineStore;
  logger: Logger;
  clock: Clock;
}

const CHECK_INTERVAL_MS = 5_000;
/** Closes remembered for `brine key`: a minute of them, at most 10k. */
const CLOSES_KEPT_MS = 60_000;
const CLOSES_KEPT = 10_000;

export class KeyReconcile implements MasterFeature {
  readonly name = 'key-reconcile';
  /** transport: nats: told of each reconcile; `publish` when the change was made here, not from the bucket. */
  onKeysChanged: ((publish: boolean) => void) | undefined;
  private timer: TimerHandle | undefined;
  private lastStoreMtime = 0;
  /** Sessions closed because their key went, with when: `brine key` asks which closed since it began. */
  private keyCloses: { id: string; at: number }[] = [];

  constructor(private readonly deps: KeyReconcileDeps) {
    // keys deleted or replaced while the master was down: their mine is not inherited
    deps.mine.reconcile(new Set(deps.keys.list('accepted')), deps.acceptedKeys);
  }

  start(): void {
    const acceptedDir = path.join(this.deps.pkiDir, 'minions');
    this.timer = this.deps.clock.setInterval(() => {
      try {
        // an unlink or rename in minions/ changes its mtime; skip the per-session reads otherwise
        const mtime = fs.statSync(acceptedDir).mtimeMs;
        if (mtime === this.lastStoreMtime) return;
        this.lastStoreMtime = mtime;
        this.reconcile();
      } catch (err) {
        this.deps.logger.error({ err }, 'checking sessions against the key store failed');
      }
    }, CHECK_INTERVAL_MS);
  }

  stop(): void {
    this.timer?.cancel();
  }

  /**
   * What `brine key` reports: the sessions this reconcile closed, and those the 5 s timer (or
   * another `brine key`) closed for a key change since `since` (ms), so a timer that runs between
   * the CLI's change and its request does not hide the close from the operator.
   */
  reconcileSince(since: number | undefined): string[] {
    const closed = this.reconcile();
    if (since === undefined) return closed;
    const seen = new Set(closed);
    for (const c of this.keyCloses) if (c.at >= since && !seen.has(c.id)) seen.add(c.id);
    return [...seen];
  }

  /**
   * Closes every session whose key is no longer the accepted one and forgets that ID. With
   * transport: nats a change made here (`origin` local) is also shared through the key bucket;
   * one that came from the bucket is not published back.
   */
  reconcile(origin: 'local' | 'bucket' = 'local'): string[] {
    const { keys, acceptedKeys, presence, minionData, pillar, mine, logger } = this.deps;
    this.onKeysChanged?.(origin === 'local');
    const closed: string[] = [];
    for (const s of presence.sessions.connected()) {
      // the index re-reads a key file only when its stamp changed, so this stays cheap with 10k sessions
      if (acceptedKeys.matches(s.id, s.fingerprint)) continue;
      const accepted = acceptedKeys.fingerprintOf(s.id);
      closed.push(s.id);
      this.noteKeyClose(s.id);
      logger.warn({ id: s.id, remote: s.remoteAddress, fingerprint: s.fingerprint, accepted }, `closing the session of ${s.id}: its key is no longer accepted`);
      s.close('key_deleted');
      presence.sessions.forget(s.id);
      minionData.purge(s.id);
      pillar.purge(s.id);
      mine.purge(s.id);
    }
    // cached grains of IDs no longer accepted, or sent under a key since replaced (threats.md #6)
    const live = new Set(presence.sessions.connected().map((s) => s.id));
    const purged = minionData.reconcile(
      new Set(keys.list('accepted')),
      minionData.ids().filter((id) => !live.has(id)),
      acceptedKeys,
    );
    for (const id of purged) pillar.purge(id);
    // the mine of IDs no longer accepted, or sent under a key since replaced (no stale data from a departed host)
    mine.reconcile(new Set(keys.list('accepted')), acceptedKeys);
    // presence data of IDs that have no key at all any more
    presence.forgetKeyless((info) => info.state !== 'connected');
    return closed;
  }

  private noteKeyClose(id: string): void {
    const now = this.deps.clock.now();
    // enough for any `brine key` run to find its own
    this.keyCloses = this.keyCloses.filter((c) => c.at >= now - CLOSES_KEPT_MS).slice(-(CLOSES_KEPT - 1));
    this.keyCloses.push({ id, at: now });
  }
}
