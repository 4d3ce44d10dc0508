// Reading `brine emulate`'s JSON stats lines from its output (shared by the fault tests).

import type { EmulatorStats as Counts } from '../../src/emulator/index.js';
import type { Proc } from '../helpers/cluster.js';

/** One stats line: the emulator's counters and when they were printed. */
export type EmulatorStats = Counts & { at: number };

/** The last stats line the emulator printed, if any. */
export function lastStats(p: Proc): EmulatorStats | undefined {
  const last = p.output
    .split('\n')
    .filter((l) => l.startsWith('{"at":'))
    .at(-1);
  return last === undefined ? undefined : (JSON.parse(last) as EmulatorStats);
}
