// Writing a key or certificate the way x509_v2's file.managed sub-state does: atomically, never
// readable by others while it is being written, then with the owner and mode asked for.

import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { applyPerms, modeArg, type ResolvedPerms, resolvePerms } from '../file-perms.js';
import { makeParents } from '../file-write.js';

export interface FileArgs {
  user?: string | undefined;
  group?: string | undefined;
  mode?: unknown;
  makedirs?: boolean | undefined;
}

export const FILE_PARAMS = [
  { name: 'user', type: 'string' },
  { name: 'group', type: 'string' },
  { name: 'mode', type: 'any' },
  { name: 'makedirs', type: 'bool', default: false },
] as const;

/** The owner and mode to apply, or a failed-state comment. */
export async function filePerms(fun: string, a: FileArgs, defaultMode: string): Promise<ResolvedPerms | { error: string }> {
  const mode = modeArg(a.mode ?? defaultMode);
  if ('error' in mode) return mode;
  return resolvePerms(fun, { ...(a.user ? { user: a.user } : {}), ...(a.group ? { group: a.group } : {}), ...mode });
}

/** Writes data to file (created 0600 first, renamed into place), then owner and mode. */
export async function writeSecret(file: string, data: string, perms: ResolvedPerms, makedirs: boolean): Promise<void> {
  const dir = path.dirname(file);
  if (!fs.existsSync(dir)) {
    if (!makedirs) throw new Error(`Parent directory not present: ${dir}; create it first or pass makedirs: True`);
    await makeParents(dir);
  }
  const tmp = path.join(dir, `.${path.basename(file)}.brine-${randomBytes(4).toString('hex')}`);
  try {
    fs.writeFileSync(tmp, data, { flag: 'wx', mode: 0o600 });
    await applyPerms(tmp, perms);
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}
