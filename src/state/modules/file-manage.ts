// The core of file.managed (and each file of file.recurse): compare a file with the content,
// owner and mode wanted, report the difference as Salt does (a unified diff, `New file`,
// user/group/mode), and under test=True stop there; otherwise write it atomically.

import { lstatSync, readFileSync, statSync, type Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
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
      const permCh = await applyPerms(name, spec.perms);
      if (spec.contents === undefined) return succeed(name, 'Empty file', { new: `file ${name} created`, ...permCh });
      return succeed(name, `File ${name} updated`, { diff: 'New file', ...permCh });
    }

    const changes: Record<string, unknown> = {};
    const current = spec.replace && spec.contents !== undefined ? readFileSync(name) : undefined;
    const contentChanged = current !== undefined && !current.equals(spec.contents!);
    if (contentChanged) changes.diff = contentDiff(current, spec.contents!, spec.showChanges);
    Object.assign(changes, permChanges(st, spec.perms));
    if (Object.keys(changes).length === 0) {
      return succeed(name, spec.replace ? `File ${name} is in the correct state` : `File ${name} exists with proper permissions. No changes made.`);
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
