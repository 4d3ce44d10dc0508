// schedule.* on top of the Scheduler: Salt's return shapes ({comment, result, changes}),
// refusals as coded errors, and the persist step after each change.

import { BrineError } from '../util/errors.js';
import type { ScheduleControl } from '../modules/index.js';
import { parseEntry } from './entry.js';
import type { Scheduler } from './scheduler.js';

export interface ScheduleControlDeps {
  scheduler: Scheduler;
  /** Re-reads the configured schedule (schedule.reload). */
  readConfigured(): unknown;
  now(): number;
}

function localIso(ms: number): string {
  // local time without an offset, as Salt prints datetime.isoformat() of a naive time
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 19);
}

export class ScheduleFunctions implements ScheduleControl {
  constructor(private readonly deps: ScheduleControlDeps) {}

  private get s(): Scheduler {
    return this.deps.scheduler;
  }

  /** Writes the change when asked; a failed write leaves it in effect and says so. */
  private save_(persist: boolean): void {
    if (persist) this.s.persist();
  }

  private requireConfigJob(name: string, verb: string): Record<string, unknown> {
    const raw = this.s.configSchedule()[name];
    if (raw === undefined) {
      if (this.s.isPillarJob(name)) throw new BrineError('BAD_ARGUMENTS', `cannot ${verb} job ${name}: it comes from pillar; change it in the pillar`);
      throw new BrineError('BAD_ARGUMENTS', `job ${name} does not exist; schedule.list shows the jobs`);
    }
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return {};
    return raw as Record<string, unknown>;
  }

  list(showAll: boolean): unknown {
    const schedule: Record<string, unknown> = {};
    for (const { name, entry, state, source } of this.s.jobs()) {
      const out: Record<string, unknown> = { ...entry.raw, name, enabled: entry.enabled, maxrunning: entry.maxrunning, jid_include: entry.raw.jid_include ?? true, return_job: entry.returnJob };
      if (showAll) {
        out._next_fire_time = state.due === undefined ? null : localIso(state.due);
        out._running = state.running;
        out._last_run = state.lastRun === undefined ? null : localIso(state.lastRun);
        out._source = source;
        if (state.lastSkip !== undefined) out._skip_reason = state.lastSkip;
      }
      schedule[name] = out;
    }
    const result: Record<string, unknown> = { schedule };
    if (!this.s.enabled) result.enabled = false;
    const errors = this.s.errors();
    if (errors.size > 0) result._errors = Object.fromEntries([...errors].map(([n, e]) => [n, `${e.code}: ${e.message}`]));
    return result;
  }

  add(name: string, fields: Record<string, unknown>, persist: boolean): unknown {
    if (this.s.configSchedule()[name] !== undefined || this.s.isPillarJob(name)) throw new BrineError('BAD_ARGUMENTS', `job ${name} already exists in the schedule; use schedule.modify to change it`);
    if (Object.keys(fields).length === 0) throw new BrineError('BAD_ARGUMENTS', 'schedule.add needs the job fields, e.g. function=test.ping seconds=3600');
    this.s.setJob(name, fields);
    this.save_(persist);
    return { comment: `Added job: ${name} to schedule.`, result: true, changes: { [name]: 'added' } };
  }

  modify(name: string, fields: Record<string, unknown>, persist: boolean): unknown {
    const old = this.requireConfigJob(name, 'modify');
    if (Object.keys(fields).length === 0) throw new BrineError('BAD_ARGUMENTS', 'schedule.modify needs the job fields, e.g. function=test.ping seconds=60');
    if (JSON.stringify(old) === JSON.stringify(fields)) return { comment: `Job ${name} in correct state`, result: true, changes: {} };
    this.s.setJob(name, fields);
    this.save_(persist);
    return { comment: `Modified job: ${name} in schedule.`, result: true, changes: { [name]: { old, new: fields } } };
  }

  delete(name: string, persist: boolean): unknown {
    this.requireConfigJob(name, 'delete');
    this.s.setJob(name, undefined);
    this.save_(persist);
    return { comment: `Deleted Job ${name} from schedule.`, result: true, changes: { [name]: 'removed' } };
  }

  enable(persist: boolean): unknown {
    this.s.setEnabled(true);
    this.save_(persist);
    return { comment: 'Enabled schedule on minion.', result: true, changes: {} };
  }

  disable(persist: boolean): unknown {
    this.s.setEnabled(false);
    this.save_(persist);
    return { comment: 'Disabled schedule on minion.', result: true, changes: {} };
  }

  private setJobEnabled(name: string, on: boolean, persist: boolean): unknown {
    const old = this.requireConfigJob(name, on ? 'enable' : 'disable');
    this.s.setJob(name, { ...old, enabled: on });
    this.save_(persist);
    return { comment: `${on ? 'Enabled' : 'Disabled'} Job ${name} in schedule.`, result: true, changes: { [name]: on ? 'enabled' : 'disabled' } };
  }

  enableJob(name: string, persist: boolean): unknown {
    return this.setJobEnabled(name, true, persist);
  }

  disableJob(name: string, persist: boolean): unknown {
    return this.setJobEnabled(name, false, persist);
  }

  runJob(name: string, force: boolean): unknown {
    const error = this.s.errors().get(name);
    if (error) throw error;
    if (!this.s.entry(name)) throw new BrineError('BAD_ARGUMENTS', `job ${name} does not exist; schedule.list shows the jobs`);
    const reason = this.s.runNow(name, force);
    if (reason !== undefined) return { comment: `Job ${name} was not run: ${reason}.`, result: false };
    return { comment: `Scheduling Job ${name} on minion.`, result: true };
  }

  purge(persist: boolean): unknown {
    const names = this.s.purge();
    this.save_(persist);
    return { comment: names.map((n) => `Deleted job: ${n} from schedule.`), result: true, changes: Object.fromEntries(names.map((n) => [n, 'removed'])) };
  }

  save(): unknown {
    this.s.persist();
    return { comment: 'Schedule (non-pillar items) saved.', result: true };
  }

  reload(): unknown {
    this.s.setConfig(this.deps.readConfigured());
    return { comment: 'Reloaded schedule from the minion config.', result: true };
  }

  isEnabled(name: string | undefined): unknown {
    if (name === undefined) return this.s.enabled;
    const entry = this.s.entry(name);
    if (!entry) {
      const error = this.s.errors().get(name);
      if (error) return false;
      throw new BrineError('BAD_ARGUMENTS', `job ${name} does not exist; schedule.list shows the jobs`);
    }
    return entry.enabled;
  }

  showNextFireTime(name: string): unknown {
    const error = this.s.errors().get(name);
    if (error) return { result: false, comment: `${error.code}: ${error.message}` };
    const state = this.s.state(name);
    if (!state) throw new BrineError('BAD_ARGUMENTS', `job ${name} does not exist; schedule.list shows the jobs`);
    if (state.due === undefined) return { result: true, next_fire_time: null, comment: `Job ${name} will not run again.` };
    return { result: true, next_fire_time: localIso(state.due) };
  }
}

/** Checks fields without changing anything (used by tests and by doctor-like callers). */
export function checkEntry(name: string, fields: unknown, now: number): BrineError | undefined {
  try {
    parseEntry(name, fields, now);
    return undefined;
  } catch (err) {
    return err instanceof BrineError ? err : new BrineError('SCHEDULE_INVALID', String(err));
  }
}
