// The minion's returners (docs/returners.md): after a job published with `--return`/`ret=` (plus
// the minion's own `return` option), or a schedule entry's run with `returner`, the return goes to
// each named returner, as Salt's minion calls `<name>.returner(ret)` after `_thread_return`. The
// return reaches the master exactly as without them; a returner that fails or is unknown is
// logged with its code and name, and never holds the return back.

import { BrineError, toBrineError } from '../../util/errors.js';
import type { Logger } from '../../util/logger.js';
import type { MinionOptions } from '../../config/index.js';
import { type Job, type Return, saltArgs } from '../../protocol/index.js';
// the names only: the returners (registry.js, with postgres) load when a job first names one
import { returnerNames } from '../../returners/names.js';
import type { Returner, ReturnerContext, SaltReturn } from '../../returners/returner.js';
import type { MinionFeature } from './feature.js';

export class MinionReturners implements MinionFeature {
  readonly name = 'returners';
  private readonly ctx: ReturnerContext;
  private readonly built = new Map<string, Promise<Returner>>();
  /** Returns being handed to returners (awaited at stop, so a stop loses none in flight). */
  private readonly pending = new Set<Promise<void>>();
  private readonly logger: Logger;

  constructor(parts: { opts: MinionOptions; id: string; logger: Logger }) {
    this.ctx = { opts: parts.opts as unknown as Record<string, unknown>, id: parts.id, program: 'brine-minion' };
    this.logger = parts.logger;
  }

  /**
   * A published job's return: to the returners its `ret` names and the minion's `return` option
   * (Salt adds that option to every published job's `ret`).
   */
  afterJob(job: Job, ret: Return): void {
    this.send(returnerNames([...returnerNames(job.ret), ...returnerNames(this.ctx.opts.return)]), job, ret);
  }

  /** A scheduled run's return: to the entry's `returner`s. */
  afterScheduled(job: Job, ret: Return, schedule: string): void {
    this.send(returnerNames(job.ret), job, ret, schedule);
  }

  async stop(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  private send(names: readonly string[], job: Job, ret: Return, schedule?: string): void {
    if (names.length === 0) return;
    const salt: SaltReturn = {
      id: this.ctx.id,
      jid: ret.jid,
      fun: ret.fun,
      fun_args: saltArgs(job.arg, job.kwarg),
      return: ret.ret,
      retcode: ret.retcode,
      success: ret.success,
      ...(job.retConfig ? { ret_config: job.retConfig } : {}),
      ...(job.retKwargs ? { ret_kwargs: job.retKwargs } : {}),
      ...(schedule !== undefined ? { schedule } : {}),
    };
    for (const name of names) {
      const work = this.returner(name)
        .then((r) => r.returner(salt))
        .catch((err: unknown) => {
          const e = err instanceof BrineError ? err : new BrineError('RETURNER_FAILED', `the ${name} returner failed: ${toBrineError(err).message}`, { cause: err });
          this.logger.error(
            { code: e.code, returner: name, jid: ret.jid, fun: ret.fun, err: e.message },
            `the return of job ${ret.jid} was not sent to returner ${name}: ${e.message} (the master has it)`,
          );
        });
      const tracked: Promise<void> = work.finally(() => this.pending.delete(tracked));
      this.pending.add(tracked);
    }
  }

  /** The returner by name, built once; an unknown name gives a returner that rejects with RETURNER_UNKNOWN. */
  private returner(name: string): Promise<Returner> {
    let r = this.built.get(name);
    if (r === undefined) {
      r = import('../../returners/registry.js').then(({ buildReturner }) => {
        try {
          return buildReturner(name, this.ctx);
        } catch (err) {
          const e = toBrineError(err);
          return { name, returner: () => Promise.reject(e) };
        }
      });
      this.built.set(name, r);
    }
    return r;
  }
}
