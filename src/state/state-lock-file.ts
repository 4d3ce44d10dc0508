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

function parseHolder(text: string): StateLockHolder | undefined {
  try {
    const v = JSON.parse(text) as Partial<StateLockHolder>;
    if (typeof v.jid === 'string' && typeof v.pid === 'number' && typeof v.fun === 'string' && typeof v.started === 'string') return v as StateLockHolder;
  } catch {
    // unreadable: treated as stale
  }
  return undefined;
}

/** The lock file as read once: its holder (undefined when unreadable) and its inode; undefined when there is none. */
function readLock(file: string): { holder: StateLockHolder | undefined; ino: number } | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return undefined;
    throw err;
  }
  try {
    return { ino: fs.fstatSync(fd).ino, holder: parseHolder(fs.readFileSync(fd, 'utf8')) };
  } finally {
    fs.closeSync(fd);
  }
}

/** Rounds of contention after which tryAcquire gives up (an error: the caller's onFileError). */
const MAX_ROUNDS = 10_000;

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
    // written whole to a private file first, then linked into place: link(2) fails with EEXIST
    // while the lock is held, and no reader ever sees a half-written holder (it would take it
    // for stale and remove it while its holder still runs)
    const mine = `${this.file}.${process.pid}.${me.jid}.tmp`;
    fs.writeFileSync(mine, JSON.stringify(me), { mode: 0o600 });
    try {
      for (let round = 0; round < MAX_ROUNDS; round++) {
        try {
          fs.linkSync(mine, this.file);
          return undefined;
        } catch (err) {
          if (errnoCode(err) !== 'EEXIST') throw err;
        }
        const seen = readLock(this.file);
        // released between the link and the read: another round
        if (seen === undefined) continue;
        const holder = seen.holder;
        if (holder && holder.jid === me.jid && holder.pid === me.pid) return undefined;
        // a holder in this process that is not `me` is a leftover of a run that did not release
        // (the in-process lock already serialises this process's own runs)
        if (holder && holder.pid !== me.pid && alive(holder.pid)) return holder;
        this.removeStale(seen.ino, me);
      }
    } finally {
      fs.rmSync(mine, { force: true });
    }
    throw new Error(`${this.file} changed hands ${MAX_ROUNDS} times while this process tried to take it`);
  }

  /**
   * Removes the stale lock read as inode `ino`, and only that one: it is renamed aside first, and
   * a lock another process took since the read (another inode) is linked back in place.
   */
  private removeStale(ino: number, me: StateLockHolder): void {
    const aside = `${this.file}.${process.pid}.${me.jid}.stale`;
    try {
      fs.renameSync(this.file, aside);
    } catch (err) {
      if (errnoCode(err) === 'ENOENT') return;
      throw err;
    }
    try {
      if (fs.lstatSync(aside).ino !== ino) {
        try {
          fs.linkSync(aside, this.file);
        } catch (err) {
          if (errnoCode(err) !== 'EEXIST') throw err;
        }
      }
    } finally {
      fs.rmSync(aside, { force: true });
    }
  }

  /** Gives the lock up if `me` holds it. */
  release(me: Pick<StateLockHolder, 'jid' | 'pid'>): void {
    const holder = readLock(this.file)?.holder;
    if (holder && holder.jid === me.jid && holder.pid === me.pid) fs.rmSync(this.file, { force: true });
  }
}

/** The holder as saltutil.running shows a job, for runningMessage/stateRunConflict. */
export function holderInfo(h: StateLockHolder): RunningJobInfo {
  return { jid: h.jid, fun: h.fun, arg: [], kwarg: {}, tgt: '', tgt_type: 'glob', pid: h.pid, started: h.started, queued: false };
}
