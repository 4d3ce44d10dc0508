// A salt:// argument (a requirements file, an ssh identity) made a local path through the job's
// file client, as Salt's cp.cache_file does; local paths pass through unchanged.

import type { StateContext } from '../types.js';

/** The local path of `ref`, or undefined when a salt:// file cannot be fetched. */
export async function localCopy(ctx: StateContext, ref: string): Promise<string | undefined> {
  if (!ref.startsWith('salt://')) return ref;
  const files = ctx.exec.files;
  if (!files) return undefined;
  const cached = await files.cacheFile(ref, ctx.saltenv).catch(() => undefined);
  return cached?.localPath;
}
