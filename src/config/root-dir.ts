// Salt's root_dir rule (prepend_root_dir): the path options Salt lists (pki_dir, cachedir,
// sock_dir, log_file, autosign_file ...; schema `path: true`), default or configured, are moved
// under root_dir unless they already lie there; a relative path is taken relative to root_dir.
// file_roots and pillar_roots are not on Salt's list: absolute directories stay as written.

import { isAbsolute, join, normalize, resolve } from 'node:path';

export function prependRootDir(rootDir: string, path: string): string {
  const root = resolve(rootDir);
  if (!isAbsolute(path)) return join(root, path);
  if (root === '/') return path;
  if (path === root || path.startsWith(`${root}/`)) return path;
  return join(root, path);
}

/** One file_roots/pillar_roots directory as used: absolute as written, relative under root_dir. */
export function treePath(rootDir: string, dir: string): string {
  return isAbsolute(dir) ? normalize(dir) : join(resolve(rootDir), dir);
}

/**
 * A file_roots/pillar_roots mapping with each directory as it will be used: absolute ones as
 * written (normalised), relative ones under root_dir (Salt would take them from the daemon's
 * working directory, which changes with how it was started). Non-string entries are kept for the
 * consumer to refuse.
 */
export function resolveTrees(rootDir: string, trees: Record<string, unknown>): Record<string, unknown> {
  const one = (d: unknown): unknown => (typeof d !== 'string' || d === '' ? d : treePath(rootDir, d));
  return Object.fromEntries(Object.entries(trees).map(([env, dirs]) => [env, Array.isArray(dirs) ? dirs.map(one) : one(dirs)]));
}
