// Salt's root_dir rule (prepend_root_dir): every path option, default or configured, is moved
// under root_dir, unless it already lies there; a relative path is taken relative to root_dir.

import { isAbsolute, join, resolve } from 'node:path';

export function prependRootDir(rootDir: string, path: string): string {
  const root = resolve(rootDir);
  if (!isAbsolute(path)) return join(root, path);
  if (root === '/') return path;
  if (path === root || path.startsWith(`${root}/`)) return path;
  return join(root, path);
}
