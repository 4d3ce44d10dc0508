// `--load N`: N busy-loop processes for the whole benchmark, so a figure and its raw floor are
// both measured under the same CPU contention (issue 12: the reconnect storm under load).

import { spawn } from 'node:child_process';
import { stopChild, track } from './cleanup.mjs';

/** Starts `n` processes that spin until stopped; returns a function that stops them all. */
export function startCpuHogs(n) {
  const hogs = [];
  for (let i = 0; i < n; i++) hogs.push(track(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' })));
  return async () => {
    await Promise.all(hogs.map((h) => stopChild(h, 'SIGKILL', 2000)));
  };
}
