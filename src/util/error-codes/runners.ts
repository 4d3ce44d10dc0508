// Error codes of the runners (Salt's salt-run functions, `brine runner`, the API's runner client);
// src/util/errors.ts merges the areas into ERRORS.

import { spec, type ErrorSpec } from './spec.js';

export const RUNNER_ERRORS = {
  RUNNER_UNKNOWN: spec("No runner function has this name (Salt's \"'<fun>' is not available.\").", 'See the runner functions brine has in docs/runners.md; check the spelling (module.function).', 1),
  RUNNER_UNAVAILABLE: spec(
    'The runner function needs a part of the master this call cannot reach: it was called outside the master, or the master runs no execution functions itself (salt.cmd).',
    'Call it through the master (brine runner, or the API runner client); for salt.cmd, run the function on a minion with brine run.',
    1,
  ),
} as const satisfies Record<string, ErrorSpec>;
