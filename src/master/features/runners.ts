// The runners (Salt's salt-run functions, src/api/runners.ts) in the master: the RunnerHost
// they act through (the bus, the file server, cached pillar and mine, the job cache) and the
// backend they run over, shared by the control socket's `runner` request, the API and (through
// `backend`) the reactor and orchestration. Nothing to start or stop: runner jobs are promises.

import * as os from 'node:os';
import type { RunnerBackend, RunnerHost } from '../../api/index.js';
import type { MasterOptions } from '../../config/index.js';
import type { JidGenerator, JobCache } from '../../jobs/index.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { createRunnerBackend, type MasterView } from '../api-backend.js';
import type { JobTracker } from '../job-tracker.js';
import type { MineStore } from '../mine-store.js';
import type { PillarService } from '../pillar-service.js';
import type { FileService } from '../file-service.js';
import type { MasterFeature, MasterTargeting } from './master-feature.js';

/** What the daemon's start-up (src/cli, which may load the execution modules) adds to the runners. */
export interface RunnerExtras {
  /** brine's version, for manage.versions. */
  version?: string;
  /** salt.cmd: runs an execution function on the master. */
  localCall?: RunnerHost['localCall'];
  /** More runner functions (state.orchestrate, state.orch: the orchestration feature's). */
  extraRunners?: RunnerHost['extraRunners'];
}

export interface RunnersDeps {
  opts: MasterOptions;
  master: MasterView;
  jobs: JobTracker;
  cache: JobCache;
  jids: JidGenerator;
  files: FileService;
  pillar: PillarService;
  mine: MineStore;
  targeting: MasterTargeting;
  extras: RunnerExtras;
  logger: Logger;
  clock: Clock;
}

/** Salt's default master ID when `id` is not set: `<hostname>_master`. */
export function masterIdOf(opts: Pick<MasterOptions, 'id'>): string {
  return opts.id !== '' && opts.id !== undefined ? opts.id : `${os.hostname()}_master`;
}

export class Runners implements MasterFeature {
  readonly name = 'runners';
  readonly host: RunnerHost;
  /** The backend runner functions run over (for the reactor and orchestration too). */
  readonly backend: RunnerBackend;

  constructor(d: RunnersDeps) {
    const { opts, extras } = d;
    this.host = {
      masterId: masterIdOf(opts),
      newJid: () => d.jids.next(),
      jobCache: d.cache,
      fire: (tag, data) => {
        d.master.events.fire(tag, data);
      },
      fileList: (saltenv, backends) => {
        const chosen = backends === undefined ? d.files.backends.backends : d.files.backends.backends.filter((b) => backends.some((n) => n === b.name || `${n}fs` === b.name || n === `${b.name}fs`));
        return [...new Set(chosen.flatMap((b) => b.list(saltenv, '', 'files')))].sort();
      },
      fileserverUpdate: (backend) => d.files.update(backend),
      pillarOf: (id) => d.pillar.pillarOf(id),
      mineOf: (id) => {
        const mine = d.mine.mineOf(id);
        return mine === undefined ? undefined : Object.fromEntries(Object.entries(mine).map(([fun, e]) => [fun, e.data]));
      },
      options: () => ({ ...opts }),
      version: extras.version ?? '',
      ...(extras.localCall ? { localCall: extras.localCall } : {}),
      ...(extras.extraRunners ? { extraRunners: extras.extraRunners } : {}),
    };
    this.backend = createRunnerBackend({
      master: d.master,
      jobs: d.jobs,
      cache: d.cache,
      grainsOf: d.targeting.grains,
      targeting: d.targeting,
      logger: d.logger,
      clock: d.clock,
      runnerHost: this.host,
    });
  }
}
