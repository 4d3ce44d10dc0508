// The web view's one-day chart (GET /fleet/history): connected minions from the master's samples
// (src/jobs/presence-samples.ts) plus the count now, and the jobs started in each hour by status.
// Pure: the route gathers the rows.

import type { PresenceSample } from '../jobs/index.js';
import type { JobStatus } from './job-outcomes.js';

export const HISTORY_SPAN_MS = 86_400_000;
export const HISTORY_BUCKET_MS = 3_600_000;

export interface JobBucket {
  /** Start of the hour (ms since the epoch). */
  at: number;
  ok: number;
  failed: number;
  partial: number;
  running: number;
}

export interface FleetHistory {
  since: number;
  until: number;
  bucketMs: number;
  /** Oldest first; the last point is the count at `until`. */
  connected: Array<{ at: number; connected: number; known: number }>;
  jobs: JobBucket[];
}

export function fleetHistory(now: number, samples: readonly PresenceSample[], current: PresenceSample, jobs: ReadonlyArray<{ startedAt: number; status: JobStatus }>): FleetHistory {
  const until = now;
  // hour-aligned buckets, the last one holding the current hour
  const lastStart = Math.floor(now / HISTORY_BUCKET_MS) * HISTORY_BUCKET_MS;
  const count = HISTORY_SPAN_MS / HISTORY_BUCKET_MS;
  const first = lastStart - (count - 1) * HISTORY_BUCKET_MS;
  const buckets: JobBucket[] = Array.from({ length: count }, (_, i) => ({ at: first + i * HISTORY_BUCKET_MS, ok: 0, failed: 0, partial: 0, running: 0 }));
  for (const j of jobs) {
    const i = Math.floor((j.startedAt - first) / HISTORY_BUCKET_MS);
    if (i >= 0 && i < count) buckets[i]![j.status] += 1;
  }
  const since = now - HISTORY_SPAN_MS;
  const connected = samples.filter((s) => s.at >= since && s.at <= now).map((s) => ({ at: s.at, connected: s.connected, known: s.known }));
  connected.push({ at: now, connected: current.connected, known: current.known });
  return { since, until, bucketMs: HISTORY_BUCKET_MS, connected, jobs: buckets };
}
