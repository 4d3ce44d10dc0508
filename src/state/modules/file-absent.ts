// file.absent: the path (file, symlink or directory tree) does not exist.

import { lstat, rm } from 'node:fs/promises';
import { defineState } from '../types.js';
import { checkAbsolute, errorText, failed, pending, succeed } from './file-result.js';

export const fileAbsent = defineState({
  name: 'file.absent',
  // Salt's file.absent takes **kwargs: keys it does not know (backupname, show_diff, ...) are ignored.
  kwargs: true,
  doc: 'Make sure a file, symlink or directory (with everything in it) is absent.',
  params: [{ name: 'name', type: 'string', required: true, doc: 'absolute path to remove' }],
  example: '/etc/nginx/sites-enabled/default:\n  file.absent: []',
  run: async (ctx, { named: a }) => {
    const abs = checkAbsolute(a.name);
    if ('error' in abs) return failed(a.name, abs.error);
    const name = abs.path;
    if (name === '/') return failed(name, 'Refusing to make "/" absent');
    const st = await lstat(name).catch(() => undefined);
    if (!st) return succeed(name, `File ${name} is not present`);
    const kind = st.isDirectory() ? 'directory' : 'file';
    if (ctx.test) return pending(name, `${kind === 'directory' ? 'Directory' : 'File'} ${name} is set for removal`, { removed: name });
    try {
      // rm never follows a symlink: removing a link leaves its target alone.
      await rm(name, { recursive: true, force: true });
    } catch (err) {
      return failed(name, `Failed to remove ${kind} ${name}: ${errorText(err)}`);
    }
    return succeed(name, `Removed ${kind} ${name}`, { removed: name });
  },
});
