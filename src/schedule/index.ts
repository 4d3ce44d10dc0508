// Public surface of the scheduler: entries, their timing, the Scheduler, schedule.* and persistence.

export { SCHEDULE_FIELDS, parseEntry } from './entry.js';
export type { ScheduleEntry, Timing } from './entry.js';
export { advance, initialState, nextBase, skipReason, splaySeconds } from './timing.js';
export type { RunState } from './timing.js';
export { Scheduler, TICK_MS } from './scheduler.js';
export type { RawSchedule, SchedulerDeps } from './scheduler.js';
export { ScheduleFunctions, checkEntry } from './control.js';
export { SCHEDULE_FILE, readConfiguredSchedule, scheduleFilePath, writeScheduleFile } from './persist.js';
