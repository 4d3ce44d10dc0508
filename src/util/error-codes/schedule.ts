// Error codes of one area (the scheduler); src/util/errors.ts merges the areas into ERRORS.

import { spec, type ErrorSpec } from './spec.js';

export const SCHEDULE_ERRORS = {
  SCHEDULE_INVALID: spec(
    'A schedule entry (minion config, pillar or schedule.add) has an unknown field, a value of the wrong type, no time or an impossible one (an interval of 0 or less, a cron expression that never fires). That entry does not run; the others do.',
    'Fix the field the message names (docs/schedule.md lists every field); `brine run <minion> schedule.list` shows the errors left.',
    1,
  ),
  SCHEDULE_SAVE_FAILED: spec(
    'A schedule change could not be written to <config_dir>/minion.d/_schedule.conf; it is in effect until the minion restarts.',
    "Make the minion.d directory writable by the minion's user, then run schedule.save.",
    1,
  ),
} as const satisfies Record<string, ErrorSpec>;
