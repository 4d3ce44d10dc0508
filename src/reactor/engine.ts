// The reactor engine (Salt's salt/utils/reactor.py): every event on the daemon's bus is matched
// against the `reactor:` tag globs; each matching SLS file is rendered with the event's tag and
// data and its reactions run through the clients the daemon gives: on the master local jobs
// through the JobTracker and runner and wheel functions; on a minion (Salt's reactor engine on a
// masterless minion) caller functions through the minion's own loader. Rendering and running
// happen on a bounded queue (reactor_worker_threads / reactor_worker_hwm); a loop guard stops a
// reactor that triggers itself. Nothing here stops the daemon: every failure is logged, recorded
// and coded.

import { AsyncLocalStorage } from 'node:async_hooks';
import type { SaltEvent } from '../protocol/index.js';
import type { Clock } from '../util/clock.js';
import { BrineError, toBrineError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { type Chain, LoopGuard, LOOP_DEFAULTS, type LoopGuardOptions } from './loop-guard.js';
import { compileReactions, type Reaction } from './reactions.js';
import { type ReactionOutcome, type ReactionRecord, RecentReactions } from './recent.js';
import { type ReactorEntry, reactorsFor } from './reactor-map.js';
import { type RenderContext, renderReaction } from './render.js';
import { WorkQueue } from './work-queue.js';

/** Salt's ReactWrap.event_user: the user of the reactor's jobs, and the mark of events to skip. */
export const REACTOR_USER = 'Reactor';

export type FunctionCall = { arg: unknown[]; kwarg: Record<string, unknown> };
type CallClient = (fun: string, call: FunctionCall, user: string) => Promise<unknown>;

/**
 * What a daemon runs reactions with; a client it lacks is refused with REACTION_UNSUPPORTED (the
 * master has no caller, a minion only caller). Each rejects with a coded error. Events a call
 * fires, even after an await, carry the reaction's chain (the loop guard's causation).
 */
export interface ReactorClients {
  /** Publishes a job (Salt's LocalClient.cmd_async) and resolves with its jid once published. */
  local?(r: Reaction & { tgt: string | string[]; tgtType: string }, user: string): Promise<{ jid: string }>;
  /** A runner or wheel function on the master. */
  runner?: CallClient;
  wheel?: CallClient;
  /** An execution function on this host, as salt-call runs it (Salt's Caller). */
  caller?: CallClient;
}

/** Where the reactor runs: what a refused client's message tells the operator to use instead. */
export type ReactorRole = 'master' | 'minion';

export interface ReactorDeps extends RenderContext {
  map: readonly ReactorEntry[];
  clients: ReactorClients;
  /** Default master. */
  role?: ReactorRole;
  /** The text of a reactor SLS (an absolute path or salt://...), undefined when there is none. */
  readSls(path: string): string | undefined | Promise<string | undefined>;
  workers: number;
  hwm: number;
  logger: Logger;
  clock: Clock;
  loop?: LoopGuardOptions;
}

export class Reactor {
  readonly recent = new RecentReactions();
  readonly guard: LoopGuard;
  readonly queue: WorkQueue;
  /** The chain of the reaction whose runner, wheel or caller function (or salt[...] call) is running. */
  private readonly current = new AsyncLocalStorage<Chain>();
  private readonly warnedAt = new Map<string, number>();
  private closed = false;

  constructor(private readonly deps: ReactorDeps) {
    this.guard = new LoopGuard(deps.clock, deps.loop ?? LOOP_DEFAULTS);
    this.queue = new WorkQueue(deps.workers, deps.hwm);
  }

  /** One event from the bus. Never throws: the bus drops a subscriber that does. */
  onEvent(event: SaltEvent): void {
    if (this.closed) return;
    // Salt's Reactor.run: events fired by the reactor itself (its jobs' `new`, its runners' events) are skipped
    if (event.data.user === REACTOR_USER) return;
    const matches = reactorsFor(this.deps.map, event.tag);
    if (matches.length === 0) return;
    const chain = this.current.getStore() ?? this.guard.chainOf(event.data);
    const at = this.deps.clock.now();
    for (const { sls } of matches) {
      const verdict = this.guard.admit(sls, event.tag, chain);
      if (!verdict.ok) {
        const err = new BrineError('REACTOR_LOOP', `reactor ${sls} was not run for tag ${event.tag}: ${verdict.why}; narrow its tag glob or skip the events its reactions cause`, {
          details: { sls, tag: event.tag },
        });
        this.refused(`loop\0${sls}\0${event.tag}`, { at, tag: event.tag, sls, outcome: 'limited' }, err);
        continue;
      }
      const queued = this.queue.push(() => this.react(event, sls, chain, at));
      if (!queued) {
        const { running, waiting } = this.queue.size;
        const err = new BrineError(
          'REACTOR_BUSY',
          `reactor ${sls} was not run for tag ${event.tag}: ${running} reactions run and ${waiting} wait (reactor_worker_threads, reactor_worker_hwm); ${this.queue.dropped} dropped so far`,
          { details: { sls, tag: event.tag } },
        );
        this.refused('busy', { at, tag: event.tag, sls, outcome: 'dropped' }, err);
      }
    }
  }

  /** Stops taking events and waits for the reactions in flight. */
  async close(): Promise<void> {
    this.closed = true;
    await this.queue.idle();
  }

  /** close(), waiting at most `ms` (a long runner or state run must not hold the daemon's stop). */
  async closeWithin(ms: number): Promise<void> {
    let timer: { cancel(): void } | undefined;
    try {
      await Promise.race([this.close(), new Promise<void>((resolve) => (timer = this.deps.clock.setTimeout(resolve, ms)))]);
    } finally {
      timer?.cancel();
    }
  }

  private async react(event: SaltEvent, sls: string, chain: Chain, at: number): Promise<void> {
    const base = { at, tag: event.tag, sls };
    let text: string | undefined;
    try {
      text = await this.deps.readSls(sls);
    } catch (err) {
      this.fail(base, 'failed', toBrineError(err, 'REACTOR_SLS_MISSING'));
      return;
    }
    if (text === undefined) {
      this.fail(
        base,
        'failed',
        new BrineError('REACTOR_SLS_MISSING', `reactor SLS ${sls} (for tag ${event.tag}) does not exist: fix the path in the reactor option or create the file`, { details: { sls } }),
      );
      return;
    }
    let data: unknown;
    try {
      // what salt[...] calls in the file fire is this file's doing
      const { call } = this.deps;
      const ctx = call ? { ...this.deps, call: (fun: string, arg: unknown[], kwarg: Record<string, unknown>) => this.current.run([...chain, sls], () => call(fun, arg, kwarg)) } : this.deps;
      data = await renderReaction(text, sls, event.tag, event.data, ctx);
    } catch (err) {
      this.fail(base, 'render_error', toBrineError(err, 'RENDER_FAILED'));
      return;
    }
    const { reactions, errors } = compileReactions(data, sls);
    for (const err of errors) this.fail({ ...base, id: String(err.details.id ?? '') }, 'failed', err);
    for (const r of reactions) await this.run(r, base, [...chain, sls]);
  }

  private async run(r: Reaction, base: Pick<ReactionRecord, 'at' | 'tag' | 'sls'>, chain: Chain): Promise<void> {
    const rec = { ...base, id: r.id, fun: `${r.client}.${r.fun}` };
    for (const w of r.warnings) this.deps.logger.warn({ sls: r.sls, id: r.id }, w);
    try {
      if (r.client === 'local' && this.deps.clients.local) {
        const { tgt, tgtType } = r;
        // compileReactions gives every local reaction both; a reaction without them is not one
        if (tgt === undefined || tgtType === undefined) throw new BrineError('REACTION_INVALID', `${r.sls}: reaction '${r.id}' has no tgt`, { details: { sls: r.sls, id: r.id } });
        const { jid } = await this.deps.clients.local({ ...r, tgt, tgtType }, REACTOR_USER);
        this.guard.noteJob(jid, chain);
        this.record({ ...rec, outcome: 'published', jid });
        this.deps.logger.info({ sls: r.sls, id: r.id, tag: base.tag, jid }, `reactor ${r.sls} published ${r.fun} as job ${jid} for tag ${base.tag}`);
        return;
      }
      const client = r.client === 'local' ? undefined : this.deps.clients[r.client];
      if (!client) throw unsupported(r, this.deps.role ?? 'master');
      await this.current.run(chain, () => client(r.fun, { arg: r.arg, kwarg: r.kwarg }, REACTOR_USER));
      this.record({ ...rec, outcome: 'done' });
      this.deps.logger.info({ sls: r.sls, id: r.id, tag: base.tag }, `reactor ${r.sls} ran ${r.client}.${r.fun} for tag ${base.tag}`);
    } catch (err) {
      this.fail(rec, 'failed', toBrineError(err));
    }
  }

  private record(r: ReactionRecord): void {
    this.recent.add(r);
  }

  private fail(rec: Omit<ReactionRecord, 'outcome' | 'error'>, outcome: ReactionOutcome, err: BrineError): void {
    this.record({ ...rec, outcome, error: { code: err.code, message: err.message } });
    // Salt logs "Failed to render" / "Reactor '<id>' failed to execute" at error level; the master goes on
    this.deps.logger.error({ code: err.code, sls: rec.sls, tag: rec.tag, ...(rec.id ? { id: rec.id } : {}) }, `${err.code}: ${err.message}`);
  }

  /** A refused reaction is recorded every time and logged at most once a second per kind. */
  private refused(key: string, rec: Omit<ReactionRecord, 'error'>, err: BrineError): void {
    this.record({ ...rec, error: { code: err.code, message: err.message } });
    const now = this.deps.clock.now();
    const last = this.warnedAt.get(key);
    if (last !== undefined && now - last < 1000) return;
    if (this.warnedAt.size > 1024) this.warnedAt.clear();
    this.warnedAt.set(key, now);
    this.deps.logger.warn({ code: err.code, sls: rec.sls, tag: rec.tag }, `${err.code}: ${err.message}`);
  }
}

/** What to use instead of a client this daemon's reactor does not have. */
const INSTEAD: Record<ReactorRole, (r: Reaction) => string> = {
  master: (r) =>
    `caller.${r.fun} runs the function on the host of the reactor, which is for a minion's own reactor (reactor: in the minion config); on the master use local.${r.fun} with tgt set to the minion`,
  minion: (r) =>
    `a minion's reactor runs caller.<fun> reactions only (${r.client}.${r.fun} runs on a master's reactor): use caller.${r.fun} to run it on this minion, or event.send a tag the master's reactor maps`,
};

function unsupported(r: Reaction, role: ReactorRole): BrineError {
  return new BrineError('REACTION_UNSUPPORTED', `${r.sls}: reaction '${r.id}' cannot run here: ${INSTEAD[role](r)}`, { details: { sls: r.sls, id: r.id, client: r.client } });
}
