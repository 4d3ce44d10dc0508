// Jobs: what a master publishes, re-checked against this minion's own target (as in Salt) and run
// once per jid by the JobRunner, its return handed to the returns feature; find_job answered from
// the runner. The runner is built here with every service its inline functions use of the daemon.

import { toBrineError } from '../../util/errors.js';
import type { Clock } from '../../util/clock.js';
import { logAtSaltLevel, type Logger } from '../../util/logger.js';
import type { MinionOptions } from '../../config/index.js';
import type { Job } from '../../protocol/index.js';
import { minionMatches } from '../../targeting/index.js';
import { JidGenerator, isJid } from '../../jobs/jid.js';
import type { BeaconControl, ScheduleControl } from '../../modules/index.js';
import { JobRunner } from '../job-runner.js';
import type { RecentJids } from '../recent-jids.js';
import type { MinionLink } from '../minion-link.js';
import type { LinkMessage, MinionFeature } from './feature.js';
import type { EventsFeature } from './events.js';
import type { ExtensionsFeature } from './extmods.js';
import type { FilesFeature } from './files.js';
import type { GrainsFeature } from './grains.js';
import type { LocalMineFeature, MasterMineFeature } from './mine.js';
import type { PillarFeature } from './pillar.js';
import type { MinionReturners } from './returners.js';
import type { ReturnsFeature } from './returns.js';

/** The features the job runner's functions use (saltutil.*, schedule.*, mine.*, salt:// ...). */
export interface JobServices {
  grains: GrainsFeature;
  pillar: PillarFeature;
  files: FilesFeature;
  mine: LocalMineFeature | MasterMineFeature;
  schedule: ScheduleControl;
  extmods: ExtensionsFeature;
  returns: ReturnsFeature;
  returners: MinionReturners;
  events: EventsFeature;
  /** beacons.* (absent in tests that build no beacons). */
  beacons?: BeaconControl;
  /** After each published job's return is queued (the malloc trim). */
  afterJob?: () => void;
}

export class JobsFeature implements MinionFeature {
  readonly name = 'jobs';
  readonly runner: JobRunner;
  /** jids for brine call's local jobs (control-call.ts). */
  private readonly callJids: JidGenerator;

  constructor(
    private readonly parts: { opts: MinionOptions; id: string; logger: Logger; clock: Clock },
    /** The jids this minion ran recently, shared with the scheduler: each jid runs once. */
    private readonly recent: RecentJids,
    private readonly services: JobServices,
  ) {
    const { opts, id, logger, clock } = parts;
    const { grains, pillar, files, mine, schedule, extmods, events, beacons } = services;
    this.callJids = new JidGenerator(clock);
    this.runner = new JobRunner({
      schedule,
      registry: () => extmods.registry(),
      mine: mine.service,
      events: events.access,
      ...(beacons ? { beacons } : {}),
      services: {
        files: files.client,
        ...(files.local ? { localFiles: true } : {}),
        // salt['mine.get'](...) in a template: answered on this thread, which has the master session
        // and event.* from a worker: fired on this thread, which has the session and the local bus
        hostCall: (fun, arg, kwarg) => {
          if (fun.startsWith('mine.')) return mine.hostCall(fun, arg, kwarg);
          if (fun.startsWith('event.')) return this.runner.runFunction(fun, arg, kwarg, this.newJid());
          return undefined;
        },
        log: (level, message) => logAtSaltLevel(logger, level, message),
        stateProgress: (jid, progress) => events.master.stateProgress(jid, progress),
        pillarFor: (pillarenv) => pillar.pillarFor(pillarenv),
      },
      minionId: id,
      grains: () => grains.current,
      config: opts,
      logger,
      maxConcurrent: opts.max_concurrent_jobs,
      jobTimeoutS: opts.job_timeout,
      maxReturnBytes: opts.max_return_size,
      refreshGrains: async (o) => {
        await grains.refresh();
        if (o?.refreshPillar !== false) await pillar.refreshAfterGrains();
      },
      reloadExtmods: (kinds) => extmods.reload(kinds),
      pillar: () => pillar.store.get(),
      refreshPillar: () => pillar.refresh(),
      clock,
    });
  }

  onMessage(m: LinkMessage, link: MinionLink): boolean {
    if (m.t === 'find_job') {
      // asked over this session when the master's wait for our return ran out
      link.send({ t: 'job_status', jid: m.jid, running: this.runner.isRunning(m.jid) });
      return true;
    }
    if (m.t !== 'job') return false;
    this.onJob(m, link);
    return true;
  }

  stop(): void {
    this.runner.abortAll();
  }

  /** A jid no published or scheduled job of this minion uses (brine call's local jobs). */
  newJid(): string {
    return this.recent.claimNew(() => this.callJids.next());
  }

  private onJob(job: Job, link: MinionLink): void {
    const { id, logger } = this.parts;
    const { grains, pillar, returns, returners } = this.services;
    // the minion re-checks the target itself, as in Salt, and runs a jid only once
    let mine: boolean;
    try {
      mine = minionMatches(job.tgt, job.tgtType, id, grains.current, job.delimiter, pillar.store.get());
    } catch (err) {
      logger.warn({ jid: job.jid, tgt: job.tgt, tgtType: job.tgtType, err: toBrineError(err).message }, 'ignored a job whose target this minion cannot evaluate');
      return;
    }
    if (!mine) return;
    if (!isJid(job.jid)) {
      logger.warn({ jid: job.jid, fun: job.fun }, 'ignored a job whose jid is not a valid timestamp jid');
      return;
    }
    if (!this.recent.add(job.jid)) return;
    void this.runner
      .run(job)
      .then((ret) => {
        returns.fromMaster(ret, link);
        // after the return is queued for the master: a returner never holds it back
        returners.afterJob(job, ret);
        this.services.afterJob?.();
      })
      .catch((err: unknown) => logger.error({ err, jid: job.jid }, 'job runner failed'));
  }
}
