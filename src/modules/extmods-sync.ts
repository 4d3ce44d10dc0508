// Copies custom grains, modules and states from the salt:// file server (`_grains/`, `_modules/`,
// `_states/` of each environment; JavaScript) and a tree's own Python renderers (`_renderers/*.py`)
// into `<cachedir>/extmods/<kind>/`, Salt's layout, and removes the ones the master no longer has.
// Only copies files; loading them is the minion's business (renderers: at each render).

import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BrineError } from '../util/errors.js';
import type { FileClient } from './types.js';

export const EXTMOD_KINDS = ['grains', 'modules', 'states', 'renderers'] as const;
export type ExtmodKind = (typeof EXTMOD_KINDS)[number];

/** A file name a custom module may have: no path separators, no leading dot, a JS extension. */
export const EXTMOD_FILE = /^[A-Za-z0-9_][A-Za-z0-9_.-]*\.m?js$/;

/** A renderer's file name: a Python module name (`objects.py`), as a shebang names it. */
const RENDERER_FILE = /^[A-Za-z_][A-Za-z0-9_]*\.py$/;

/** What files of `_<kind>/` are modules, and what a name must look like. */
function kindFiles(kind: ExtmodKind): { ext: RegExp; name: RegExp; rule: string } {
  if (kind === 'renderers') return { ext: /\.py$/, name: RENDERER_FILE, rule: 'a renderer file name must be a Python module name: letters, digits and _ (not starting with a digit), then .py' };
  return { ext: /\.m?js$/, name: EXTMOD_FILE, rule: 'the file name must be letters, digits, _, . and - (not starting with . or -)' };
}

export function extmodsDir(cachedir: string, kind: ExtmodKind): string {
  return path.join(cachedir, 'extmods', kind);
}

export interface ExtmodFilter {
  /** Only these module names (file name without extension) are synced. */
  whitelist?: readonly string[];
  /** These module names are never synced. */
  blacklist?: readonly string[];
}

export interface SyncOptions {
  files: FileClient;
  cachedir: string;
  kind: ExtmodKind;
  /** Environments in order; the first that has a file name wins. */
  saltenvs: readonly string[];
  filter?: ExtmodFilter;
  /** Salt's clean_dynamic_modules: delete local files the master no longer has (default true). */
  clean?: boolean;
}

export interface SyncOutcome {
  /** `<kind>.<name>` for each file added or replaced (Salt's return; removals are not listed). */
  changed: string[];
  /** Local files deleted because no environment has them any more. */
  removed: string[];
  /** Files on the master that were not synced, with why (unsafe names, subdirectories). */
  ignored: { file: string; reason: string }[];
}

function stem(name: string): string {
  return name.replace(/\.(m?js|py)$/, '');
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

async function localHash(file: string): Promise<string | undefined> {
  try {
    return sha256(await readFile(file));
  } catch {
    return undefined;
  }
}

/**
 * Splits a comma list or list argument (extmod_whitelist=a,b) into names; undefined stays
 * undefined. Anything else is BAD_ARGUMENTS.
 */
export function nameList(value: unknown, what: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  const list = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : undefined;
  if (!list?.every((x) => typeof x === 'string')) throw new BrineError('BAD_ARGUMENTS', `${what} must be a comma-separated list of names or a list, got ${JSON.stringify(value)}`);
  return list.map((s) => s.trim()).filter((s) => s !== '');
}

/** The environments to sync from: `saltenv=` (comma list or list), else base. */
export function syncEnvs(value: unknown): string[] {
  const envs = nameList(value, 'saltenv') ?? [];
  return envs.length > 0 ? envs : ['base'];
}

export async function syncExtmods(o: SyncOptions): Promise<SyncOutcome> {
  const source = `_${o.kind}`;
  const out: SyncOutcome = { changed: [], removed: [], ignored: [] };
  // name -> where it comes from; the first environment that has it wins
  const wanted = new Map<string, { saltenv: string; rel: string }>();
  const files = kindFiles(o.kind);
  for (const saltenv of o.saltenvs) {
    for (const rel of await o.files.listFiles(saltenv, `${source}/`)) {
      const name = rel.startsWith(`${source}/`) ? rel.slice(source.length + 1) : rel;
      if (name.includes('/')) {
        out.ignored.push({ file: rel, reason: 'custom modules in subdirectories are not synced; move it up into the directory itself' });
        continue;
      }
      if (!files.ext.test(name)) continue; // READMEs, helpers in other formats: not modules
      if (!files.name.test(name)) {
        out.ignored.push({ file: rel, reason: files.rule });
        continue;
      }
      const mod = stem(name);
      if (o.filter?.whitelist && !o.filter.whitelist.includes(mod)) continue;
      if (o.filter?.blacklist?.includes(mod)) continue;
      if (!wanted.has(name)) wanted.set(name, { saltenv, rel });
    }
  }

  const dest = extmodsDir(o.cachedir, o.kind);
  await mkdir(dest, { recursive: true, mode: 0o700 });
  for (const [name, from] of [...wanted].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const { localPath } = await o.files.cacheFile(`salt://${from.rel}`, from.saltenv);
    const data = await readFile(localPath);
    const target = path.join(dest, name);
    if ((await localHash(target)) === sha256(data)) continue;
    // replace atomically: a loader reading the directory never sees half a file
    // unique per write: two syncs at once (a job and brine call) must not share a temp file
    const tmp = path.join(dest, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
    await writeFile(tmp, data, { mode: 0o600 });
    await rename(tmp, target);
    out.changed.push(`${o.kind}.${stem(name)}`);
  }

  if (o.clean !== false) {
    for (const entry of await readdir(dest, { withFileTypes: true })) {
      // as in Salt, whatever this sync did not bring (gone, or filtered out) goes
      // (dot files are the temp files of a sync running at the same time)
      if (!entry.isFile() || wanted.has(entry.name) || entry.name.startsWith('.')) continue;
      await unlink(path.join(dest, entry.name)).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
      out.removed.push(`${o.kind}.${stem(entry.name)}`);
    }
  }
  return out;
}
