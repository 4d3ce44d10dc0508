// When a schedule entry fires and whether a due run goes ahead: pure functions of the entry, its
// run state, the time and a random source, so the scheduler's timing is tested with a fake clock.

import type { ScheduleEntry } from './entry.js';
import { inRange, nextWhen } from './time-spec.js';

/** What the scheduler remembers about one entry between ticks. */
export interface RunState {
  /** The unsplayed fire time the next run counts from (epoch ms); undefined = never again. */
  base: number | undefined;
  /** When the next run is due: base plus this run's splay (epoch ms). */
  due: number | undefined;
  /** Runs of this entry in progress (maxrunning). */
  running: number;
  /** When it last started a run (epoch ms). */
  lastRun: number | undefined;
  /** Why the last due run was skipped, for schedule.list show_all. */
  lastSkip: string | undefined;
}

/** Seconds of splay for one run: uniform in [start, end]. */
export function splaySeconds(entry: ScheduleEntry, random: () => number): number {
  if (!entry.splay) return 0;
  const { start, end } = entry.splay;
  return start + Math.floor(random() * (end - start + 1));
}

/** The next unsplayed fire time strictly after `after`, from the entry's timing alone. */
export function nextBase(entry: ScheduleEntry, after: number, previousBase: number | undefined): number | undefined {
  const t = entry.timing;
  switch (t.kind) {
    case 'interval': {
      const step = t.seconds * 1000;
      if (previousBase === undefined) return after + step;
      // counted from the previous fire time, so runs do not drift; missed ones are not made up
      let next = previousBase + step;
      if (next <= after) next += Math.ceil((after - next + 1) / step) * step;
      return next;
    }
    case 'cron':
      return t.cron.next(after);
    case 'when':
      return nextWhen(t.when, after);
    case 'once':
      return previousBase === undefined && t.at > after ? t.at : undefined;
  }
}

function withSplay(entry: ScheduleEntry, base: number | undefined, random: () => number): number | undefined {
  return base === undefined ? undefined : base + splaySeconds(entry, random) * 1000;
}

/** The state of an entry just loaded at `now`; `startup` is the minion's start (run_on_start). */
export function initialState(entry: ScheduleEntry, now: number, startup: boolean, random: () => number): RunState {
  if (startup && entry.runOnStart && entry.timing.kind !== 'once') {
    // the run at start counts as this fire time, so an interval continues from it
    return { base: now, due: now, running: 0, lastRun: undefined, lastSkip: undefined };
  }
  const base = nextBase(entry, now, undefined);
  return { base, due: withSplay(entry, base, random), running: 0, lastRun: undefined, lastSkip: undefined };
}

/** Moves the state past the fire time that just came due (whether it ran or was skipped). */
export function advance(entry: ScheduleEntry, state: RunState, now: number, random: () => number): void {
  const base = nextBase(entry, Math.max(now, state.base ?? now), state.base);
  state.base = base;
  state.due = withSplay(entry, base, random);
}

/** Why a due run must not start now, or undefined when it may. `force` is run_job's. */
export function skipReason(entry: ScheduleEntry, state: RunState, now: number, schedulerEnabled: boolean, force = false): string | undefined {
  if (!force) {
    if (!schedulerEnabled) return 'the scheduler is disabled (schedule.enable turns it on)';
    if (!entry.enabled) return 'the job is disabled (schedule.enable_job turns it on)';
  }
  if (entry.after !== undefined && now < entry.after) return `not before ${new Date(entry.after).toISOString()} (after)`;
  if (entry.until !== undefined && now >= entry.until) return `not after ${new Date(entry.until).toISOString()} (until)`;
  if (entry.range) {
    const inside = inRange(entry.range.start, entry.range.end, now);
    if (inside === entry.range.invert) return entry.range.invert ? 'inside its range (invert: true)' : 'outside its range';
  }
  if (state.running >= entry.maxrunning) return `maxrunning (${entry.maxrunning}) runs are still in progress`;
  return undefined;
}
