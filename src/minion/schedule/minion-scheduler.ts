// The minion's scheduler wired to the daemon: the `schedule` option and pillar's `schedule`
// (followed on every pillar change), each run a job of the minion's JobRunner under a jid the
// minion makes, and its return handed to the return queue with the schedule's name, so it
// reaches the master like any return: now, or after the master comes back.

import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import type { MinionOptions } from '../../config/index.js';
import type { Job, MinionStatus, Return } from '../../protocol/index.js';
// jid.js, not the jobs barrel: that would load the job cache and better-sqlite3 into every minion
import { JidGenerator } from '../../jobs/jid.js';
import { ScheduleFunctions, Scheduler, readConfiguredSchedule, writeScheduleFile, type ScheduleEntry } from '../../schedule/index.js';
import type { PillarStore } from '../pillar-store.js';
import type { MinionFeature } from '../features/feature.js';

export interface MinionSchedulerDeps {
  opts: MinionOptions;
  id: string;
  logger: Logger;
  clock: Clock;
  pillar: PillarStore;
  /** Runs a job through the JobRunner (as published jobs run). */
  run(job: Job): Promise<Return>;
  /** Marks a jid as used, so a published job can never reuse it on this minion. */
  claimJid(jid: string): boolean;
  /** Queues the return for the master and sends it if a master is connected. */
  deliver(ret: Return): void;
  /** The entry's returners (`returner`), after the run (docs/returners.md). */
  afterRun(job: Job, ret: Return, name: string): void;
}

export class MinionScheduler implements MinionFeature {
  readonly name = 'schedule';
  readonly scheduler: Scheduler;
  /** schedule.* (ctx.schedule for the inline functions). */
  readonly functions: ScheduleFunctions;
  private readonly jids: JidGenerator;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly deps: MinionSchedulerDeps) {
    this.jids = new JidGenerator(deps.clock);
    const configDir = deps.opts.config_dir;
    this.scheduler = new Scheduler({
      clock: deps.clock,
      logger: deps.logger,
      run: (entry) => this.runEntry(entry),
      persist: (schedule) => writeScheduleFile(configDir, schedule),
    });
    this.functions = new ScheduleFunctions({ scheduler: this.scheduler, readConfigured: () => readConfiguredSchedule(configDir), now: () => deps.clock.now() });
  }

  start(): void {
    this.scheduler.setConfig(this.deps.opts.schedule);
    this.scheduler.setPillar(this.deps.pillar.get().schedule);
    this.unsubscribe = this.deps.pillar.onChange((pillar) => this.scheduler.setPillar(pillar.schedule));
    this.scheduler.start();
    const jobs = this.scheduler.jobs().length;
    const errors = this.scheduler.errors().size;
    if (jobs + errors > 0)
      this.deps.logger.info({ jobs, errors }, `scheduler started with ${jobs} job(s)${errors > 0 ? `; ${errors} job(s) cannot run (see the errors above, or schedule.list)` : ''}`);
  }

  /** Schedule jobs that cannot run, for brine doctor (bounded as the status message allows). */
  status(): Pick<MinionStatus, 'scheduleErrors'> {
    const errors = [...this.scheduler.errors()].slice(0, 1024);
    if (errors.length === 0) return {};
    return { scheduleErrors: errors.map(([job, e]) => ({ job: job.slice(0, 256), code: e.code, message: e.message.slice(0, 4000) })) };
  }

  stop(): void {
    this.unsubscribe?.();
    this.scheduler.stop();
  }

  private async runEntry(entry: ScheduleEntry): Promise<void> {
    let jid = this.jids.next();
    while (!this.deps.claimJid(jid)) jid = this.jids.next();
    const job: Job = { t: 'job', jid, fun: entry.function, arg: entry.args, kwarg: entry.kwargs, tgt: this.deps.id, tgtType: 'glob', ...entryReturners(entry) };
    const ret = await this.deps.run(job);
    this.deps.logger.debug({ job: entry.name, jid, retcode: ret.retcode }, `scheduled job ${entry.name} finished`);
    // Salt's schedule hands the return to the entry's returners whether or not return_job is set
    if (entry.returner.length > 0) this.deps.afterRun(job, ret, entry.name);
    if (!entry.returnJob) return;
    this.deps.deliver({ ...ret, schedule: { name: entry.name, arg: entry.args, kwarg: entry.kwargs } });
  }
}

/** The entry's `returner`, `return_config`, `return_kwargs` as a job carries them. */
function entryReturners(entry: ScheduleEntry): Pick<Job, 'ret' | 'retConfig' | 'retKwargs'> {
  if (entry.returner.length === 0) return {};
  return {
    ret: entry.returner.join(','),
    ...(entry.returnConfig !== undefined ? { retConfig: entry.returnConfig } : {}),
    ...(entry.returnKwargs !== undefined ? { retKwargs: entry.returnKwargs } : {}),
  };
}
