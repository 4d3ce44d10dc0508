// file.touch: create the file if missing and set its access and modification times.

import { lstat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { defineState } from '../types.js';
import { checkAbsolute, errorText, failed, pending, succeed } from './file-result.js';
import { makeParents } from './file-write.js';

function epoch(v: unknown): number | undefined | { error: string } {
  if (v === undefined || v === null || v === '') return undefined;
  const n = typeof v === 'number' ? v : /^\d+$/.test(String(v).trim()) ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? n : { error: `Invalid time '${String(v)}'; give seconds since the epoch` };
}

export const fileTouch = defineState({
  name: 'file.touch',
  // Salt's file.touch(name, atime, mtime, makedirs) has no **kwargs: another argument gets format_call's warning
  doc: 'Create an empty file if missing, and set its atime and mtime (now unless given).',
  params: [
    { name: 'name', type: 'string', required: true, doc: 'absolute path' },
    { name: 'atime', type: 'any', doc: 'access time, seconds since the epoch (default now)' },
    { name: 'mtime', type: 'any', doc: 'modification time, seconds since the epoch (default now)' },
    { name: 'makedirs', type: 'bool', default: false, doc: 'create missing parent directories' },
  ],
  example: '/var/run/app/ready:\n  file.touch:\n    - makedirs: True',
  run: async (ctx, { named: a }) => {
    const abs = checkAbsolute(a.name);
    if ('error' in abs) return failed(a.name, abs.error);
    const name = abs.path;
    const at = epoch(a.atime);
    const mt = epoch(a.mtime);
    if (typeof at === 'object') return failed(name, at.error);
    if (typeof mt === 'object') return failed(name, mt.error);
    const st = await lstat(name).catch(() => undefined);
    const kind = st?.isDirectory() ? 'directory' : 'file';
    // With both times given and already set there is nothing to do (Salt touches every run;
    // a fixed time makes the state idempotent).
    if (st && at !== undefined && mt !== undefined && Math.floor(st.atimeMs / 1000) === at && Math.floor(st.mtimeMs / 1000) === mt) {
      return succeed(name, `File ${name} exists and has the correct times`);
    }
    const changes = st ? { touched: name } : { new: name };
    if (ctx.test) return pending(name, st ? `Times set to be updated on file ${name}` : `File ${name} is set to be created`, changes);
    try {
      const parent = path.dirname(name);
      if (!st && !(await lstat(parent).catch(() => undefined))) {
        if (!a.makedirs) return failed(name, `Directory not present to touch file ${name}; set makedirs: True or create ${parent} first`);
        await makeParents(parent);
      }
      if (!st) await writeFile(name, '', { flag: 'a' });
      const now = Date.now() / 1000;
      await utimes(name, at ?? now, mt ?? now);
    } catch (err) {
      return failed(name, `Unable to touch ${name}: ${errorText(err)}`);
    }
    return succeed(name, st ? `Updated times on ${kind} ${name}` : `Created empty file ${name}`, changes);
  },
});
