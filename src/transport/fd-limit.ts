// How many file descriptors this process may hold (RLIMIT_NOFILE) and how many it holds now,
// read from /proc on Linux. The listener keeps a reserve below the limit so that a flood of
// network connections never leaves the control socket or the job cache without a descriptor.

import * as fs from 'node:fs';

/** The soft RLIMIT_NOFILE, or undefined where /proc/self/limits is missing or says "unlimited". */
export function readFdLimit(limitsFile = '/proc/self/limits'): number | undefined {
  try {
    const line = fs
      .readFileSync(limitsFile, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    const n = soft === undefined ? NaN : Number(soft);
    return Number.isSafeInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

/** Descriptors open now, or undefined without /proc/self/fd. */
export function countOpenFds(fdDir = '/proc/self/fd'): number | undefined {
  try {
    // the directory handle readdir opens is in the listing; it is closed again right after
    return Math.max(0, fs.readdirSync(fdDir).length - 1);
  } catch {
    return undefined;
  }
}
