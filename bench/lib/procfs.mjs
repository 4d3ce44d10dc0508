// Reading a process's memory and CPU from /proc (Linux), and small timing helpers.

import * as fs from 'node:fs';
import { execFileSync } from 'node:child_process';

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let clkTck;
function ticksPerSecond() {
  clkTck ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  return clkTck;
}

/** Resident set size in KiB (VmRSS), or undefined once the process is gone. */
export function rssKb(pid) {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** CPU seconds (user + system) the process has used so far. */
export function cpuSeconds(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // fields after the parenthesised command name; utime and stime are fields 14 and 15
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(rest[11]) + Number(rest[12])) / ticksPerSecond();
}

/**
 * Watches pids for `ms` milliseconds: percent of one core each used, and the median of RSS
 * samples taken every 250 ms (one sample lands before or after a GC; the median does not).
 */
export async function idleWindow(pids, ms) {
  const before = pids.map((p) => cpuSeconds(p));
  const samples = pids.map(() => []);
  const t0 = process.hrtime.bigint();
  const end = Date.now() + ms;
  while (Date.now() < end) {
    pids.forEach((p, i) => {
      samples[i].push(rssKb(p));
    });
    await sleep(Math.min(250, Math.max(0, end - Date.now())));
  }
  const after = pids.map((p) => cpuSeconds(p));
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  return pids.map((_, i) => ({ cpuPct: ((after[i] - before[i]) / wall) * 100, rssKb: median(samples[i]), rssMaxKb: Math.max(...samples[i]) }));
}

/**
 * CPU seconds of a process tree: the process's own and its reaped children's (cutime, cstime),
 * plus every live descendant's, so a minion's job workers and the shells cmd.run spawned count.
 */
export function treeCpuSeconds(pid) {
  let stat;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return 0;
  }
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const own = (Number(rest[11]) + Number(rest[12]) + Number(rest[13]) + Number(rest[14])) / ticksPerSecond();
  return childPids(pid).reduce((sum, c) => sum + treeCpuSeconds(c), own);
}

/** Direct children of a pid (for processes that fork workers). */
export function childPids(pid) {
  const out = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(name));
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

export function median(values) {
  const v = [...values].sort((a, b) => a - b);
  return v.length === 0 ? NaN : v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
}

/** Milliseconds since `t0` (a process.hrtime.bigint()). */
export function msSince(t0) {
  return Number(process.hrtime.bigint() - t0) / 1e6;
}
