// clean: True for file.directory and file.recurse: which paths under a directory are not
// wanted (not managed by this state, not required by it, not excluded by exclude_pat). A pure
// decision over a directory listing, so test=True reports exactly what a real run removes.

import { lstat, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { globToRegExp } from '../../modules/glob.js';
import { compilePythonRegex } from '../../modules/python-regex.js';

/** Salt's exclude_pat: a glob on the relative path (or its basename), or `E@<regex>`. */
export function excludeMatcher(fun: string, pattern: string | readonly string[] | undefined): (rel: string) => boolean {
  // salt.utils.stringutils.check_include_exclude: a list matches when any of its patterns does
  if (Array.isArray(pattern)) {
    const each = pattern.map((p) => excludeMatcher(fun, p));
    return (rel) => each.some((m) => m(rel));
  }
  if (pattern === undefined || pattern === '') return () => false;
  if (typeof pattern !== 'string') return () => false;
  if (pattern.startsWith('E@')) {
    const re = compilePythonRegex(fun, pattern.slice(2), 0);
    return (rel) => {
      re.lastIndex = 0;
      return re.test(rel);
    };
  }
  const re = globToRegExp(pattern);
  return (rel) => re.test(rel) || re.test(path.basename(rel));
}

/** A glob/E@regex pattern argument: text, or (as Salt's check_include_exclude takes) a list of them. */
export function patternArg(fun: string, arg: string, v: unknown): { pattern: string | string[] | undefined } | { error: string } {
  if (v === undefined || v === null || typeof v === 'string') return { pattern: v ?? undefined };
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return { pattern: v as string[] };
  return { error: `${fun}: '${arg}' must be a glob or 'E@regex' pattern, or a list of them; got ${JSON.stringify(v)}` };
}

/**
 * The absolute paths a file `require`s (Salt keeps required files when cleaning): `- file: /x`,
 * `{file: /x}` and plain absolute paths; names that are not absolute paths are state IDs and
 * cannot be resolved here.
 */
export function requiredPaths(require: unknown): string[] {
  const out: string[] = [];
  for (const item of Array.isArray(require) ? require : require === undefined ? [] : [require]) {
    if (typeof item === 'string' && path.isAbsolute(item)) out.push(path.normalize(item));
    else if (item && typeof item === 'object') {
      for (const [mod, v] of Object.entries(item)) if (mod === 'file' && typeof v === 'string' && path.isAbsolute(v)) out.push(path.normalize(v));
    }
  }
  return out;
}

/** Every path under `dir` (deepest last), relative, with whether it is a directory (symlinks not followed). */
export async function walkTree(dir: string): Promise<{ rel: string; isDir: boolean }[]> {
  const out: { rel: string; isDir: boolean }[] = [];
  const go = async (rel: string) => {
    const entries = await readdir(path.join(dir, rel), { withFileTypes: true });
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const r = rel === '' ? e.name : `${rel}/${e.name}`;
      out.push({ rel: r, isDir: e.isDirectory() });
      if (e.isDirectory()) await go(r);
    }
  };
  await go('');
  return out;
}

/**
 * The paths to remove: every path that is not kept, not inside a kept tree, not excluded, and
 * not a directory holding any of those (so an excluded file keeps its directory). A removed
 * directory's contents are not listed separately.
 */
export async function pathsToClean(dir: string, keep: ReadonlySet<string>, exclude: (rel: string) => boolean, keepTrees: readonly string[] = []): Promise<string[]> {
  const entries = (await walkTree(dir)).map((e) => ({ ...e, abs: path.join(dir, e.rel) }));
  const keepAbs = new Set([...keep].map((k) => path.normalize(k)));
  // A required directory keeps everything below it, as Salt's _gen_keep_files does.
  const inTree = (abs: string) => keepTrees.some((k) => abs === k || abs.startsWith(`${k}/`));
  const protectedPaths = new Set<string>();
  for (const e of entries) {
    if (!keepAbs.has(e.abs) && !inTree(e.abs) && !exclude(e.rel)) continue;
    for (let p = e.abs; p !== dir && p.startsWith(`${dir}/`); p = path.dirname(p)) protectedPaths.add(p);
  }
  for (const k of keepAbs) for (let p = path.dirname(k); p !== dir && p.startsWith(`${dir}/`); p = path.dirname(p)) protectedPaths.add(p);
  const remove: string[] = [];
  let removedDir: string | undefined;
  for (const e of entries) {
    // walkTree lists a directory's contents right after it, so one marker skips them.
    if (removedDir !== undefined && e.abs.startsWith(`${removedDir}/`)) continue;
    if (protectedPaths.has(e.abs)) continue;
    remove.push(e.abs);
    removedDir = e.isDir ? e.abs : removedDir;
  }
  return remove;
}

export async function removePaths(paths: readonly string[]): Promise<void> {
  for (const p of paths) {
    if (
      await lstat(p).then(
        () => true,
        () => false,
      )
    )
      await rm(p, { recursive: true, force: true });
  }
}
