// Error codes of one area (the mine); src/util/errors.ts merges the areas into ERRORS.

import { spec, type ErrorSpec } from './spec.js';

export const MINE_ERRORS = {
  MINE_UNAVAILABLE: spec(
    'A mine function needs the master (it keeps the mine) but this minion has no connection to one, or runs without the minion daemon.',
    'Run it through the minion daemon (`brine run`) and check the connection with `brine doctor`; nothing was stored.',
    1,
  ),
  MINE_DATA_TOO_LARGE: spec(
    'Mine data is larger than the protocol allows (1 MiB of JSON per minion, 8 MiB per mine.get answer).',
    'Mine smaller data (a narrower function or arguments), or narrow the mine.get target or function list; nothing was stored.',
    1,
  ),
} as const satisfies Record<string, ErrorSpec>;
