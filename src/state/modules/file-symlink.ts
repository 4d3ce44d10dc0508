// file.symlink: `name` is a symbolic link to `target` (replacing a wrong link; a file or
// directory in the way only with force), owned by user/group.

import { lstat, readlink, rm, stat, symlink } from 'node:fs/promises';
import path from 'node:path';
import { defineState } from '../types.js';
import { applyPerms, pathPermChanges, resolvePerms } from './file-perms.js';
import { checkAbsolute, errorText, failed, pending, succeed, TEST_NOTE } from './file-result.js';
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
      if (!(await stat(parent).catch(() => undefined)) && !a.makedirs) {
        return failed(name, `Directory ${parent} for symlink is not present; set makedirs: True or create it first`);
      }

      if (st?.isSymbolicLink() && (await readlink(name)) === a.target) {
        const ch = await pathPermChanges(name, perms, true);
        if (Object.keys(ch).length === 0) return succeed(name, `Symlink ${name} is present and points to ${a.target}`);
        if (ctx.test) return pending(name, `Ownership of symlink ${name} is set to be changed${TEST_NOTE}`, ch);
        await applyPerms(name, perms, true);
        return succeed(name, `Ownership of symlink ${name} updated`, ch);
      }
      if (st && !st.isSymbolicLink() && !a.force) {
        const what = st.isDirectory() ? 'Directory' : 'File';
        return failed(name, `${what} exists where the symlink ${name} should be; set force: True to replace it`);
      }
      const changes: Record<string, unknown> = st ? { change: name } : { new: name };
      if (ctx.test) {
        return pending(name, st ? `Symlink ${name} is set to be changed to point to ${a.target}${TEST_NOTE}` : `Symlink ${name} to ${a.target} is set for creation${TEST_NOTE}`, changes);
      }
      await makeParents(parent, { user: a.user, group: a.group });
      if (st) await rm(name, { recursive: true, force: true });
      await symlink(a.target, name);
      await applyPerms(name, perms, true);
      return succeed(name, st ? `Set target of symlink ${name} to ${a.target}` : `Created new symlink ${name} -> ${a.target}`, changes);
    } catch (err) {
      return failed(name, `Unable to manage symlink ${name}: ${errorText(err)}`);
    }
  },
});
