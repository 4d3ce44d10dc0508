// The job runner as the features that start jobs see it (the scheduler, the mine, startup_states,
// a sync replacing the registry). The runner is built after them, because the functions it runs
// use them (schedule.*, mine.*, saltutil.sync_*): the one cycle of the minion's wiring, closed here
// once and explicitly. A job before bind() is a wiring bug, never an input's fault.

import { BrineError } from '../../util/errors.js';
import type { Job, Return } from '../../protocol/index.js';
import type { ExecResult, ModuleRegistry, RunningJobInfo } from '../../modules/index.js';
import type { JobRunner } from '../job-runner.js';

export class JobPort {
  private runner: JobRunner | undefined;

  /** Once, when the runner is built. */
  bind(runner: JobRunner): void {
    if (this.runner !== undefined) throw new BrineError('INTERNAL', 'the minion bound its job runner twice');
    this.runner = runner;
  }

  run(job: Job): Promise<Return> {
    return this.bound().run(job);
  }

  runFunction(fun: string, arg: unknown[], kwarg: Record<string, unknown>, jid: string, timeoutS?: number): Promise<ExecResult> {
    return this.bound().runFunction(fun, arg, kwarg, jid, timeoutS);
  }

  /** The jobs running now (a beacon's disable_during_state_run looks for a state.* job). */
  running(): RunningJobInfo[] {
    return this.runner?.list() ?? [];
  }

  replaceRegistry(registry: ModuleRegistry): void {
    this.bound().replaceRegistry(registry);
  }

  private bound(): JobRunner {
    if (this.runner === undefined) throw new BrineError('INTERNAL', 'a job started before the minion built its job runner');
    return this.runner;
  }
}
