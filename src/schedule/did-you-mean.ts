// The known name an unknown schedule field is probably a typo of (as config option typos are).

import { editDistance } from '../config/typo.js';

/** The closest of `names` within two edits of `key`, or undefined. */
export function closestName(key: string, names: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const name of names) {
    const d = editDistance(key.toLowerCase(), name);
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  return best;
}
