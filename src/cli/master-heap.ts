// V8 settings for `brine master` (issue 27, sessmem). Imported first by program.ts, next to
// minion-heap.ts, so it runs before the master's modules allocate anything.
//
// V8 grows the young generation (two semi-spaces) from 1 MiB each up to 16 MiB each whenever a
// scavenge finds more survivors than the space holds; a first enrolment of thousands of minions
// (handshakes, key files, presence writes) takes it to the maximum, and its 32 MiB stay
// committed and resident for the master's life: ~3 KiB a minion at 10,000, against a raw TLS
// server whose young generation never grows (bench/README.md, "Issue 27: sessmem").
//
// --max-semi-space-size is read only when the heap is created (not settable here, and an
// environment variable would reach every job the master runs), but the growth factor is read at
// each resize: the semi-spaces grow as usual until they reach the cap, then the factor is set to
// 1 and they stay there. A gc observer watches for that and disconnects once it is done.

import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/** The young generation's cap (both semi-spaces together, MiB). */
export const MASTER_NEW_SPACE_CAP_MIB = 8;

function newSpaceMiB(): number {
  const s = getHeapSpaceStatistics().find((x) => x.space_name === 'new_space');
  return s === undefined ? 0 : s.space_size / 1048576;
}

/** Stops the young generation growing past `capMiB` (from now on; never shrinks it). */
export function capYoungGeneration(capMiB: number): void {
  const stop = (): boolean => {
    if (newSpaceMiB() < capMiB) return false;
    setFlagsFromString('--semi-space-growth-factor=1');
    return true;
  };
  if (stop()) return;
  const observer = new PerformanceObserver(() => {
    if (stop()) observer.disconnect();
  });
  observer.observe({ entryTypes: ['gc'] });
}

if (process.argv[2] === 'master') capYoungGeneration(MASTER_NEW_SPACE_CAP_MIB);
