// Runs published jobs without blocking the connection: each job is an async call into the
// module registry with its own abort signal and timeout; the result becomes a return message.

import type { Logger } from '../util/logger.js';
import type { Job, Return } from '../protocol/index.js';
import type { ExecContext, Grains, ModuleRegistry } from '../modules/index.js';

export interface JobRunnerDeps {
  registry: ModuleRegistry;
  minionId: string;
  grains: () => Grains;
  config: Readonly<Record<string, unknown>>;
  logger: Logger;
}

export class JobRunner {
  private readonly running = new Map<string, AbortController>();

  constructor(private readonly deps: JobRunnerDeps) {}

  get active(): number {
    return this.running.size;
  }

  isRunning(jid: string): boolean {
    return this.running.has(jid);
  }

  async run(job: Job): Promise<Return> {
    const controller = new AbortController();
    this.running.set(job.jid, controller);
    const timer = job.timeout && job.timeout > 0 ? setTimeout(() => controller.abort(new Error(`job exceeded its ${job.timeout} s timeout`)), job.timeout * 1000) : undefined;
    const ctx: ExecContext = { grains: this.deps.grains, minionId: this.deps.minionId, config: this.deps.config, signal: controller.signal, jid: job.jid };
    try {
      this.deps.logger.debug({ jid: job.jid, fun: job.fun }, `running ${job.fun}`);
      const result = await this.deps.registry.call(job.fun, job.arg, job.kwarg, ctx);
      const ret: Return = { t: 'return', jid: job.jid, fun: job.fun, ret: result.return ?? null, retcode: result.retcode, success: result.success };
      if (result.error) ret.error = result.error;
      return ret;
    } finally {
      if (timer) clearTimeout(timer);
      this.running.delete(job.jid);
    }
  }

  /** Aborts every running job (minion shutdown). */
  abortAll(): void {
    for (const c of this.running.values()) c.abort(new Error('minion is shutting down'));
  }
}
