// Salt's `user:` option: a daemon started as root binds its port and creates its directories,
// then hands them to that user and switches to it, so everything it creates later keeps one owner.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parsePasswd } from '../util/account-db.js';
import { BrineError, errorMessage, errnoCode } from '../util/errors.js';

export interface RunAs {
  name: string;
  uid: number;
  gid: number;
}

export function lookupUser(user: string): RunAs {
  let text: string;
  try {
    text = fs.readFileSync('/etc/passwd', 'utf8');
  } catch (err) {
    throw new BrineError('USER_SWITCH_FAILED', `cannot read /etc/passwd to find user '${user}': ${errorMessage(err)}`, { cause: err });
  }
  const users = parsePasswd(text);
  const found = users.find((u) => u.name === user) ?? (/^\d+$/.test(user) ? users.find((u) => u.uid === Number(user)) : undefined);
  if (found === undefined)
    throw new BrineError('USER_SWITCH_FAILED', `user '${user}' (option user:) does not exist in /etc/passwd; create it, or set user: to an existing account`, { details: { user } });
  return { name: found.name, uid: found.uid, gid: found.gid };
}

/**
 * The account to switch to, or undefined when `user:` is empty or names the account already
 * running. Only root can switch, so any other mismatch is an error before anything is opened.
 */
export function resolveRunAs(user: string): RunAs | undefined {
  if (user === '') return undefined;
  const target = lookupUser(user);
  const me = os.userInfo();
  if (target.uid === me.uid) return undefined;
  if (me.uid !== 0) {
    throw new BrineError(
      'USER_SWITCH_FAILED',
      `configured to run as '${target.name}' (option user:) but started as '${me.username}', and only root can switch users; start it as root or as '${target.name}', or remove user: from the config`,
      { details: { user } },
    );
  }
  return target;
}

/**
 * Hands a file or directory tree to `to` without following symlinks (a link's target is not
 * ours). Paths in `keepGroup` change owner only: their group grants access (sock_group).
 */
function chownTree(p: string, to: RunAs, keepGroup: ReadonlySet<string>): void {
  const st = fs.lstatSync(p, { throwIfNoEntry: false });
  if (st === undefined) return;
  fs.lchownSync(p, to.uid, keepGroup.has(path.resolve(p)) ? -1 : to.gid);
  if (!st.isDirectory()) return;
  for (const name of fs.readdirSync(p)) chownTree(path.join(p, name), to, keepGroup);
}

/**
 * After the switch: each path must still be usable, or the daemon would fail later on a key
 * write or a log reopen. A directory above it that the account cannot search is the usual cause.
 */
export function assertReachable(to: RunAs, paths: readonly string[]): void {
  for (const p of paths) {
    try {
      fs.accessSync(p, fs.constants.R_OK | fs.constants.W_OK);
    } catch (err) {
      throw new BrineError(
        'USER_SWITCH_FAILED',
        `after switching to '${to.name}' the daemon cannot use ${p} (${errnoCode(err) ?? 'error'}): let '${to.name}' search every directory above it (e.g. chmod o+x on each, or chown them to '${to.name}')`,
        { cause: err, details: { path: p } },
      );
    }
  }
}

/** POSIX-only process functions (optional in @types/node, initgroups missing from it). */
interface PosixProcess {
  initgroups(user: string, extraGroup: number): void;
  setgid(id: number): void;
  setuid(id: number): void;
}

/**
 * Chowns the daemon's directory trees and single paths (the log file and the directories brine
 * made for it) to the target account (`keepGroup` paths keep their group), then sets groups, gid and uid in that order (after setuid
 * the process could no longer change its groups).
 */
export function switchUser(to: RunAs, trees: readonly string[], single: readonly string[], keepGroup: readonly string[] = []): void {
  const keep = new Set(keepGroup.map((p) => path.resolve(p)));
  try {
    for (const p of trees) chownTree(p, to, keep);
    for (const p of single) fs.lchownSync(p, to.uid, keep.has(path.resolve(p)) ? -1 : to.gid);
    const posix = process as unknown as PosixProcess;
    posix.initgroups(to.name, to.gid);
    posix.setgid(to.gid);
    posix.setuid(to.uid);
  } catch (err) {
    throw new BrineError('USER_SWITCH_FAILED', `cannot switch to user '${to.name}' (uid ${to.uid}): ${errorMessage(err)}`, { cause: err, details: { user: to.name } });
  }
}
