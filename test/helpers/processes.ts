// Process checks shared by tests that kill process trees.

import * as fs from 'node:fs';

/** Alive and not a zombie (a reparented child may linger as a zombie where PID 1 does not reap). */
export function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
