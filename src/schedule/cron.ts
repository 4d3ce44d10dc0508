// Cron expressions for `cron:` entries, through the croner package: five fields (minute hour
// day-of-month month day-of-week) or six with seconds first. An expression that never fires
// (30 February) is refused when the entry is read, not discovered later as silence.

import { Cron } from 'croner';
import { errorMessage } from '../util/errors.js';

export interface CronSchedule {
  expression: string;
  /** The first fire time strictly after `afterMs` (epoch ms), or undefined when there is none. */
  next(afterMs: number): number | undefined;
}

/** A schedule, or a message saying what is wrong with the expression. */
export function parseCron(expression: string, now: number): CronSchedule | string {
  let cron: Cron;
  try {
    // legacyMode: day-of-month and day-of-week are OR-ed, as in Vixie cron and Salt's croniter
    cron = new Cron(expression, { paused: true, legacyMode: true });
  } catch (err) {
    return `'${expression}' is not a cron expression: ${errorMessage(err)}`;
  }
  const next = (afterMs: number): number | undefined => cron.nextRun(new Date(afterMs))?.getTime() ?? undefined;
  if (next(now) === undefined) return `'${expression}' never fires (no such date, e.g. 30 February); fix the day and month fields`;
  return { expression, next };
}
