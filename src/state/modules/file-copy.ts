// file.copy: copy a local file (or directory tree) to `name`; an existing target is replaced
// only with force (and only when it differs), with preserve keeping the source's owner and mode.

import { chown, cp, lstat, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { defineState } from '../types.js';
import { applyPerms, modeArg, resolvePerms } from './file-perms.js';
import { checkAbsolute, errorText, failed, pending, succeed } from './file-result.js';
import { makeParents } from './file-write.js';

export const fileCopy = defineState({
  name: 'file.copy',
  doc: 'Copy a file or directory on the minion to name (not overwriting an existing target unless force).',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'absolute destination path' },
    { name: 'source', type: 'string', required: true, doc: 'absolute path of the file or directory to copy' },
    { name: 'force', type: 'bool', default: false, doc: 'replace an existing target that differs' },
    { name: 'makedirs', type: 'bool', default: false, doc: 'create missing parent directories' },
    { name: 'preserve', type: 'bool', default: false, doc: "keep the source's owner, group and mode (user/group/mode ignored)" },
    { name: 'user', type: 'string', doc: 'owner of the copy' },
    { name: 'group', type: 'string', doc: 'group of the copy' },
    { name: 'mode', type: 'any', doc: 'mode of the copy' },
  ],
  example: '/etc/app/app.conf.orig:\n  file.copy:\n    - source: /etc/app/app.conf\n    - preserve: True',
  run: async (ctx, { named: a }) => {
    const abs = checkAbsolute(a.name);
    if ('error' in abs) return failed(a.name, abs.error);
    const name = abs.path;
    const src = checkAbsolute(a.source, 'source');
    if ('error' in src) return failed(name, src.error);
    const source = src.path;
    const mode = modeArg(a.mode);
    if ('error' in mode) return failed(name, mode.error);
    try {
      const sst = await stat(source).catch(() => undefined);
      if (!sst) return failed(name, `Source file "${source}" is not present; check the path`);
      if (source === name) return failed(name, 'Source and destination are the same path');
      const perms = a.preserve ? {} : await resolvePerms('file.copy', { user: a.user, group: a.group, mode: mode.mode }, ctx.test);
      if ('error' in perms) return failed(name, perms.error);
      const dst = await lstat(name).catch(() => undefined);
      // Salt's copy_ leaves an existing target alone without force (its permissions too), and
      // with force copies again even when the files are identical, saying so.
      if (dst && !a.force) return succeed(name, `The target file "${name}" exists and will not be overwritten`);
      const same = dst !== undefined && sst.isFile() && dst.isFile() && (await readFile(source)).equals(await readFile(name));
      const note = same ? ' - files are identical but force flag is set' : '';
      const parent = path.dirname(name);
      if (!(await stat(parent).catch(() => undefined)) && !a.makedirs) {
        return failed(name, `The target directory ${parent} is not present; set makedirs: True or create it first`);
      }
      const changes = { [name]: source };
      if (ctx.test) return pending(name, `File "${source}" is set to be copied to "${name}"`, {});
      await makeParents(parent);
      if (dst) await rm(name, { recursive: true, force: true });
      await cp(source, name, { recursive: true, preserveTimestamps: a.preserve, verbatimSymlinks: true });
      // cp keeps the mode; preserve also keeps the owner (possible only as root).
      if (a.preserve) await chown(name, sst.uid, sst.gid).catch(() => undefined);
      // check_perms adds what it changed beside {name: source}
      const permCh = a.preserve ? {} : await applyPerms(name, perms);
      return succeed(name, `Copied "${source}" to "${name}"${note}`, { ...changes, ...permCh });
    } catch (err) {
      return failed(name, `Unable to copy ${a.source} to ${name}: ${errorText(err)}`);
    }
  },
});
