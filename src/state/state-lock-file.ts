// One state run per minion across processes: the minion daemon and `brine call` on the same
// machine share `<cachedir>/state-run.lock` (Salt checks its proc files for the same reason), so a
// salt-call-style run cannot interleave with a state run the master started. The file names the
// holder; a holder whose process is gone is stale and taken over.

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RunningJobInfo } from '../modules/index.js';
import { errnoCode } from '../util/errors.js';

export const STATE_LOCK_FILE = 'state-run.lock';

/** What the lock file records: enough for Salt's "is running as PID ... with jid ..." message. */
export interface StateLockHolder {
  jid: string;
  pid: number;
  fun: string;
  /** ISO 8601. */
  started: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errnoCode(err) === 'EPERM';
  }
}

function readHolder(file: string): StateLockHolder | undefined {
  try {
    const v = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<StateLockHolder>;
    if (typeof v.jid === 'string' && typeof v.pid === 'number' && typeof v.fun === 'string' && typeof v.started === 'string') return v as StateLockHolder;
  } catch {
    // unreadable or half-written: treated as stale below
  }
  return undefined;
}

export class StateLockFile {
  readonly file: string;

  constructor(cachedir: string) {
    this.file = path.join(cachedir, STATE_LOCK_FILE);
  }

  /**
   * Takes the lock for `me`. Returns undefined when taken, or the holder when another live
   * process (or another job of this one) holds it.
   */
  tryAcquire(me: StateLockHolder): StateLockHolder | undefined {
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const fd = fs.openSync(this.file, 'wx', 0o600);
        try {
          fs.writeSync(fd, JSON.stringify(me));
        } finally {
          fs.closeSync(fd);
        }
        return undefined;
      } catch (err) {
        if (errnoCode(err) !== 'EEXIST') throw err;
      }
      const holder = readHolder(this.file);
      if (holder && holder.jid === me.jid && holder.pid === me.pid) return undefined;
      // a holder in this process that is not `me` is a leftover of a run that did not release
      // (the in-process lock already serialises this process's own runs)
      if (holder && holder.pid !== me.pid && alive(holder.pid)) return holder;
      fs.rmSync(this.file, { force: true });
    }
    return readHolder(this.file);
  }

  /** Gives the lock up if `me` holds it. */
  release(me: Pick<StateLockHolder, 'jid' | 'pid'>): void {
    const holder = readHolder(this.file);
    if (holder && holder.jid === me.jid && holder.pid === me.pid) fs.rmSync(this.file, { force: true });
  }
}

/** The holder as saltutil.running shows a job, for runningMessage/stateRunConflict. */
export function holderInfo(h: StateLockHolder): RunningJobInfo {
  return { jid: h.jid, fun: h.fun, arg: [], kwarg: {}, tgt: '', tgt_type: 'glob', pid: h.pid, started: h.started, queued: false };
}
