// Gauges read from the master's state at scrape time: the fleet by presence state, key counts,
// returns queued on minions (as their heartbeats reported), connections waiting to sign in.
// Reading at scrape time keeps them exact without hooking every state change, and costs one
// walk of the session table per scrape.

import { Gauge, type Registry } from 'prom-client';
import type { SessionInfo } from '../protocol/index.js';

/** Presence states counted in brine_minions (disjoint; a minion is in exactly one). */
export const MINION_STATES = ['connected', 'disconnected', 'never_connected', 'pending', 'rejected', 'denied'] as const;
export const KEY_STATE_LABELS = ['accepted', 'pending', 'rejected', 'denied'] as const;

/** A presence list this fresh is reused within one scrape instead of read again. */
const PRESENCE_REUSE_MS = 250;

/** What the metrics read from the master at scrape time (the master implements it). */
export interface FleetSource {
  /** The master's presence list (`brine minions status`): accepted minions and those with history, in any order. */
  presence(): readonly SessionInfo[];
  /** Keys per key state. */
  keyCounts(): Readonly<Record<(typeof KEY_STATE_LABELS)[number], number>>;
  /** Returns queued on each connected minion, as its last heartbeat said (undefined: not reported). */
  queuedReturns(): Iterable<number | undefined>;
  /** Connections accepted by the listener that have not signed in yet. */
  awaitingSignIn(): number;
  /** Sign-ins turned away by admission control (auth_rate, auth_rate_per_source) since start. */
  turnedAway(): number;
}

/** Registers the scrape-time gauges on `registry`. */
export function registerFleetGauges(registry: Registry, fleet: FleetSource): void {
  const registers = [registry];
  // two gauges read the presence list: one walk of the session table and key store per scrape
  let presenceAt = -Infinity;
  let presence: readonly SessionInfo[] = [];
  /** brine_minions (collected first) always reads afresh; brine_minions_flapping reuses that read. */
  const presenceNow = (fresh: boolean): readonly SessionInfo[] => {
    const now = performance.now();
    if (fresh || now - presenceAt > PRESENCE_REUSE_MS) {
      presence = fleet.presence();
      presenceAt = now;
    }
    return presence;
  };
  new Gauge({
    name: 'brine_minions',
    help: 'Minions by presence state: connected, disconnected (accepted, was connected), never_connected (accepted), pending/rejected/denied (key not accepted).',
    labelNames: ['state'],
    registers,
    collect() {
      const counts = new Map<string, number>(MINION_STATES.map((s) => [s, 0]));
      for (const info of presenceNow(true)) counts.set(info.state, (counts.get(info.state) ?? 0) + 1);
      for (const [state, n] of counts) this.set({ state }, n);
    },
  });
  new Gauge({
    name: 'brine_minions_flapping',
    help: 'Minions with 3 or more unplanned disconnects in the last hour (as `brine minions status` marks flapping).',
    registers,
    collect() {
      let n = 0;
      for (const info of presenceNow(false)) if (info.flapping === true) n++;
      this.set(n);
    },
  });
  new Gauge({
    name: 'brine_keys',
    help: 'Minion keys in the key store by state.',
    labelNames: ['state'],
    registers,
    collect() {
      const counts = fleet.keyCounts();
      for (const state of KEY_STATE_LABELS) this.set({ state }, counts[state]);
    },
  });
  const queued = () => {
    let sum = 0;
    let max = 0;
    let minions = 0;
    for (const n of fleet.queuedReturns()) {
      if (n === undefined || n === 0) continue;
      sum += n;
      max = Math.max(max, n);
      minions++;
    }
    return { sum, max, minions };
  };
  new Gauge({
    name: 'brine_minion_returns_queued',
    help: 'Returns queued on connected minions and not yet acknowledged, summed (as each last heartbeat reported).',
    registers,
    collect() {
      this.set(queued().sum);
    },
  });
  new Gauge({
    name: 'brine_minion_returns_queued_max',
    help: 'The most returns queued on any one connected minion (as its last heartbeat reported).',
    registers,
    collect() {
      this.set(queued().max);
    },
  });
  new Gauge({
    name: 'brine_minions_with_queued_returns',
    help: 'Connected minions reporting at least one queued return.',
    registers,
    collect() {
      this.set(queued().minions);
    },
  });
  new Gauge({
    name: 'brine_admission_queue',
    help: 'Connections accepted by the listener that have not signed in yet (awaiting hello or the auth decision).',
    registers,
    collect() {
      this.set(fleet.awaitingSignIn());
    },
  });
}
