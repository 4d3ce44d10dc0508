// Reading `brine emulate`'s JSON stats lines from its output (shared by the fault tests).

import type { Proc } from '../helpers/cluster.js';

export interface EmulatorStats {
  at: number;
  total: number;
  ready: number;
  connects: number;
  drops: number;
  jobs: number;
  fatal: number;
}

/** The last stats line the emulator printed, if any. */
export function lastStats(p: Proc): EmulatorStats | undefined {
  const last = p.output.split('\n').filter((l) => l.startsWith('{"at":')).at(-1);
  return last === undefined ? undefined : (JSON.parse(last) as EmulatorStats);
}
