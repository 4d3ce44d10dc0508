// Jobs: the JobTracker (publish, returns, find_job) and the hourly purge of expired jobs from the
// job cache. A minion's returns and find_job answers come here; a closed session ends its waits.

import type { TimerHandle } from '../../util/clock.js';
import type { MinionMessage } from '../../protocol/index.js';
import { JobTracker, type JobTrackerDeps } from '../job-tracker.js';
import type { MinionSession } from '../minion-session.js';
import type { MasterFeature } from './master-feature.js';

const PURGE_INTERVAL_MS = 3_600_000;

export class Jobs implements MasterFeature {
  readonly name = 'jobs';
  readonly tracker: JobTracker;
  private purgeTimer: TimerHandle | undefined;
  private purging = false;

  constructor(private readonly deps: JobTrackerDeps) {
    this.tracker = new JobTracker(deps);
  }

  start(): void {
    this.purgeTimer = this.deps.clock.setInterval(() => this.purge(), PURGE_INTERVAL_MS);
  }

  onMessage(message: MinionMessage, s: MinionSession): boolean {
    if (message.t === 'return') this.tracker.handleReturn(s, message);
    else if (message.t === 'job_status') this.tracker.handleJobStatus(s, message);
    else return false;
    return true;
  }

  onDown(s: MinionSession): void {
    this.tracker.handleSessionClosed(s.id);
  }

  stop(): void {
    this.purgeTimer?.cancel();
    this.tracker.stop();
  }

  // in bounded steps that yield between them: a day of a large fleet's returns is seconds of
  // SQLite work, which in one go would stall every session's heartbeats (bench:jobcache)
  private purge(): void {
    if (this.purging) return;
    this.purging = true;
    this.deps.cache
      .purgeExpiredInBatches()
      .then(
        (n) => {
          if (n > 0) this.deps.logger.info({ purged: n }, 'purged expired jobs from the job cache');
        },
        (err: unknown) => this.deps.logger.error({ err }, 'purging the job cache failed'),
      )
      .finally(() => {
        this.purging = false;
      });
  }
}
