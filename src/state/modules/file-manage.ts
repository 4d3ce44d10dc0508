// The core of file.managed (and each file of file.recurse): compare a file with the content,
// owner and mode wanted, report the difference as Salt does (a unified diff, `New file`,
// user/group/mode), and under test=True stop there; otherwise write it atomically.

import { lstatSync, readFileSync, statSync, type Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { formatMode } from '../../modules/file-common.js';
import { splitLinesKeepEnds, unifiedDiff } from '../../modules/unified-diff.js';
import type { StateContext, StateResult } from '../types.js';
import { backupFile } from './file-backup.js';
import { applyPerms, permChanges, type ResolvedPerms } from './file-perms.js';
import { errorText, failed, pending, succeed, TEST_NOTE } from './file-result.js';
import { makeParents, writeAtomic, writeTarget } from './file-write.js';

export interface ManageSpec {
  name: string;
  /** The wanted bytes; undefined manages only existence and permissions (an empty file is created). */
  contents?: Buffer;
  perms: ResolvedPerms;
  makedirs: boolean;
  /** Mode of directories makedirs creates. */
  dirMode?: number;
  /** false: an existing file's content is left alone (only permissions are managed). */
  replace: boolean;
  /** false: a missing file is not created. */
  create: boolean;
  /** 'minion' keeps the old version under cachedir/file_backup; '' keeps none. */
  backup: string;
  showChanges: boolean;
  /** false: a symlink at `name` is replaced by the file instead of changing what it points to. */
  followSymlinks?: boolean;
  /**
   * Where the bytes come from: Salt creates a new file differently for each, and so reports its
   * mode differently (see newFileModeChange).
   */
  origin?: 'source' | 'contents';
}

/** The process umask (Salt's get_umask), read without process.umask()'s deprecated getter. */
function currentUmask(): number {
  try {
    const m = /^Umask:\s*([0-7]+)$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return parseInt(m[1]!, 8);
  } catch {
    // not Linux: fall through to the usual default
  }
  return 0o022;
}

/**
 * changes.mode for a file Salt's manage_file has just created, as its check_perms sees it. From
 * a source, copyfile leaves the new file 0600 (mkstemp), and the wanted mode is the state's or,
 * without one, the umask's (0666 & ~umask): mode is reported unless that is 0600. From contents
 * (or nothing), the file is touched first under umask 077 when a mode is given (0600, so the
 * mode is reported unless it is 0600), else under the process umask (nothing to report).
 */
export function newFileModeChange(origin: 'source' | 'contents', mode: number | undefined, umask: number): string | undefined {
  const created = origin === 'source' || mode !== undefined ? 0o600 : 0o666 & ~umask;
  const wanted = mode ?? 0o666 & ~umask;
  return wanted === created ? undefined : formatMode(wanted);
}

function isBinary(b: Buffer): boolean {
  return b.subarray(0, 8192).includes(0);
}

/** Salt's changes['diff'] for replacing `before` with `after`. */
export function contentDiff(before: Buffer, after: Buffer, showChanges: boolean): string {
  if (!showChanges) return '<show_changes=False>';
  if (isBinary(before) || isBinary(after)) return 'Replace binary file';
  return unifiedDiff(splitLinesKeepEnds(before.toString('utf8')), splitLinesKeepEnds(after.toString('utf8')));
}

/** stat (or lstat), any failure as undefined (a missing or unreachable target). */
function statOrUndefined(name: string, follow: boolean): Stats | undefined {
  try {
    return follow ? statSync(name) : lstatSync(name);
  } catch {
    return undefined;
  }
}

/**
 * replace: False on an existing file: only ownership and mode are managed, reported as Salt's
 * managed does (check_perms' changes; in test mode None when something would change).
 */
async function keepContent(ctx: StateContext, name: string, st: Stats, perms: ResolvedPerms, changes: Record<string, unknown>): Promise<StateResult> {
  if (ctx.test) {
    const current = formatMode(st.mode);
    const comment =
      perms.mode !== undefined && formatMode(perms.mode) !== current
        ? `File ${name} will be updated with permissions ${formatMode(perms.mode)} from its current state of ${current}`
        : `File ${name} not updated`;
    return { name, result: Object.keys(changes).length > 0 ? null : true, changes, comment };
  }
  if (Object.keys(changes).length === 0) return succeed(name, `File ${name} exists with proper permissions. No changes made.`);
  await applyPerms(name, perms);
  // check_perms leaves the (empty) comment as it found it
  return succeed(name, '', changes);
}

export async function manageFile(ctx: StateContext, spec: ManageSpec): Promise<StateResult> {
  const { name } = spec;
  try {
    const follow = spec.followSymlinks !== false;
    // synchronous: states run in a worker thread of their own, and a no-change run is mostly
    // these checks, where each async call costs thread-pool round trips (several per readFile)
    const st = statOrUndefined(name, follow);
    if (st?.isDirectory()) return failed(name, `Specified target ${name} is a directory; remove it first or manage it with file.directory`);
    if (st?.isSymbolicLink()) {
      // follow_symlinks: False — the link itself is replaced by the managed file.
      if (ctx.test) return pending(name, `The file ${name} is set to be changed${TEST_NOTE}`, { newfile: name });
      await writeAtomic(name, spec.contents ?? '');
      const permCh = await applyPerms(name, spec.perms);
      return succeed(name, `File ${name} updated`, { diff: 'Replace symbolic link', ...permCh });
    }
    if (st && !st.isFile()) return failed(name, `Specified target ${name} exists and is not a regular file`);

    if (!st) {
      if (!spec.create) return succeed(name, `File ${name} is not present and is not set for creation`);
      if (ctx.test) return pending(name, `The file ${name} is set to be changed${TEST_NOTE}`, { newfile: name });
      const dir = path.dirname(name);
      const parent = await stat(dir).catch(() => undefined);
      if (!parent) {
        if (!spec.makedirs) return failed(name, `Parent directory not present: ${dir}; create it first (file.directory) or set makedirs: True`);
        await makeParents(dir, { mode: spec.dirMode, user: spec.perms.user, group: spec.perms.group });
      } else if (!parent.isDirectory()) return failed(name, `Parent ${dir} of ${name} is not a directory`);
      await writeAtomic(name, spec.contents ?? '');
      const { mode: _mode, ...permCh } = await applyPerms(name, spec.perms);
      const mode = newFileModeChange(spec.origin ?? 'contents', spec.perms.mode, currentUmask());
      const modeCh = mode === undefined ? {} : { mode };
      if (spec.contents === undefined) return succeed(name, 'Empty file', { new: `file ${name} created`, ...permCh, ...modeCh });
      return succeed(name, `File ${name} updated`, { diff: 'New file', ...permCh, ...modeCh });
    }

    const changes: Record<string, unknown> = {};
    const current = spec.replace && spec.contents !== undefined ? readFileSync(name) : undefined;
    const contentChanged = current !== undefined && !current.equals(spec.contents!);
    if (contentChanged) changes.diff = contentDiff(current, spec.contents!, spec.showChanges);
    Object.assign(changes, permChanges(st, spec.perms));
    if (!spec.replace) return keepContent(ctx, name, st, spec.perms, changes);
    if (Object.keys(changes).length === 0) {
      // salt/states/file.py managed words the two modes differently
      return succeed(name, ctx.test ? `The file ${name} is in the correct state` : `File ${name} is in the correct state`);
    }
    if (ctx.test) return pending(name, `The file ${name} is set to be changed${TEST_NOTE}`, changes);

    const target = follow ? await writeTarget(name) : name;
    if (contentChanged) {
      if (spec.backup === 'minion') await backupFile(ctx, target);
      await writeAtomic(target, spec.contents!);
    }
    await applyPerms(target, spec.perms);
    return succeed(name, `File ${name} updated`, changes);
  } catch (err) {
    return failed(name, `Unable to manage file ${name}: ${errorText(err)}`);
  }
}
