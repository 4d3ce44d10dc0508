// Where a tree's own Python renderers are found, in Salt's loader order (salt/loader _module_dirs
// for "renderers" with ext_type_dirs "render_dirs"): `<extension_modules>/renderers/` (where
// saltutil.sync_renderers puts `<file_root>/_renderers/*.py`), then each `render_dirs` directory.
// A shebang name brine does not render itself is looked up there as `<name>.py`.

import { existsSync } from 'node:fs';
import * as path from 'node:path';

export interface TreeRenderer {
  /** The name the shebang uses (`objects` in `#!objects`). */
  name: string;
  /** The module's file. */
  file: string;
}

/** A renderer name as a shebang may give it: a Python module name. */
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The options the directories come from: brine's minion (or master) options. */
export interface RendererDirOptions {
  cachedir?: unknown;
  extension_modules?: unknown;
  render_dirs?: unknown;
}

/**
 * The directories searched for a tree's renderers: `<extension_modules>/renderers` (default
 * extension_modules: `<cachedir>/extmods`, where the sync writes), then render_dirs in order.
 */
export function treeRendererDirs(opts: RendererDirOptions): string[] {
  const dirs: string[] = [];
  const cachedir = typeof opts.cachedir === 'string' && opts.cachedir !== '' ? opts.cachedir : undefined;
  const ext = typeof opts.extension_modules === 'string' && opts.extension_modules !== '' ? opts.extension_modules : cachedir ? path.join(cachedir, 'extmods') : undefined;
  if (ext) dirs.push(path.join(ext, 'renderers'));
  // synced files always land under <cachedir>/extmods (as brine's other custom modules)
  if (cachedir && path.join(cachedir, 'extmods') !== ext) dirs.push(path.join(cachedir, 'extmods', 'renderers'));
  if (Array.isArray(opts.render_dirs)) for (const d of opts.render_dirs) if (typeof d === 'string' && d !== '') dirs.push(d);
  return dirs;
}

/** The first `<dir>/<name>.py` of `dirs`, or undefined. */
export function findTreeRenderer(dirs: readonly string[] | undefined, name: string): TreeRenderer | undefined {
  if (!dirs || !NAME.test(name)) return undefined;
  for (const dir of dirs) {
    const file = path.join(dir, `${name}.py`);
    if (existsSync(file)) return { name, file };
  }
  return undefined;
}
