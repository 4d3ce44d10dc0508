// file_roots as the file server sees them: per environment an ordered list of directories, the
// first that has a file wins, ignores applied, every path checked (path-check.ts) before it
// touches the disk and every hit resolved with realpath so a symlink cannot lead out of its root.
// A hit's resolution is remembered and re-checked on every later request with two stat(2)s in
// place of two realpath walks (see find); anything that changed sends the request the long way.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { BrineError, errorMessage } from '../util/errors.js';
import { globToRegExp } from '../util/glob.js';
// the module, not config/index.js (the loader, YAML and the schema), which a job worker never needs
import { treePath } from '../config/root-dir.js';
import type { FileStat } from '../modules/index.js';
import { checkPrefix, checkRelativePath, checkSaltenv } from './path-check.js';
import { HashCache } from './hash-cache.js';

export interface FileRootsConfig {
  root_dir?: unknown;
  file_roots?: unknown;
  file_ignore_regex?: unknown;
  file_ignore_glob?: unknown;
}

/** A file found in a root: its real path on disk and what the client sees. */
export interface FoundFile {
  realPath: string;
  stat: FileStat;
}

const MAX_LISTED = 100_000;
/** Resolved hits remembered (FileRoots.find); the oldest is dropped beyond this. */
const MAX_RESOLVED = 10_000;

/**
 * A file found by a full resolution: which root had it, its real path (checked inside that
 * root's real path) and the identity of the file there.
 */
interface Resolved {
  rootIndex: number;
  realPath: string;
  dev: bigint;
  ino: bigint;
}

/** stat(2) following links, or undefined for any failure (a missing file, ENOTDIR, EACCES). */
function statOrUndefined(p: string): fs.BigIntStats | undefined {
  try {
    return fs.statSync(p, { bigint: true, throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function asStringList(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function inside(root: string, real: string): boolean {
  return real === root || real.startsWith(root.endsWith('/') ? root : `${root}/`);
}

/** Reads up to `length` bytes at `offset` of a file a backend found (any backend: the bytes are on disk). */
export function readFileChunk(found: FoundFile, offset: number, length: number): Buffer {
  const fd = fs.openSync(found.realPath, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const n = Math.max(0, Math.min(length, size - offset));
    const buf = Buffer.alloc(n);
    let got = 0;
    while (got < n) {
      const r = fs.readSync(fd, buf, got, n - got, offset + got);
      if (r === 0) break;
      got += r;
    }
    return got === n ? buf : buf.subarray(0, got);
  } finally {
    fs.closeSync(fd);
  }
}

export class FileRoots {
  readonly name = 'roots';
  /** saltenv -> directories as configured (not yet realpath'd: they may appear later). */
  readonly roots: ReadonlyMap<string, readonly string[]>;
  private readonly ignoreRegex: RegExp[];
  private readonly ignoreGlob: RegExp[];
  /** Exposed so tests can prove a repeated stat does not hash again. */
  readonly hashes = new HashCache();
  /** saltenv NUL path -> its last full resolution (find). */
  private readonly resolved = new Map<string, Resolved>();
  /** Full resolutions (realpath walks) done by find; tests prove a repeated find does none. */
  walks = 0;

  constructor(config: FileRootsConfig) {
    const rootDir = typeof config.root_dir === 'string' ? config.root_dir : '/';
    const map = new Map<string, string[]>();
    const raw = config.file_roots;
    if (raw !== undefined && (typeof raw !== 'object' || raw === null || Array.isArray(raw))) {
      throw new BrineError('CONFIG_VALUE', 'file_roots must be a mapping of saltenv to a list of directories, e.g. {base: [/srv/salt]}');
    }
    for (const [env, dirs] of Object.entries((raw ?? { base: ['/srv/salt'] }) as Record<string, unknown>)) {
      checkSaltenv(env);
      map.set(
        env,
        // Salt's rule: absolute roots as written, not under root_dir (relative ones under it)
        asStringList(dirs).map((d) => treePath(rootDir, d)),
      );
    }
    this.roots = map;
    this.ignoreRegex = asStringList(config.file_ignore_regex).map((r) => {
      try {
        return new RegExp(r);
      } catch (err) {
        throw new BrineError('CONFIG_VALUE', `file_ignore_regex ${JSON.stringify(r)} is not a valid regular expression: ${errorMessage(err)}`);
      }
    });
    this.ignoreGlob = asStringList(config.file_ignore_glob).map((g) => globToRegExp(g));
  }

  envs(): string[] {
    return [...this.roots.keys()].sort();
  }

  /** Whether file_ignore_regex/file_ignore_glob hide this relative path or one of its parents. */
  ignored(rel: string): boolean {
    const parts = rel.split('/');
    for (let i = 1; i <= parts.length; i++) {
      const prefix = parts.slice(0, i).join('/');
      const base = parts[i - 1]!;
      if (this.ignoreRegex.some((r) => r.test(prefix))) return true;
      if (this.ignoreGlob.some((g) => g.test(prefix) || g.test(base))) return true;
    }
    return false;
  }

  private rootsOf(saltenv: string): readonly string[] {
    checkSaltenv(saltenv);
    return this.roots.get(saltenv) ?? [];
  }

  /**
   * The file at `rel` in the first root of `saltenv` that has it, or undefined. Throws
   * PATH_REFUSED for a bad path, or when the hit is a symlink resolving outside its root.
   *
   * A hit's resolution is remembered and reused only while it provably still holds: no earlier
   * root has gained a file of that name (one stat each), the path in its root still leads, through
   * whatever links it has now, to the same file (dev and inode) as the real path checked inside
   * the root, and that real path is still that file (the same stat when the path had no link). A changed, added, removed or renamed file, a
   * swapped symlink (in the tree or the root itself) and a link now leading out all fail one of
   * these, and the request takes the full realpath walk again. Served bytes are always read from
   * a real path that was checked inside its root.
   */
  find(saltenv: string, relPath: string): FoundFile | undefined {
    const rel = checkRelativePath(relPath);
    const roots = this.rootsOf(saltenv);
    if (this.ignored(rel)) return undefined;
    const key = `${saltenv}\0${rel}`;
    const hit = this.resolved.get(key);
    if (hit) {
      const found = this.recheck(hit, roots, rel);
      if (found) return found;
      this.resolved.delete(key);
    }
    this.walks++;
    for (let i = 0; i < roots.length; i++) {
      const root = roots[i]!;
      const candidate = path.join(root, rel);
      let real: string;
      let realRoot: string;
      try {
        realRoot = fs.realpathSync.native(root);
        real = fs.realpathSync.native(candidate);
      } catch {
        continue;
      }
      if (!inside(realRoot, real)) {
        throw new BrineError('PATH_REFUSED', `path ${JSON.stringify(rel)} in saltenv ${saltenv} is a symlink that leads outside its file root ${root}; nothing was read`);
      }
      const st = fs.statSync(real, { bigint: true });
      if (!st.isFile()) continue;
      if (this.resolved.size >= MAX_RESOLVED) this.resolved.delete(this.resolved.keys().next().value!);
      this.resolved.set(key, { rootIndex: i, realPath: real, dev: st.dev, ino: st.ino });
      return this.foundOf(real, rel, st);
    }
    return undefined;
  }

  /** The remembered hit if it still holds (see find), else undefined. */
  private recheck(hit: Resolved, roots: readonly string[], rel: string): FoundFile | undefined {
    // an earlier root that now has a file by that name would win (or refuse): the long way
    for (let i = 0; i < hit.rootIndex; i++) {
      if (statOrUndefined(path.join(roots[i]!, rel))?.isFile()) return undefined;
    }
    const root = roots[hit.rootIndex];
    if (root === undefined) return undefined;
    const candidate = path.join(root, rel);
    const now = statOrUndefined(candidate);
    if (!now?.isFile() || now.dev !== hit.dev || now.ino !== hit.ino) return undefined;
    // no link on the path when it was resolved (the usual case): that stat was of the real path
    if (candidate === hit.realPath) return this.foundOf(hit.realPath, rel, now);
    const st = statOrUndefined(hit.realPath);
    if (!st?.isFile() || st.dev !== hit.dev || st.ino !== hit.ino) return undefined;
    return this.foundOf(hit.realPath, rel, st);
  }

  private foundOf(real: string, rel: string, st: fs.BigIntStats): FoundFile {
    const sha256 = this.hashes.hashOf(real, st);
    return { realPath: real, stat: { path: rel, sha256, size: Number(st.size), mode: Number(st.mode) & 0o7777 } };
  }

  /** Reads up to `length` bytes at `offset` of a file found by find(). */
  readChunk(found: FoundFile, offset: number, length: number): Buffer {
    return readFileChunk(found, offset, length);
  }

  /** Files (or directories) of `saltenv` under `prefix`, merged over its roots, sorted; ignores applied. */
  list(saltenv: string, prefix = '', kind: 'files' | 'dirs' = 'files'): string[] {
    const roots = this.rootsOf(saltenv);
    const start = checkPrefix(prefix);
    const out = new Set<string>();
    for (const root of roots) {
      let realRoot: string;
      try {
        realRoot = fs.realpathSync.native(root);
      } catch {
        continue;
      }
      this.walk(realRoot, start, kind, out);
    }
    return [...out].sort();
  }

  private walk(realRoot: string, start: string, kind: 'files' | 'dirs', out: Set<string>): void {
    // a prefix may name a directory or be a leading part of names (Salt's prefix match)
    const dirPart = start.includes('/') ? start.slice(0, start.lastIndexOf('/')) : '';
    const stack: string[] = [dirPart];
    const seen = new Set<string>();
    while (stack.length > 0) {
      const rel = stack.pop()!;
      const abs = rel === '' ? realRoot : path.join(realRoot, rel);
      let real: string;
      try {
        real = fs.realpathSync.native(abs);
      } catch {
        continue;
      }
      // a symlinked directory leading outside (or a loop) is not listed
      if (!inside(realRoot, real) || seen.has(real)) continue;
      seen.add(real);
      let entries: fs.Dirent[];
      try {
        entries = fs.readdirSync(abs, { withFileTypes: true });
      } catch {
        continue;
      }
      if (rel !== '' && kind === 'dirs' && rel.startsWith(start) && !this.ignored(rel)) out.add(rel);
      for (const e of entries) {
        const childRel = rel === '' ? e.name : `${rel}/${e.name}`;
        if (this.ignored(childRel)) continue;
        if (!childRel.startsWith(start) && !start.startsWith(`${childRel}/`)) continue;
        let isDir = e.isDirectory();
        let isFile = e.isFile();
        if (e.isSymbolicLink()) {
          try {
            const target = fs.realpathSync.native(path.join(abs, e.name));
            if (!inside(realRoot, target)) continue;
            const st = fs.statSync(target);
            isDir = st.isDirectory();
            isFile = st.isFile();
          } catch {
            continue;
          }
        }
        if (isDir) stack.push(childRel);
        else if (isFile && kind === 'files') out.add(childRel);
        if (out.size > MAX_LISTED) throw new BrineError('EXEC_FAILED', `saltenv listing has more than ${MAX_LISTED} entries; narrow it with a prefix`);
      }
    }
  }
}
