// file.directory: a directory with owner and mode, optionally applied recursively (recurse:
// [user, group, mode]) and cleaned of everything not managed (clean, require, exclude_pat).

import { lstat, mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { defineState } from '../types.js';
import { excludeMatcher, pathsToClean, removePaths, requiredPaths, walkTree } from './file-clean.js';
import { applyPerms, modeArg, pathPermChanges, resolvePerms, type ResolvedPerms } from './file-perms.js';
import { checkAbsolute, errorText, failed, pending, succeed, TEST_NOTE } from './file-result.js';
import { makeParents } from './file-write.js';

const RECURSE_KEYS = new Set(['user', 'group', 'mode', 'ignore_files', 'ignore_dirs', 'silent']);

/** Per-path permission changes below the directory (recurse), keyed by path as Salt's test report does. */
async function recursePlan(dir: string, recurse: Set<string>, dirPerms: ResolvedPerms, filePerms: ResolvedPerms): Promise<Record<string, Record<string, string>>> {
  const pick = (p: ResolvedPerms, withMode: boolean): ResolvedPerms => ({
    ...(recurse.has('user') ? { uid: p.uid, user: p.user } : {}),
    ...(recurse.has('group') ? { gid: p.gid, group: p.group } : {}),
    ...(withMode && recurse.has('mode') ? { mode: p.mode } : {}),
  });
  const plan: Record<string, Record<string, string>> = {};
  for (const { rel, isDir } of await walkTree(dir)) {
    if (isDir ? recurse.has('ignore_dirs') : recurse.has('ignore_files')) continue;
    const abs = path.join(dir, rel);
    const isLink = (await lstat(abs)).isSymbolicLink();
    const ch = await pathPermChanges(abs, pick(isDir ? dirPerms : filePerms, true), isLink);
    if (Object.keys(ch).length > 0) plan[abs] = ch;
  }
  return plan;
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
    { name: 'exclude_pat', type: 'string', doc: "with clean: keep paths matching this glob (or 'E@regex')" },
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
    const recurse = new Set(a.recurse.map(String));
    const unknown = [...recurse].filter((k) => !RECURSE_KEYS.has(k));
    if (unknown.length > 0) return failed(name, `Types for 'recurse' must be one of user, group, mode, ignore_files, ignore_dirs, silent; got ${unknown.join(', ')}`);
    const dirMode = modeArg(a.dir_mode ?? a.mode);
    if ('error' in dirMode) return failed(name, dirMode.error);
    const fileMode = modeArg(a.file_mode ?? a.mode);
    if ('error' in fileMode) return failed(name, fileMode.error);
    try {
      const dirPerms = await resolvePerms('file.directory', { user: a.user, group: a.group, mode: dirMode.mode });
      if ('error' in dirPerms) return failed(name, dirPerms.error);
      const filePerms: ResolvedPerms = { ...dirPerms, mode: fileMode.mode };
      const exclude = excludeMatcher('file.directory', a.exclude_pat);

      let st = await lstat(name).catch(() => undefined);
      const changes: Record<string, unknown> = {};
      // A link to a directory is managed through it (Salt's allow_symlink); anything else in the way needs force.
      if (st && !st.isDirectory() && !(st.isSymbolicLink() && (await stat(name).catch(() => undefined))?.isDirectory())) {
        const what = st.isSymbolicLink() ? 'symlink' : 'file';
        if (!a.force) return failed(name, `Specified location ${name} exists and is a ${what}; set force: True to replace it, or remove it first (file.absent)`);
        changes.forced = `${what === 'file' ? 'File' : 'Symlink'} was forcibly replaced`;
        if (!ctx.test) await rm(name, { force: true });
        st = undefined;
      }

      if (!st) {
        const parent = await stat(path.dirname(name)).catch(() => undefined);
        if (!parent && !a.makedirs) return failed(name, `No directory to create ${name} in: ${path.dirname(name)} is missing; set makedirs: True or create it first`);
        changes[name] = 'New Dir';
        if (ctx.test) return pending(name, `The following files will be changed:\n${name}: directory - new${TEST_NOTE}`, changes);
        await makeParents(path.dirname(name), { mode: dirMode.mode, user: a.user, group: a.group });
        await mkdir(name);
      }
      const own = st ? await pathPermChanges(name, dirPerms) : {};
      Object.assign(changes, own);
      const plan = recurse.size > 0 ? await recursePlan(name, recurse, dirPerms, filePerms) : {};
      // recurse: [silent] reports one line instead of every path, as Salt does.
      if (recurse.has('silent') && Object.keys(plan).length > 0) changes.recursion = 'Changes silenced';
      else Object.assign(changes, plan);
      const keep = new Set(requiredPaths(a.require));
      const toClean = a.clean ? await pathsToClean(name, keep, exclude, [...keep]) : [];
      if (toClean.length > 0) changes.removed = toClean;

      if (Object.keys(changes).length === 0) return succeed(name, `The directory ${name} is in the correct state`);
      if (ctx.test) return pending(name, `The directory ${name} is set to be changed${TEST_NOTE}`, changes);
      await applyPerms(name, dirPerms);
      for (const [p, ch] of Object.entries(plan)) {
        const isDir = (await lstat(p)).isDirectory();
        const want = isDir ? dirPerms : filePerms;
        await applyPerms(
          p,
          { ...(ch.user ? { uid: want.uid, user: want.user } : {}), ...(ch.group ? { gid: want.gid, group: want.group } : {}), ...(ch.mode ? { mode: want.mode } : {}) },
          (await lstat(p)).isSymbolicLink(),
        );
      }
      await removePaths(toClean);
      return succeed(name, `Directory ${name} updated`, changes);
    } catch (err) {
      return failed(name, `Unable to manage directory ${name}: ${errorText(err)}`);
    }
  },
});
