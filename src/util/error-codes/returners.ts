// Error codes of one area (returners: --return, schedule returner, event_return,
// master_job_cache); src/util/errors.ts merges the areas into ERRORS.

import { spec, type ErrorSpec } from './spec.js';

export const RETURNER_ERRORS = {
  RETURNER_UNKNOWN: spec(
    'A returner named by --return, a schedule entry, event_return or master_job_cache is not one brine has.',
    'Use one of syslog, local_cache or postgres (docs/returners.md); the job ran and its result is in the job cache.',
    1,
  ),
  RETURNER_FAILED: spec(
    'A returner could not store a return, a job load or events (its store is down, refuses the login, or lacks the tables).',
    "Check the returner's options (returner.postgres.host/port/user/passwd/db, syslog.*) and that the store is up with Salt's tables (docs/returners.md); the result is still in brine's job cache.",
    1,
  ),
} as const satisfies Record<string, ErrorSpec>;
