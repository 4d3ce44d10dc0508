// Signals to whole process groups: commands run detached (each leads its own group), so one
// kill(-pgid) reaches everything they started, a shell's background jobs included. The one
// place that does it, for the cmd module's process runner and the minion's job runner.

import { systemClock, type Clock, type TimerHandle } from './clock.js';

/**
 * Sends `sig` to every process in group `pgid`; false when the group is already gone (ESRCH).
 * Refuses pgid 0 and 1: kill(-0) would signal brine's own group and kill(-1) every process
 * this user may signal.
 */
export function signalGroup(pgid: number, sig: NodeJS.Signals): boolean {
  if (!Number.isInteger(pgid) || pgid <= 1) throw new RangeError(`refusing to signal process group ${pgid}: not a command's own group`);
  try {
    process.kill(-pgid, sig);
    return true;
  } catch {
    // ESRCH: the group is gone already, which is what the caller wants
    return false;
  }
}

/**
 * SIGTERM to each group now, so commands can clean up, and SIGKILL to whatever is left after
 * `graceMs` on the clock. The handle cancels the SIGKILL (when every process is known gone).
 */
export function stopGroups(pgids: Iterable<number>, graceMs: number, clock: Clock = systemClock): TimerHandle {
  const groups = [...pgids];
  for (const pgid of groups) signalGroup(pgid, 'SIGTERM');
  if (groups.length === 0) return { cancel: () => undefined };
  return clock.setTimeout(() => {
    for (const pgid of groups) signalGroup(pgid, 'SIGKILL');
  }, graceMs);
}
