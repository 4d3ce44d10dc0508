// The master's returners (docs/returners.md): `event_return` sends every event of the bus that
// passes the white/blacklists to the named returners, batched as Salt's EventReturn does;
// `master_job_cache` copies each job's load and each return to a returner besides brine's own
// SQLite job cache, which stays the source of truth. A failing returner is logged with
// RETURNER_FAILED and its name; nothing in the job cache depends on it.

import os from 'node:os';
import type { Clock } from '../../util/clock.js';
import type { Disposable } from '../../util/disposable.js';
import { BrineError, toBrineError } from '../../util/errors.js';
import type { Logger } from '../../util/logger.js';
import type { MasterOptions } from '../../config/index.js';
import { type BrineEvent, saltArgs } from '../../protocol/index.js';
import { buildReturner, EventReturnQueue, type Returner, returnerNames } from '../../returners/index.js';
import type { EventBus } from '../event-bus.js';
import type { MasterFeature } from './master-feature.js';

export interface ReturnersDeps {
  opts: MasterOptions;
  events: EventBus;
  logger: Logger;
  clock: Clock;
}

export class Returners implements MasterFeature {
  readonly name = 'returners';
  private queue: EventReturnQueue | undefined;
  private readonly subscriptions: Disposable[] = [];
  /** Loads and returns being copied to master_job_cache (awaited at stop). */
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly deps: ReturnersDeps) {}

  start(): void {
    const { opts, events } = this.deps;
    const eventReturners = this.build(returnerNames(opts.event_return), 'event_return');
    if (eventReturners.length > 0) {
      const queue = new EventReturnQueue({
        clock: this.deps.clock,
        queueSize: opts.event_return_queue,
        maxSeconds: opts.event_return_queue_max_seconds,
        whitelist: opts.event_return_whitelist,
        blacklist: opts.event_return_blacklist,
        flush: (batch) => this.flushEvents(eventReturners, batch),
      });
      this.queue = queue;
      this.subscriptions.push(events.subscribe((e) => queue.add({ tag: e.tag, data: e.data })));
    }
    const cacheName = opts.master_job_cache;
    if (cacheName !== 'local_cache') {
      const [jobCache] = this.build([cacheName], 'master_job_cache');
      if (jobCache !== undefined) this.subscriptions.push(events.observe((e) => this.toJobCache(jobCache, e)));
    }
  }

  async stop(): Promise<void> {
    for (const s of this.subscriptions.splice(0)) s.dispose();
    await this.queue?.close();
    await Promise.all([...this.pending]);
  }

  /** The returners an option names; an unknown one is logged (the master still starts, as Salt's does). */
  private build(names: readonly string[], option: string): Returner[] {
    const ctx = { opts: this.deps.opts as unknown as Record<string, unknown>, id: this.deps.opts.id || `${os.hostname()}_master`, program: 'brine-master' };
    const out: Returner[] = [];
    for (const name of names) {
      try {
        out.push(buildReturner(name, ctx));
      } catch (err) {
        const e = toBrineError(err);
        this.deps.logger.error({ code: e.code, option, returner: name }, `${option}: ${e.message}; nothing is sent to it`);
      }
    }
    return out;
  }

  private async flushEvents(returners: readonly Returner[], batch: readonly { tag: string; data: Readonly<Record<string, unknown>> }[]): Promise<void> {
    for (const r of returners) {
      if (r.eventReturn === undefined) continue;
      try {
        await r.eventReturn(batch);
      } catch (err) {
        this.report(err, r.name, { option: 'event_return', events: batch.length }, `event_return: ${batch.length} event(s) not stored by ${r.name}`);
      }
    }
  }

  /** A job's load when published, each return as it arrives: copies of what the job cache keeps. */
  private toJobCache(r: Returner, e: BrineEvent): void {
    let work: Promise<void> | undefined;
    if (e.kind === 'job_published' && r.saveLoad) {
      const load = { jid: e.jid, fun: e.fun, arg: saltArgs(e.arg, e.kwarg), tgt: e.tgt, tgt_type: e.tgtType, user: e.user, minions: e.minions };
      work = r.saveLoad(e.jid, load);
    } else if (e.kind === 'job_return') {
      work = r.returner({ id: e.minion, jid: e.jid, fun: e.fun, fun_args: e.funArgs, return: e.ret, retcode: e.retcode, success: e.success, cmd: '_return' });
    }
    if (work === undefined) return;
    const jid = e.kind === 'job_published' || e.kind === 'job_return' ? e.jid : '';
    const tracked: Promise<void> = work
      .catch((err: unknown) => this.report(err, r.name, { option: 'master_job_cache', jid }, `master_job_cache: job ${jid} not copied to ${r.name}; brine's job cache has it`))
      .finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  private report(err: unknown, returner: string, fields: Record<string, unknown>, what: string): void {
    const e = err instanceof BrineError ? err : new BrineError('RETURNER_FAILED', toBrineError(err).message, { cause: err });
    this.deps.logger.error({ code: e.code, returner, ...fields, err: e.message }, `${what}: ${e.message}`);
  }
}
