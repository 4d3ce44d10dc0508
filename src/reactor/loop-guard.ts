// Keeps a reactor from reacting to itself without end (docs/reactor.md, "Loops"). Two rules:
// causation: an event caused by a reaction (a return of a job it published, an event fired while
// a runner or wheel reaction ran) carries that reaction's chain of SLS files; the same SLS may
// appear in one chain at most `maxRepeats` times. Rate: one SLS reacts to one exact tag at most
// `perSecond` times in a second (catches a loop whose cause cannot be followed, e.g. an event
// sent later by a runner). Pure bookkeeping with an injected clock; the engine acts on the verdict.

import type { Clock } from '../util/clock.js';

/** The reactor SLS files whose reactions led to an event, oldest first. */
export type Chain = readonly string[];

export type Verdict = { ok: true } | { ok: false; rule: 'chain' | 'rate'; why: string };

export interface LoopGuardOptions {
  maxRepeats: number;
  perSecond: number;
  /** Jobs remembered for causation; the oldest are forgotten first. */
  maxJobs: number;
}

export const LOOP_DEFAULTS: LoopGuardOptions = { maxRepeats: 3, perSecond: 10, maxJobs: 10_000 };

export class LoopGuard {
  private readonly jobs = new Map<string, Chain>();
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly clock: Pick<Clock, 'now'>,
    private readonly opts: LoopGuardOptions = LOOP_DEFAULTS,
  ) {}

  /** A job published by a reaction: its returns carry the chain that published it. */
  noteJob(jid: string, chain: Chain): void {
    this.jobs.delete(jid);
    this.jobs.set(jid, chain);
    if (this.jobs.size > this.opts.maxJobs) this.jobs.delete(this.jobs.keys().next().value as string);
  }

  /** The chain of an event about a job a reaction published (its `jid`), else empty. */
  chainOf(data: Readonly<Record<string, unknown>>): Chain {
    return typeof data.jid === 'string' ? (this.jobs.get(data.jid) ?? []) : [];
  }

  /** May `sls` react to `tag`, given the event's chain? Counts the reaction when it may. */
  admit(sls: string, tag: string, chain: Chain): Verdict {
    const repeats = chain.filter((s) => s === sls).length;
    if (repeats >= this.opts.maxRepeats) {
      return { ok: false, rule: 'chain', why: `the event was caused by this SLS's own reactions ${repeats} times in a row (limit ${this.opts.maxRepeats})` };
    }
    const key = `${sls}\0${tag}`;
    const now = this.clock.now();
    let w = this.windows.get(key);
    if (!w || now - w.start >= 1000) {
      w = { start: now, count: 0 };
      this.windows.set(key, w);
      this.prune(now);
    }
    if (w.count >= this.opts.perSecond) return { ok: false, rule: 'rate', why: `more than ${this.opts.perSecond} reactions to this tag within a second` };
    w.count++;
    return { ok: true };
  }

  /** Drops the rate windows that ended, so a master seeing many distinct tags keeps no history. */
  private prune(now: number): void {
    if (this.windows.size < 1024) return;
    for (const [k, w] of this.windows) if (now - w.start >= 1000) this.windows.delete(k);
  }
}
