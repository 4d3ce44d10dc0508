// Start-up check of the daemon's own directories (sock_dir, pki_dir, cachedir): each one, and
// every directory above it, must be safe from other local users. Otherwise a local user could
// swap the control socket and read root's publishes, or plant keys (threats.md #34), so the daemon
// refuses to start and says which chmod/chown fixes it. A directory that does not exist yet is
// created by the daemon, so what must be safe then is the existing directory it will be made in.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { BrineError } from './errors.js';

export interface PrivateDir {
  /** The option that names it, for the message: `sock_dir`. */
  option: string;
  path: string;
}

export interface Ownership {
  /** The uid the daemon runs as (process.getuid()). */
  uid: number;
  /** Also trusted as owner: the uid named by `user:` that the daemon switches to. */
  alsoTrusted?: number;
  /** The user name to put in a chown command. */
  userName: string;
}

const GROUP_OR_OTHER_WRITE = 0o022;
const STICKY = 0o1000;

function octal(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, '0');
}

/**
 * What is wrong with one directory, or undefined. `self` is the directory the option names
 * (nobody else may write it at all); an ancestor may be world-writable only with the sticky bit,
 * as /tmp is, because then nobody else can rename what lies in it.
 */
function problem(dir: string, st: fs.Stats, self: boolean, own: Ownership): { why: string; fix: string } | undefined {
  // a file above a missing path is not a safety question: creating the path fails with its own code
  if (!st.isDirectory()) return self ? { why: 'is not a directory', fix: `move ${dir} aside` } : undefined;
  const trusted = st.uid === 0 || st.uid === own.uid || st.uid === own.alsoTrusted;
  if (!trusted) {
    return {
      why: `is owned by uid ${st.uid}, not by ${own.uid === 0 ? 'root' : `${own.userName} (uid ${own.uid}) or root`}`,
      fix: `chown ${own.userName} ${dir}${self ? '' : ' (or move the directory below it somewhere safe)'}`,
    };
  }
  const writable = st.mode & GROUP_OR_OTHER_WRITE;
  if (writable !== 0 && (self || (st.mode & STICKY) === 0)) {
    const who = writable === GROUP_OR_OTHER_WRITE ? 'group and others' : writable & 0o002 ? 'others' : 'its group';
    return { why: `is writable by ${who} (mode ${octal(st.mode)})`, fix: `chmod go-w ${dir}` };
  }
  return undefined;
}

/** Stats, or undefined when the path cannot be stat'ed (missing, under a file). */
function statOrUndefined(p: string): fs.Stats | undefined {
  try {
    return fs.statSync(p);
  } catch {
    return undefined;
  }
}

/**
 * The directories to check for one configured path, each with whether it is the path itself: the
 * path and everything above it when it exists; when it does not, everything from its nearest
 * existing ancestor up, all as ancestors. A missing path is not skipped: the daemon would create
 * it inside a directory another user may be able to rename it out of (threats.md #34).
 */
function chainOf(target: string): Array<[string, fs.Stats, boolean]> {
  const chain: Array<[string, fs.Stats, boolean]> = [];
  for (let dir = target; ; dir = path.dirname(dir)) {
    const st = statOrUndefined(dir);
    if (st !== undefined) chain.push([dir, st, dir === target]);
    if (dir === path.dirname(dir)) break;
  }
  return chain;
}

/** Throws UNSAFE_DIR for the first directory (or ancestor) another local user could change. */
export function checkPrivateDirs(dirs: readonly PrivateDir[], own: Ownership): void {
  for (const { option, path: configured } of dirs) {
    const target = path.resolve(configured);
    for (const [dir, st, isSelf] of chainOf(target)) {
      const found = problem(dir, st, isSelf, own);
      if (found === undefined) continue;
      const where = isSelf ? `${option} ${dir}` : `${dir} (above ${option} ${target})`;
      throw new BrineError(
        'UNSAFE_DIR',
        `refusing to start: ${where} ${found.why}, so another local user could replace what the daemon keeps there (its control socket, keys or job cache). Fix: ${found.fix}`,
        {
          details: { option, path: dir },
        },
      );
    }
  }
}
