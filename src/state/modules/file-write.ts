// Writes a file's new content without leaving a half-written file: a temporary file beside it,
// given the old file's owner and mode, then renamed over it.

import { randomBytes } from 'node:crypto';
import { chmod, chown, mkdir, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { findGroup, findUser, readGroups, readPasswd } from '../../modules/user-db.js';

/**
 * The file a write to `file` should replace: through a symlink to its target (Salt's
 * follow_symlinks), so that renaming a new version into place never turns the link into a file.
 */
export async function writeTarget(file: string): Promise<string> {
  return realpath(file).catch(() => file);
}

/** Replaces (or creates) `file` with `data` atomically; an existing file keeps its owner and mode. */
export async function writeAtomic(file: string, data: Buffer | string): Promise<void> {
  const old = await stat(file).catch(() => undefined);
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.brine-${randomBytes(4).toString('hex')}`);
  try {
    await writeFile(tmp, data, { flag: 'wx' });
    if (old) {
      await chown(tmp, old.uid, old.gid).catch(() => undefined);
      await chmod(tmp, old.mode & 0o7777);
    }
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
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
