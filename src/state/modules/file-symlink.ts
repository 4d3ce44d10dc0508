// file.symlink: `name` is a symbolic link to `target` (replacing a wrong link; a file or
// directory in the way only with force), owned by user/group. Reports as Salt 3007's
// salt/states/file.py symlink and _symlink_check do.

import { lstat, readlink, rm, stat, symlink } from 'node:fs/promises';
import path from 'node:path';
import { findGroup, findUser, readGroups, readPasswd } from '../../modules/user-db.js';
import { defineState, type StateResult } from '../types.js';
import { applyPerms, pathPermChanges, resolvePerms } from './file-perms.js';
import { checkAbsolute, errorText, failed, succeed } from './file-result.js';
import { makeParents } from './file-write.js';

export const fileSymlink = defineState({
  name: 'file.symlink',
  // Salt's file.symlink takes **kwargs: keys it does not know (backupname, show_diff, ...) are ignored.
  kwargs: true,
  doc: 'Make sure a symbolic link exists and points to the target.',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'absolute path of the link' },
    { name: 'target', type: 'string', required: true, doc: 'what the link points to' },
    { name: 'force', type: 'bool', default: false, doc: 'replace a file or directory standing where the link should be' },
    { name: 'makedirs', type: 'bool', default: false, doc: 'create missing parent directories' },
    { name: 'user', type: 'string', doc: 'owner of the link' },
    { name: 'group', type: 'string', doc: 'group of the link' },
  ],
  example: '/etc/nginx/sites-enabled/app.conf:\n  file.symlink:\n    - target: /etc/nginx/sites-available/app.conf\n    - force: True',
  run: async (ctx, { named: a }) => {
    const abs = checkAbsolute(a.name, 'symlink');
    if ('error' in abs) return failed(a.name, abs.error);
    const name = abs.path;
    if (a.target === '') return failed(name, 'A target is required; give the path the link should point to');
    try {
      const perms = await resolvePerms('file.symlink', { user: a.user, group: a.group });
      if ('error' in perms) return failed(name, perms.error);
      const st = await lstat(name).catch(() => undefined);
      const parent = path.dirname(name);
      const parentMissing = !(await stat(parent).catch(() => undefined))?.isDirectory();
      const isLink = st?.isSymbolicLink() === true;
      const current = isLink ? await readlink(name) : undefined;

      if (ctx.test) {
        // Salt's _symlink_check, then a note about the parent directory (salt/states/file.py symlink)
        let r: StateResult;
        if (!st) r = { name, result: null, changes: { new: name }, comment: `Symlink ${name} to ${a.target} is set for creation` };
        else if (isLink && current !== a.target) r = { name, result: null, changes: { change: name }, comment: `Link ${name} target is set to be changed to ${a.target}` };
        else if (isLink) {
          const ch = await pathPermChanges(name, perms, true);
          const now = await ownerOf(name);
          r =
            Object.keys(ch).length === 0
              ? { name, result: true, changes: {}, comment: `The symlink ${name} is present` }
              : {
                  name,
                  result: null,
                  changes: { ownership: now },
                  comment: `The symlink ${name} is present, but the ownership of the symlink would be changed from ${now} to ${a.user ?? now.split(':')[0]}:${a.group ?? now.split(':')[1]}`,
                };
        } else if (a.force) r = { name, result: null, changes: {}, comment: `The file or directory ${name} is set for removal to make way for a new symlink targeting ${a.target}` };
        else return failed(name, `File or directory exists where the symlink ${name} should be. Did you mean to use force?`);
        if (parentMissing) r.comment += a.makedirs ? `\n${parent} will be created` : `\nDirectory ${parent} for symlink is not present`;
        return r;
      }

      if (parentMissing) {
        if (!a.makedirs) return failed(name, `Directory ${parent} for symlink is not present`);
        await makeParents(parent, { user: a.user, group: a.group });
      }
      if (isLink && current === a.target) {
        const ch = await pathPermChanges(name, perms, true);
        if (Object.keys(ch).length === 0) return succeed(name, `Symlink ${name} is present and owned by ${await ownerOf(name)}`);
        await applyPerms(name, perms, true);
        const owner = await ownerOf(name);
        return succeed(name, `Set ownership of symlink ${name} to ${owner}`, { ownership: owner });
      }
      if (st && !isLink) {
        if (!a.force) return failed(name, `${st.isDirectory() ? 'Directory' : st.isFile() ? 'File' : 'File system entry'} exists where the symlink ${name} should be`);
      }
      // a wrong link is removed and made again: Salt reports it as a new symlink
      if (st) await rm(name, { recursive: true, force: true });
      await symlink(a.target, name);
      await applyPerms(name, perms, true);
      return succeed(name, `Created new symlink ${name} -> ${a.target}`, { new: name });
    } catch (err) {
      return failed(name, `Unable to manage symlink ${name}: ${errorText(err)}`);
    }
  },
});

/** The link's own owner as Salt prints it, user:group (names where the databases have them). */
async function ownerOf(link: string): Promise<string> {
  const st = await lstat(link);
  const user = findUser(await readPasswd('file.symlink'), st.uid)?.name ?? String(st.uid);
  const group = findGroup(await readGroups('file.symlink'), st.gid)?.name ?? String(st.gid);
  return `${user}:${group}`;
}
