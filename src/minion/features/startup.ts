// startup_states: once per daemon (not per reconnect), sync custom modules when
// autoload_dynamic_modules is on, then the state run, through the job runner as any job (state
// lock, worker thread). A masterless minion runs them at start; otherwise once the first sign-in's
// pillar is here (or could not be had), since states use it. The outcome goes to the log only:
// the master keeps returns of jobs it published, and it did not publish these.

import { toBrineError } from '../../util/errors.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import type { MinionOptions } from '../../config/index.js';
import type { Job } from '../../protocol/index.js';
import { formatJid } from '../../jobs/jid.js';
import { startupCalls, startupSummary } from '../startup-states.js';
import type { MinionFeature } from './feature.js';
import type { JobPort } from './job-port.js';

/** When they run: at start (masterless), or after a sign-in once its pillar request settled. */
export type StartupTrigger = { at: 'start' } | { at: 'sign-in'; pillarFetched(): Promise<void> };

export class StartupStates implements MinionFeature {
  readonly name = 'startup_states';
  private ran = false;
  private stopped = false;

  constructor(
    private readonly parts: { opts: MinionOptions; id: string; clock: Clock; logger: Logger },
    private readonly jobs: JobPort,
    private readonly trigger: StartupTrigger,
  ) {}

  start(): void {
    if (this.trigger.at === 'start') this.run();
  }

  onReady(): void {
    if (this.trigger.at === 'sign-in') void this.trigger.pillarFetched().finally(() => this.run());
  }

  stop(): void {
    this.stopped = true;
  }

  private run(): void {
    if (this.ran) return;
    this.ran = true;
    const calls = startupCalls(this.parts.opts);
    if (calls.length === 0) return;
    const { clock, id, logger } = this.parts;
    void (async () => {
      for (const call of calls) {
        if (this.stopped) return;
        const job: Job = { t: 'job', jid: formatJid(clock.now() * 1000), ...call, kwarg: call.kwarg as Job['kwarg'], arg: call.arg as Job['arg'], tgt: id, tgtType: 'glob' };
        const ret = await this.jobs.run(job);
        const line = `startup_states: ${startupSummary(ret)}`;
        if (ret.success) logger.info({ jid: job.jid, fun: job.fun }, line);
        else logger.error({ jid: job.jid, fun: job.fun, retcode: ret.retcode }, line);
      }
    })().catch((err: unknown) => logger.error({ err: toBrineError(err).message }, 'startup_states failed'));
  }
}
