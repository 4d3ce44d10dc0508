// backup: minion — Salt keeps the previous version of a replaced file under
// <cachedir>/file_backup/<its directory>/<basename>_<timestamp> (e.g.
// file_backup/etc/ssh/sshd_config_Sat_Jan_28_11:02:33_847391_2017).

import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { StateContext } from '../types.js';

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Python's strftime('%a_%b_%d_%H:%M:%S_%f_%Y') in local time, as Salt names backups. */
export function backupStamp(d: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  const micro = String(d.getMilliseconds() * 1000).padStart(6, '0');
  return `${DAYS[d.getDay()]}_${MONTHS[d.getMonth()]}_${two(d.getDate())}_${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}_${micro}_${d.getFullYear()}`;
}

export function backupDir(ctx: StateContext): string {
  const cachedir = typeof ctx.exec.config.cachedir === 'string' ? ctx.exec.config.cachedir : '/var/cache/brine/minion';
  return path.join(cachedir, 'file_backup');
}

/** Copies `file` into the backup tree and returns the copy's path. */
export async function backupFile(ctx: StateContext, file: string, now = new Date()): Promise<string> {
  const dest = path.join(backupDir(ctx), path.dirname(file), `${path.basename(file)}_${backupStamp(now)}`);
  await mkdir(path.dirname(dest), { recursive: true, mode: 0o700 });
  await copyFile(file, dest);
  return dest;
}
