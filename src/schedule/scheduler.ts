// The minion's scheduler: the entries of the `schedule` option (with schedule.* changes) merged
// over those of pillar, as Salt merges them, a tick every second that starts the due runs
// through an injected `run`, and the bookkeeping schedule.* reads. Invalid entries are kept
// aside with their error so the others still run.

import type { Clock, TimerHandle } from '../util/clock.js';
import { BrineError, isBrineError, errorMessage } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { parseEntry, type ScheduleEntry } from './entry.js';
import { advance, initialState, skipReason, type RunState } from './timing.js';

/** How often due entries are looked for (Salt's loop_interval default). */
export const TICK_MS = 1000;

export type RawSchedule = Record<string, unknown>;

export interface SchedulerDeps {
  clock: Clock;
  logger: Logger;
  random?: () => number;
  /** Starts one run; resolves when it has finished (maxrunning counts until then); undefined = already finished. */
  run(entry: ScheduleEntry): Promise<void> | undefined;
  /** Writes the non-pillar schedule (schedule.* with persist); throws when it cannot. */
  persist?(schedule: RawSchedule): void;
}

interface Slot {
  entry: ScheduleEntry;
  state: RunState;
  source: 'config' | 'pillar';
  /** The raw value it was built from, to keep the state of an unchanged entry across reloads. */
  key: string;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export class Scheduler {
  private configLayer: RawSchedule = {};
  private pillarLayer: RawSchedule = {};
  private readonly slots = new Map<string, Slot>();
  private readonly invalid = new Map<string, BrineError>();
  private timer: TimerHandle | undefined;
  private started = false;
  private readonly random: () => number;

  constructor(private readonly deps: SchedulerDeps) {
    this.random = deps.random ?? Math.random;
  }

  /** Whether the whole scheduler runs jobs (Salt's `schedule: {enabled: false}`). */
  get enabled(): boolean {
    return this.configLayer.enabled !== false && this.pillarLayer.enabled !== false;
  }

  /** The `schedule` option (minion config with minion.d/_schedule.conf); call before start(). */
  setConfig(schedule: unknown): void {
    this.configLayer = isPlainObject(schedule) ? { ...schedule } : {};
    this.rebuild(false);
  }

  /** The `schedule` key of the minion's pillar; called again whenever pillar changes. */
  setPillar(schedule: unknown): void {
    this.pillarLayer = isPlainObject(schedule) ? { ...schedule } : {};
    this.rebuild(false);
  }

  /** Starts ticking; entries with run_on_start run at once. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.rebuild(true);
    this.tick();
    this.timer = this.deps.clock.setInterval(() => this.tick(), TICK_MS);
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  /** Jobs that could not be read, by name, with their coded error. */
  errors(): ReadonlyMap<string, BrineError> {
    return this.invalid;
  }

  entry(name: string): ScheduleEntry | undefined {
    return this.slots.get(name)?.entry;
  }

  state(name: string): RunState | undefined {
    return this.slots.get(name)?.state;
  }

  /** Names of valid jobs, with where each came from. */
  jobs(): Array<{ name: string; source: 'config' | 'pillar'; entry: ScheduleEntry; state: RunState }> {
    return [...this.slots].map(([name, s]) => ({ name, source: s.source, entry: s.entry, state: s.state }));
  }

  /** The non-pillar schedule as it would be persisted. */
  configSchedule(): RawSchedule {
    return { ...this.configLayer };
  }

  isPillarJob(name: string): boolean {
    return this.pillarLayer[name] !== undefined && this.configLayer[name] === undefined;
  }

  /** Sets (or with `undefined` removes) a job of the config layer; throws SCHEDULE_INVALID and changes nothing when it is not valid. */
  setJob(name: string, fields: Record<string, unknown> | undefined): void {
    if (name === 'enabled') throw new BrineError('BAD_ARGUMENTS', "'enabled' is the scheduler's own switch, not a job name; pick another name");
    if (fields !== undefined) parseEntry(name, fields, this.deps.clock.now());
    if (fields === undefined) delete this.configLayer[name];
    else this.configLayer[name] = fields;
    this.rebuild(false);
  }

  /** Turns the whole scheduler on or off (config layer). */
  setEnabled(on: boolean): void {
    if (on) delete this.configLayer.enabled;
    else this.configLayer.enabled = false;
  }

  /** Removes every config-layer job (schedule.purge); pillar jobs stay. */
  purge(): string[] {
    const names = Object.keys(this.configLayer).filter((k) => k !== 'enabled');
    for (const n of names) delete this.configLayer[n];
    this.rebuild(false);
    return names;
  }

  persist(): void {
    this.deps.persist?.(this.configSchedule());
  }

  /** Starts a run of `name` now (schedule.run_job); the reason it did not start otherwise. */
  runNow(name: string, force: boolean): string | undefined {
    const slot = this.slots.get(name);
    if (!slot) return `no valid job named '${name}'`;
    const reason = skipReason(slot.entry, slot.state, this.deps.clock.now(), this.enabled, force);
    if (reason !== undefined) return reason;
    this.launch(slot);
    return undefined;
  }

  /** One pass: every due entry runs or is skipped, then moves to its next fire time. */
  tick(): void {
    const now = this.deps.clock.now();
    for (const [name, slot] of this.slots) {
      const { state, entry } = slot;
      if (state.due === undefined || state.due > now) continue;
      const reason = skipReason(entry, state, now, this.enabled);
      state.lastSkip = reason;
      if (reason === undefined) this.launch(slot);
      else this.deps.logger.debug({ job: name }, `schedule: skipped ${name}: ${reason}`);
      advance(entry, state, now, this.random);
    }
  }

  private launch(slot: Slot): void {
    const { entry, state } = slot;
    state.running++;
    state.lastRun = this.deps.clock.now();
    this.deps.logger.info({ job: entry.name, fun: entry.function }, `Running scheduled job: ${entry.name}`);
    let running: Promise<void> | undefined;
    try {
      running = this.deps.run(entry);
    } catch (err) {
      running = Promise.reject(err);
    }
    // a run that finished synchronously (tests) frees its maxrunning slot at once
    if (running === undefined) {
      state.running--;
      return;
    }
    void running
      .catch((err: unknown) => this.deps.logger.error({ job: entry.name, err: errorMessage(err) }, `scheduled job ${entry.name} failed to start`))
      .finally(() => {
        state.running--;
      });
  }

  /** Re-reads both layers; unchanged entries keep their run state. */
  private rebuild(startup: boolean): void {
    // before start() the layers are only stored: start() reads them once, with run_on_start
    if (!this.started) return;
    const now = this.deps.clock.now();
    const merged = new Map<string, { value: unknown; source: 'config' | 'pillar' }>();
    // Salt: pillar first, then the minion's own schedule over it
    for (const [name, value] of Object.entries(this.pillarLayer)) if (name !== 'enabled') merged.set(name, { value, source: 'pillar' });
    for (const [name, value] of Object.entries(this.configLayer)) if (name !== 'enabled') merged.set(name, { value, source: 'config' });
    const previousErrors = new Set(this.invalid.keys());
    this.invalid.clear();
    const seen = new Set<string>();
    for (const [name, { value, source }] of merged) {
      const key = JSON.stringify(value) ?? '';
      const old = this.slots.get(name);
      seen.add(name);
      if (old && old.key === key && !startup) {
        old.source = source;
        continue;
      }
      try {
        const entry = parseEntry(name, value, now);
        const state = initialState(entry, now, startup, this.random);
        if (old) state.running = old.state.running;
        this.slots.set(name, { entry, state, source, key });
      } catch (err) {
        this.slots.delete(name);
        const error = isBrineError(err) ? err : new BrineError('SCHEDULE_INVALID', `schedule job '${name}': ${String(err)}`);
        this.invalid.set(name, error);
        // logged once per change, not every reload
        if (!previousErrors.has(name) || startup) this.deps.logger.error({ job: name, code: error.code, source }, `${error.message}; this job does not run, the others do`);
      }
    }
    for (const name of [...this.slots.keys()]) if (!seen.has(name)) this.slots.delete(name);
  }
}
