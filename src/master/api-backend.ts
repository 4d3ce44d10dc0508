// The master's side of the REST API: the ApiBackend that src/api calls, over the same JobTracker,
// job cache, key store, presence and event bus the control socket and `brine key` use.

import { runRunner, type ApiBackend, type ReactionView, type RunnerBackend, type RunnerHost } from '../api/index.js';
import type { Authenticator } from '../auth/index.js';
import type { JobCache } from '../jobs/index.js';
import { hookMeta, TARGET_TYPES } from '../protocol/index.js';
import { matchTarget, type MatchOptions, type TargetType } from '../targeting/index.js';
import type { Clock } from '../util/clock.js';
import { BrineError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import type { KeyStore } from '../pki/index.js';
import type { SessionInfo } from '../protocol/index.js';
import type { BrineMetrics } from '../metrics/index.js';
import type { EventBus } from './event-bus.js';
import type { JobTracker } from './job-tracker.js';

/** The parts of the Master the API uses (an interface, so master.ts and this file do not import each other). */
export interface MasterView {
  keys: KeyStore;
  identity: { fingerprint: string };
  events: EventBus;
  metrics: BrineMetrics;
  presence(): SessionInfo[];
  reconcileKeys(): string[];
  /** The reactor's recent reactions, newest first (empty without `reactor:`). */
  reactions(limit: number): ReactionView[];
}

/** What the runners need: the backend without the API's own parts (no Authenticator: the API may be off). */
export interface RunnerBackendDeps {
  master: MasterView;
  jobs: JobTracker;
  cache: JobCache;
  grainsOf(id: string): Record<string, unknown> | undefined;
  targeting: Pick<MatchOptions, 'grains' | 'pillar' | 'dataCache' | 'nodegroups'>;
  logger: Logger;
  clock: Clock;
  /** The master's side of the runners (src/master/features/runners.ts). */
  runnerHost: RunnerHost;
}

export interface ApiBackendDeps extends RunnerBackendDeps {
  auth: Authenticator;
}

/** The accepted minions a target matches, TARGET_INVALID for an unknown target type (the API and the control socket's `match`). */
export function matchAccepted(accepted: string[], tgt: string | string[], tgtType: string, targeting: ApiBackendDeps['targeting'], delimiter?: string): { matched: string[]; missing: string[] } {
  if (!(TARGET_TYPES as readonly string[]).includes(tgtType)) throw new BrineError('TARGET_INVALID', `unknown target type '${tgtType.slice(0, 32)}'; use one of ${TARGET_TYPES.join(', ')}`);
  return matchTarget(tgt, tgtType as TargetType, accepted, { ...targeting, ...(delimiter ? { delimiter } : {}) });
}

/** The accepted IDs, or those of them in `within`. */
export function acceptedWithin(accepted: string[], within: readonly string[] | undefined): string[] {
  if (within === undefined) return accepted;
  const wanted = new Set(within);
  return accepted.filter((id) => wanted.has(id));
}

/** The backend the runners run over in the master: `brine runner`, the API, the reactor. */
export function createRunnerBackend(d: RunnerBackendDeps): RunnerBackend {
  const { master } = d;
  const backend: RunnerBackend = {
    logger: d.logger,
    clock: d.clock,
    keys: master.keys,
    masterFingerprint: master.identity.fingerprint,
    publish: async (req, sink) => d.jobs.publish(req, sink),
    unsubscribe: (sink) => d.jobs.unsubscribe(sink),
    activeJids: async () => d.jobs.activeJids(),
    jobs: d.cache,
    presence: async () => master.presence(),
    grainsOf: d.grainsOf,
    matchTarget: async (tgt, tgtType, within) => matchAccepted(acceptedWithin(master.keys.list('accepted'), within), tgt, tgtType, d.targeting),
    subscribe: (fn) => master.events.subscribe(fn),
    reconcileKeys: async (changes) => {
      for (const c of changes ?? []) master.events.emit({ kind: 'key_changed', id: c.id, act: c.act, at: d.clock.now() });
      return master.reconcileKeys();
    },
    runner: (req) => runRunner(backend, d.runnerHost, req),
    fire: async (tag, data) => {
      master.events.fire(tag, data);
    },
    masterOptions: () => d.runnerHost.options(),
    runnerHost: d.runnerHost,
  };
  return backend;
}

export function createApiBackend(d: ApiBackendDeps): ApiBackend {
  const { master } = d;
  const startedAt = d.clock.now();
  const base = createRunnerBackend(d);
  const api: ApiBackend = {
    ...base,
    auth: d.auth,
    // the API's runner calls run over this backend, so runners see the API's whole surface
    runner: (req) => runRunner(api, d.runnerHost, req),
    reactions: async (limit) => master.reactions(limit),
    emitHook: async (path, user, body, meta) => master.events.emit({ kind: 'api_hook', path, user, body, ...hookMeta(meta?.raw, meta?.headers), at: d.clock.now() }),
    metrics: {
      render: async () => ({ text: await master.metrics.renderMetrics(), contentType: master.metrics.contentType }),
      countRequest: (status) => master.metrics.apiRequests.inc({ status: String(status) }),
    },
    stats: async () => {
      const presence = master.presence();
      return {
        uptime_s: Math.round((d.clock.now() - startedAt) / 1000),
        minions_connected: presence.filter((s) => s.state === 'connected').length,
        minions_known: presence.length,
        jobs_active: d.jobs.activeJids().length,
        event_subscribers: master.events.subscribers,
      };
    },
  };
  return api;
}
