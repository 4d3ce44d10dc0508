// file.directory: a directory with owner and mode, optionally applied recursively (recurse:
// [user, group, mode]) and cleaned of everything not managed (clean, require, exclude_pat).
// Reports as Salt 3007's salt/states/file.py directory does: a per-path plan
// ({path: {user, group, mode, directory: new, removed}}) as the test=True changes and comment,
// that plan again in a real run plus check_perms' top-level user/group/mode keys, and a new
// directory as {path: {directory: new}} with an empty comment.

import { lstat, mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { defineState } from '../types.js';
import { excludeMatcher, patternArg, pathsToClean, removePaths, requiredPaths, walkTree } from './file-clean.js';
import { applyPerms, modeArg, pathPermChanges, resolvePerms, type ResolvedPerms } from './file-perms.js';
import { checkAbsolute, errorText, failed } from './file-result.js';
import { makeParents } from './file-write.js';

const RECURSE_TYPES = ['user', 'group', 'mode', 'ignore_files', 'ignore_dirs', 'silent'];

type Plan = Record<string, Record<string, string>>;

/** Salt's _get_recurse_set: the recurse list checked, or the comment that fails the state. */
export function recurseSet(recurse: readonly unknown[]): Set<string> | { error: string } {
  const set = new Set(recurse.map(String));
  if ([...set].some((k) => !RECURSE_TYPES.includes(k))) return { error: `Types for "recurse" limited to ${RECURSE_TYPES.map((t) => `"${t}"`).join(', ')}.` };
  if (set.has('ignore_files') && set.has('ignore_dirs')) return { error: 'Must not specify "recurse" options "ignore_files" and "ignore_dirs" at the same time.' };
  return set;
}

/** The part of a spec recurse applies to children: user/group/mode only when listed. */
function recursePerms(p: ResolvedPerms, recurse: Set<string>): ResolvedPerms {
  return {
    ...(recurse.has('user') ? { uid: p.uid, user: p.user } : {}),
    ...(recurse.has('group') ? { gid: p.gid, group: p.group } : {}),
    ...(recurse.has('mode') ? { mode: p.mode } : {}),
  };
}

/** Per-path permission changes below the directory (recurse), in walk order, as Salt's _check_directory. */
async function recursePlan(dir: string, recurse: Set<string>, dirPerms: ResolvedPerms, filePerms: ResolvedPerms): Promise<Plan> {
  const plan: Plan = {};
  for (const { rel, isDir } of await walkTree(dir)) {
    if (isDir ? recurse.has('ignore_dirs') : recurse.has('ignore_files')) continue;
    const abs = path.join(dir, rel);
    const isLink = (await lstat(abs)).isSymbolicLink();
    const ch = await pathPermChanges(abs, recursePerms(isDir ? dirPerms : filePerms, recurse), isLink);
    if (Object.keys(ch).length > 0) plan[abs] = ch;
  }
  return plan;
}

/** Salt's test=True comment: one line per path and key, each ending in a newline. */
export function planComment(plan: Plan): string {
  const lines = ['The following files will be changed:\n'];
  for (const [p, ch] of Object.entries(plan)) for (const [k, v] of Object.entries(ch)) lines.push(`${p}: ${k} - ${v}\n`);
  return lines.join('');
}

export const fileDirectory = defineState({
  name: 'file.directory',
  // Salt's file.directory takes **kwargs: keys it does not know (backupname, show_diff, ...) are ignored.
  kwargs: true,
  doc: 'Manage a directory: existence, owner and mode, recursively if asked, and clean out unmanaged files.',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'absolute path of the directory' },
    { name: 'user', type: 'string', doc: 'owner' },
    { name: 'group', type: 'string', doc: 'group' },
    { name: 'dir_mode', type: 'any', doc: "mode of the directory (and of subdirectories with recurse: [mode]), e.g. '0755'" },
    { name: 'file_mode', type: 'any', doc: 'mode of files below it with recurse: [mode]' },
    { name: 'mode', type: 'any', doc: 'default of both dir_mode and file_mode' },
    { name: 'makedirs', type: 'bool', default: false, doc: 'create missing parent directories' },
    { name: 'force', type: 'bool', default: false, doc: 'replace a file or symlink standing where the directory should be' },
    { name: 'recurse', type: 'list', default: [], doc: 'apply user, group and/or mode to everything below (ignore_files, ignore_dirs skip kinds)' },
    { name: 'clean', type: 'bool', default: false, doc: 'remove everything below that is not required by this state or excluded' },
    { name: 'exclude_pat', type: 'any', doc: "with clean: keep paths matching this glob (or 'E@regex'), or any of a list of them" },
    // Salt's file.directory declares `require` so that clean keeps the files it requires; the
    // runtime passes a requisite to a function only when the function declares it.
    { name: 'require', type: 'any', doc: 'with clean: the files (and directories) listed here are kept' },
  ],
  example:
    '/srv/app:\n  file.directory:\n    - user: www-data\n    - group: www-data\n    - dir_mode: 755\n    - file_mode: 644\n    - makedirs: True\n    - recurse:\n      - user\n      - group\n      - mode',
  run: async (ctx, { named: a }) => {
    const abs = checkAbsolute(a.name, 'directory');
    if ('error' in abs) return failed(a.name, abs.error);
    const name = abs.path;
    const recurse = recurseSet(a.recurse);
    if ('error' in recurse) return failed(name, recurse.error);
    const dirMode = modeArg(a.dir_mode ?? a.mode);
    if ('error' in dirMode) return failed(name, dirMode.error);
    const fileMode = modeArg(a.file_mode ?? a.dir_mode ?? a.mode);
    if ('error' in fileMode) return failed(name, fileMode.error);
    try {
      const dirPerms = await resolvePerms('file.directory', { user: a.user, group: a.group, mode: dirMode.mode }, ctx.test);
      if ('error' in dirPerms) return failed(name, dirPerms.error);
      const filePerms: ResolvedPerms = { ...dirPerms, mode: fileMode.mode };
      const excludePat = patternArg('file.directory', 'exclude_pat', a.exclude_pat);
      if ('error' in excludePat) return failed(name, excludePat.error);
      const exclude = excludeMatcher('file.directory', excludePat.pattern);

      const changes: Record<string, unknown> = {};
      let st = await lstat(name).catch(() => undefined);
      // A link to a directory is managed through it (Salt's allow_symlink); anything else in the way needs force.
      if (st && !st.isDirectory() && !(st.isSymbolicLink() && (await stat(name).catch(() => undefined))?.isDirectory())) {
        const what = st.isSymbolicLink() ? 'symlink' : 'file';
        if (!a.force) return failed(name, `Specified location ${name} exists and is a ${what}; set force: True to replace it, or remove it first (file.absent)`);
        const Kind = what === 'file' ? 'File' : 'Symlink';
        changes.forced = ctx.test ? `${Kind} would be forcibly replaced` : `${Kind} was forcibly replaced`;
        if (!ctx.test) await rm(name, { force: true });
        st = undefined;
      }

      // The plan (Salt's _check_directory): children first, then the directory, then what clean removes.
      const plan: Plan = {};
      const keep = new Set(requiredPaths(a.require));
      let toClean: string[] = [];
      if (st) {
        if (recurse.size > 0) Object.assign(plan, await recursePlan(name, recurse, dirPerms, filePerms));
        const own = await pathPermChanges(name, dirPerms);
        if (Object.keys(own).length > 0) plan[name] = own;
        toClean = a.clean ? await pathsToClean(name, keep, exclude, [...keep]) : [];
        for (const p of toClean) plan[p] = { removed: 'Removed due to clean' };
      } else plan[name] = { directory: 'new' };
      Object.assign(changes, plan);

      if (ctx.test) {
        if (Object.keys(plan).length === 0) return { name, result: true, changes, comment: `The directory ${name} is in the correct state` };
        return { name, result: null, changes, comment: planComment(plan) };
      }
      if (Object.keys(changes).length === 0) return { name, result: true, changes, comment: `The directory ${name} is in the correct state` };

      if (!st) {
        const parent = await stat(path.dirname(name)).catch(() => undefined);
        if (!parent && !a.makedirs) return failed(name, `No directory to create ${name} in`);
        await makeParents(path.dirname(name), { mode: dirMode.mode, user: a.user, group: a.group });
        await mkdir(name);
        await applyPerms(name, dirPerms);
        // Salt returns right after creating it: no comment, nothing recursed or cleaned.
        return { name, result: true, changes, comment: '' };
      }
      // check_perms on the directory adds top-level user/group/mode keys beside the plan.
      Object.assign(changes, await applyPerms(name, dirPerms));
      // recurse: [silent] replaces every change so far with one line, as Salt does.
      if (recurse.has('silent')) {
        for (const k of Object.keys(changes)) delete changes[k];
        changes.recursion = 'Changes silenced';
      }
      if (recurse.size > 0) {
        for (const { rel, isDir } of await walkTree(name)) {
          if (isDir ? recurse.has('ignore_dirs') : recurse.has('ignore_files')) continue;
          const p = path.join(name, rel);
          Object.assign(changes, await applyPerms(p, recursePerms(isDir ? dirPerms : filePerms, recurse), (await lstat(p)).isSymbolicLink()));
        }
      }
      let comment = '';
      if (toClean.length > 0) {
        await removePaths(toClean);
        changes.removed = toClean;
        comment = `Files cleaned from directory ${name}`;
      }
      if (comment === '') comment = Object.keys(changes).length > 0 ? `Directory ${name} updated` : `Directory ${name} is in the correct state`;
      return { name, result: true, changes, comment };
    } catch (err) {
      return failed(name, `Unable to manage directory ${name}: ${errorText(err)}`);
    }
  },
});
