// file.recurse's `source`: a salt:// directory, or a list of them of which the first that exists
// on the file server is mirrored (Salt 3007 salt/states/file.py recurse: _validate_str_list, then
// file.source_list; salt-formula passes per-minion then default directories this way).

import { repr as pyRepr } from '../../render/jinja/py-values.js';
import type { StateContext } from '../types.js';

/** The file server path below salt:// (no query, no surrounding slashes). */
function prefixOf(url: string): string {
  return url
    .slice('salt://'.length)
    .replace(/\?.*$/, '')
    .replace(/^\/+|\/+$/g, '');
}

/** Whether the file server has a directory (a file or a directory below it) at `prefix`. */
async function dirExists(ctx: StateContext, prefix: string): Promise<boolean> {
  const files = ctx.exec.files;
  if (!files) return false;
  const under = prefix === '' ? '' : `${prefix}/`;
  if ((await files.listFiles(ctx.saltenv, prefix)).some((f) => f.startsWith(under))) return true;
  return (await files.listDirs(ctx.saltenv, prefix)).some((d) => d.startsWith(under));
}

export async function chooseSource(ctx: StateContext, source: unknown): Promise<{ prefix: string } | { error: string }> {
  const list = typeof source === 'string' ? [source] : Array.isArray(source) && source.every((s) => typeof s === 'string') ? (source as string[]) : undefined;
  if (!list || list.length === 0) return { error: `The source must be a salt:// URL of a directory or a list of them, got ${JSON.stringify(source)}` };
  const urls = list.map((s) => s.replace(/\/+$/, ''));
  for (const u of urls) if (!u.startsWith('salt://')) return { error: `Invalid source ${pyRepr(u)} (must be a salt:// URI)` };
  // one source: the tree walk reports a missing directory with its own message
  if (urls.length === 1) return { prefix: prefixOf(urls[0]!) };
  for (const u of urls) if (await dirExists(ctx, prefixOf(u))) return { prefix: prefixOf(u) };
  return { error: 'Recurse failed: none of the specified sources were found' };
}
