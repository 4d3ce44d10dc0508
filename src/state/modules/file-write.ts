// Writes a file's new content without leaving a half-written file: a temporary file beside it,
// given the old file's owner and mode, then renamed over it.

import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { chmod, chown, mkdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { findGroup, findUser, readGroups, readPasswd } from '../../modules/user-db.js';

/**
 * The file a write to `file` should replace: through a symlink to its target (Salt's
 * follow_symlinks), so that renaming a new version into place never turns the link into a file.
 */
export async function writeTarget(file: string): Promise<string> {
  return realpath(file).catch(() => file);
}

/**
 * Replaces (or creates) `file` with `data` atomically; an existing file keeps its owner and mode.
 * Synchronous inside: states run in a worker thread of their own, and each async step was a
 * thread-pool round trip (writeFile alone is three).
 */
export async function writeAtomic(file: string, data: Buffer | string): Promise<void> {
  let old: fs.Stats | undefined;
  try {
    old = fs.statSync(file);
  } catch {
    old = undefined;
  }
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.brine-${randomBytes(4).toString('hex')}`);
  try {
    fs.writeFileSync(tmp, data, { flag: 'wx' });
    if (old) {
      try {
        fs.chownSync(tmp, old.uid, old.gid);
      } catch {
        // not permitted (not root): the new file keeps this process's owner, as before
      }
      fs.chmodSync(tmp, old.mode & 0o7777);
    }
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

/** The directories `mkdir -p dir` would create, outermost first. */
export async function missingDirs(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    if (
      await stat(d).then(
        () => true,
        () => false,
      )
    )
      break;
    out.unshift(d);
    if (path.dirname(d) === d) break;
  }
  return out;
}

/** makedirs: creates the missing parents, giving the new ones dir_mode and the state's user/group. */
export async function makeParents(dir: string, opts: { mode?: number; user?: string; group?: string } = {}): Promise<string[]> {
  const created = await missingDirs(dir);
  if (created.length === 0) return created;
  await mkdir(dir, { recursive: true });
  const uid = opts.user ? findUser(await readPasswd('makedirs'), opts.user)?.uid : undefined;
  const gid = opts.group ? findGroup(await readGroups('makedirs'), opts.group)?.gid : undefined;
  for (const d of created) {
    if (uid !== undefined || gid !== undefined) await chown(d, uid ?? -1, gid ?? -1);
    if (opts.mode !== undefined) await chmod(d, opts.mode);
  }
  return created;
}
