// file.rename: move `source` to `name` (Salt's salt/states/file.py rename): a source already
// gone is success, an existing target is kept unless force, a symlink moves as a symlink.

import { lstat, mkdir, readlink, rename, rm, stat, symlink, unlink } from 'node:fs/promises';
import path from 'node:path';
import { defineState } from '../types.js';
import { checkAbsolute, errorText, failed, succeed } from './file-result.js';
import { expandUser } from './expand-user.js';
import { errnoCode } from '../../util/errors.js';

const exists = async (p: string): Promise<boolean> => (await lstat(p).catch(() => undefined)) !== undefined;

/** shutil.move: rename, or copy-and-delete across file systems. */
async function move(source: string, name: string): Promise<void> {
  try {
    await rename(source, name);
  } catch (err) {
    if (errnoCode(err) !== 'EXDEV') throw err;
    const { cp } = await import('node:fs/promises');
    await cp(source, name, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
    await rm(source, { recursive: true, force: true });
  }
}

export const fileRename = defineState({
  name: 'file.rename',
  // Salt's function takes **kwargs: arguments it does not know are ignored, without a warning.
  kwargs: true,
  doc: 'Move the file or directory at source to name, unless it was moved already.',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'absolute path to move the source to' },
    { name: 'source', type: 'string', required: true, doc: 'the path to move' },
    { name: 'force', type: 'bool', default: false, doc: 'replace a target that exists' },
    { name: 'makedirs', type: 'bool', default: false, doc: 'create missing parent directories of name' },
  ],
  example: '/etc/app/app.conf:\n  file.rename:\n    - source: /etc/app.conf\n    - makedirs: True',
  run: async (ctx, { named: a }) => {
    const abs = checkAbsolute(expandUser(a.name));
    if ('error' in abs) return failed(a.name, abs.error.replace(/;.*$/, ''));
    const name = abs.path;
    const source = expandUser(a.source);
    // the comments and results are Salt's (file.rename), word for word
    if (!(await exists(source))) return succeed(name, `Source file "${source}" has already been moved out of place`);
    if (await exists(name)) {
      if (!a.force) return failed(name, `The target file "${name}" exists and will not be overwritten`);
      if (!ctx.test) {
        try {
          await rm(name, { recursive: true, force: true });
        } catch {
          return failed(name, `Failed to delete "${name}" in preparation for forced move`);
        }
      }
    }
    if (ctx.test) return { name, result: null, changes: {}, comment: `File "${source}" is set to be moved to "${name}"` };
    const dname = path.dirname(name);
    if (!(await stat(dname).catch(() => undefined))?.isDirectory()) {
      if (!a.makedirs) return failed(name, `The target directory ${dname} is not present`);
      await mkdir(dname, { recursive: true });
    }
    try {
      const st = await lstat(source);
      if (st.isSymbolicLink()) {
        await symlink(await readlink(source), name);
        await unlink(source);
      } else await move(source, name);
    } catch (err) {
      return failed(name, `Failed to move "${source}" to "${name}": ${errorText(err)}`);
    }
    return succeed(name, `Moved "${source}" to "${name}"`, { [name]: source });
  },
});
