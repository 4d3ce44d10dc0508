// The `file` module, basic half: read, write, append, touch, remove, mkdir, file_exists,
// directory_exists, contains, chmod, chown. Salt's names, argument order and returns.

import { open, readFile, readdir, writeFile, appendFile, chmod, chown, lchown, lstat, mkdir, rm, stat, utimes } from 'node:fs/promises';
import path from 'node:path';
import { BrineError } from '../util/errors.js';
import { absPath, formatMode, fsError, parseMode } from './file-common.js';
import { fileReplaceFunction } from './file-replace.js';
import { fileStatFunctions } from './file-stat.js';
import { fileGrepFunction } from './file-grep.js';
import { compilePythonRegex } from './python-regex.js';
import type { ModuleFunction } from './types.js';
import { defineFunction, defineParam } from './define-function.js';
import { findGroup, findUser, readGroups, readPasswd } from './user-db.js';

const PATH = defineParam({ name: 'path', type: 'string', required: true, doc: 'absolute path' });

async function exists(p: string): Promise<boolean> {
  return lstat(p).then(
    () => true,
    () => false,
  );
}

/** Salt's write/append take lines as *args, or as args= (a list or one value). */
function linesOf(rest: readonly unknown[], extra: Record<string, unknown>): string[] {
  const fromKw = Object.hasOwn(extra, 'args') ? extra.args : undefined;
  const lines = fromKw === undefined ? rest : Array.isArray(fromKw) ? fromKw : [fromKw];
  return lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l)));
}

function rejectExtra(fun: string, extra: Record<string, unknown>, allowed: readonly string[]): void {
  const bad = Object.keys(extra).filter((k) => !allowed.includes(k));
  if (bad.length > 0) throw new BrineError('BAD_ARGUMENTS', `${fun}: unexpected keyword argument '${bad[0]}'`);
}

/** Searches a file in chunks, keeping an overlap so a match across two chunks is still found. */
async function fileContains(p: string, needle: Buffer): Promise<boolean> {
  if (needle.length === 0) return true;
  const fh = await open(p, 'r');
  try {
    const chunk = Buffer.alloc(65536);
    let carry = Buffer.alloc(0);
    for (;;) {
      const { bytesRead } = await fh.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) return false;
      const window = Buffer.concat([carry, chunk.subarray(0, bytesRead)]);
      if (window.includes(needle)) return true;
      carry = window.subarray(Math.max(0, window.length - needle.length + 1));
    }
  } finally {
    await fh.close();
  }
}

/** Epoch seconds as Salt's touch takes them (an int, or digits). */
function epoch(fun: string, what: string, v: unknown): number | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  const n = typeof v === 'number' ? v : /^\d+$/.test(String(v)) ? Number(v) : NaN;
  if (!Number.isFinite(n)) throw new BrineError('BAD_ARGUMENTS', `${fun}: ${what} must be seconds since the epoch (an integer), got '${String(v)}'`);
  return n;
}

async function uidOf(fun: string, user: string | undefined): Promise<number> {
  if (user === undefined || user === '') return -1;
  const u = findUser(await readPasswd(fun), user);
  if (!u) throw new BrineError('EXEC_FAILED', `${fun}: user '${user}' does not exist on this host; check the name with user.info`);
  return u.uid;
}

async function gidOf(fun: string, group: string | undefined): Promise<number> {
  if (group === undefined || group === '') return -1;
  const g = findGroup(await readGroups(fun), group);
  if (!g) throw new BrineError('EXEC_FAILED', `${fun}: group '${group}' does not exist on this host; check the name with group.info`);
  return g.gid;
}

const basicFunctions: ModuleFunction[] = [
  defineFunction({
    name: 'file.read',
    doc: 'Return the contents of a file (binary=true returns it base64-encoded).',
    params: [PATH, { name: 'binary', type: 'bool', default: false, doc: 'return base64 of the raw bytes' }],
    run: async (_ctx, a) => {
      const p = absPath('file.read', a.named.path);
      const data = await readFile(p).catch((e: unknown) => Promise.reject(fsError('file.read', p, e)));
      return a.named.binary ? data.toString('base64') : data.toString('utf8');
    },
  }),
  defineFunction({
    name: 'file.write',
    doc: 'Replace the contents of a file with the given lines, each ending in a newline.',
    params: [PATH],
    varargs: true,
    kwargs: true,
    run: async (_ctx, a) => {
      rejectExtra('file.write', a.extra, ['args']);
      const p = absPath('file.write', a.named.path);
      const lines = linesOf(a.rest, a.extra);
      await writeFile(p, lines.map((l) => `${l}\n`).join('')).catch((e: unknown) => Promise.reject(fsError('file.write', p, e)));
      return `Wrote ${lines.length} lines to "${p}"`;
    },
  }),
  defineFunction({
    name: 'file.append',
    doc: 'Append lines to an existing file, first adding a newline if the file does not end with one.',
    params: [PATH],
    varargs: true,
    kwargs: true,
    run: async (_ctx, a) => {
      rejectExtra('file.append', a.extra, ['args']);
      const p = absPath('file.append', a.named.path);
      const lines = linesOf(a.rest, a.extra);
      try {
        // As in Salt the file must exist: append never creates it.
        const st = await stat(p);
        let prefix = '';
        if (st.size > 0) {
          const fh = await open(p, 'r');
          try {
            const last = Buffer.alloc(1);
            await fh.read(last, 0, 1, st.size - 1);
            if (last[0] !== 0x0a) prefix = '\n';
          } finally {
            await fh.close();
          }
        }
        await appendFile(p, prefix + lines.map((l) => `${l}\n`).join(''));
      } catch (e) {
        throw fsError('file.append', p, e);
      }
      return `Wrote ${lines.length} lines to "${p}"`;
    },
  }),
  defineFunction({
    name: 'file.touch',
    doc: 'Create a file if missing and set its access and modification times (default: now).',
    params: [
      { name: 'name', type: 'string', required: true, doc: 'absolute path' },
      { name: 'atime', type: 'any', doc: 'access time, seconds since the epoch' },
      { name: 'mtime', type: 'any', doc: 'modification time, seconds since the epoch' },
    ],
    run: async (_ctx, a) => {
      const p = absPath('file.touch', a.named.name);
      const now = Date.now() / 1000;
      const at = epoch('file.touch', 'atime', a.named.atime) ?? now;
      const mt = epoch('file.touch', 'mtime', a.named.mtime) ?? now;
      try {
        if (!(await exists(p))) await writeFile(p, '', { flag: 'a' });
        await utimes(p, at, mt);
      } catch (e) {
        throw fsError('file.touch', p, e);
      }
      return true;
    },
  }),
  defineFunction({
    name: 'file.remove',
    doc: 'Remove a file, a symlink or a whole directory tree; false if nothing was there.',
    params: [PATH],
    kwargs: true,
    run: async (_ctx, a) => {
      const p = absPath('file.remove', a.named.path);
      if (path.resolve(p) === '/') throw new BrineError('BAD_ARGUMENTS', "file.remove: refusing to remove '/'");
      if (!(await exists(p))) return false;
      // rm does not follow symlinks: removing a link never removes what it points to.
      await rm(p, { recursive: true, force: true }).catch((e: unknown) => Promise.reject(fsError('file.remove', p, e)));
      return true;
    },
  }),
  defineFunction({
    name: 'file.mkdir',
    doc: 'Create a directory and any missing parents, optionally setting owner, group and mode on those created.',
    params: [
      { name: 'dir_path', type: 'string', required: true, doc: 'absolute path of the directory' },
      { name: 'user', type: 'string', doc: 'owner of the created directories' },
      { name: 'group', type: 'string', doc: 'group of the created directories' },
      { name: 'mode', type: 'any', doc: "octal mode of the created directories, e.g. '755'" },
    ],
    run: async (_ctx, a) => {
      const fun = 'file.mkdir';
      const p = absPath(fun, a.named.dir_path);
      const mode = a.named.mode === undefined ? undefined : parseMode(fun, a.named.mode);
      const uid = await uidOf(fun, a.named.user);
      const gid = await gidOf(fun, a.named.group);
      const created: string[] = [];
      for (let d = path.resolve(p); !(await exists(d)); d = path.dirname(d)) created.unshift(d);
      try {
        await mkdir(p, { recursive: true });
        for (const d of created) {
          if (mode !== undefined) await chmod(d, mode);
          if (uid !== -1 || gid !== -1) await chown(d, uid, gid);
        }
      } catch (e) {
        throw fsError(fun, p, e);
      }
      return true;
    },
  }),
  defineFunction({
    name: 'file.file_exists',
    doc: 'True if the path exists and is a regular file (symlinks followed).',
    params: [PATH],
    run: async (_ctx, a) => {
      const p = absPath('file.file_exists', a.named.path);
      return (await stat(p).catch(() => undefined))?.isFile() ?? false;
    },
  }),
  defineFunction({
    name: 'file.directory_exists',
    doc: 'True if the path exists and is a directory (symlinks followed).',
    params: [PATH],
    run: async (_ctx, a) => {
      const p = absPath('file.directory_exists', a.named.path);
      return (await stat(p).catch(() => undefined))?.isDirectory() ?? false;
    },
  }),
  defineFunction({
    name: 'file.readdir',
    doc: "The entries of a directory, after '.' and '..' (Salt's order: as the directory lists them).",
    params: [PATH],
    run: async (_ctx, a) => {
      const p = absPath('file.readdir', a.named.path);
      // Salt raises SaltInvocationError("A valid directory was not specified.")
      if (!(await stat(p).catch(() => undefined))?.isDirectory()) throw new BrineError('EXEC_FAILED', `file.readdir: A valid directory was not specified: ${p}`);
      return ['.', '..', ...(await readdir(p))];
    },
  }),
  defineFunction({
    name: 'file.contains',
    doc: 'True if the file contains the text (surrounding whitespace of the text ignored); false if the file is missing, as in Salt.',
    params: [PATH, { name: 'text', type: 'string', required: true, doc: 'text to look for, searched literally' }],
    run: async (_ctx, a) => {
      const p = absPath('file.contains', a.named.path);
      if (!(await exists(p))) return false;
      const needle = Buffer.from(a.named.text.trim(), 'utf8');
      return fileContains(p, needle).catch((e: unknown) => Promise.reject(fsError('file.contains', p, e)));
    },
  }),
  defineFunction({
    name: 'file.contains_regex',
    doc: 'True if a line of the file matches the Python regular expression (after stripping lchar from its start); false if the file is missing.',
    params: [
      PATH,
      { name: 'regex', type: 'string', required: true, doc: 'Python regular expression, searched in each line' },
      { name: 'lchar', type: 'string', default: '', doc: 'characters stripped from the start of each line first' },
    ],
    run: async (_ctx, a) => {
      const p = absPath('file.contains_regex', a.named.path);
      if (!(await exists(p))) return false;
      const re = compilePythonRegex('file.contains_regex', a.named.regex, 0);
      const text = await readFile(p, 'utf8').catch(() => undefined);
      // Salt returns False when the file cannot be read
      if (text === undefined) return false;
      const strip = a.named.lchar === '' ? undefined : new RegExp(`^[${a.named.lchar.replace(/[\\\]^-]/g, '\\$&')}]+`);
      const search = (t: string): boolean => {
        re.lastIndex = 0;
        return re.test(t);
      };
      // Python iterates lines with their newline, and its `$` also matches before that newline
      for (const raw of text.split(/(?<=\n)/)) {
        const line = strip ? raw.replace(strip, '') : raw;
        if (search(line) || search(line.replace(/\n$/, ''))) return true;
      }
      return false;
    },
  }),
  defineFunction({
    name: 'file.chmod',
    doc: "Set the mode of a path and return the new mode as Salt prints it ('0644').",
    params: [PATH, { name: 'mode', type: 'any', required: true, doc: "octal mode, e.g. 644 or '0755'" }],
    run: async (_ctx, a) => {
      const p = absPath('file.chmod', a.named.path);
      const mode = parseMode('file.chmod', a.named.mode);
      try {
        await chmod(p, mode);
        return formatMode((await stat(p)).mode);
      } catch (e) {
        throw fsError('file.chmod', p, e);
      }
    },
  }),
  defineFunction({
    name: 'file.chown',
    doc: 'Set the owner and group of a path (names or numeric ids; an empty one is left unchanged); returns null like Salt.',
    params: [PATH, { name: 'user', type: 'string', required: true, doc: "user name or uid ('' keeps it)" }, { name: 'group', type: 'string', required: true, doc: "group name or gid ('' keeps it)" }],
    run: async (_ctx, a) => {
      const fun = 'file.chown';
      const p = absPath(fun, a.named.path);
      const uid = await uidOf(fun, a.named.user);
      const gid = await gidOf(fun, a.named.group);
      const st = await lstat(p).catch((e: unknown) => Promise.reject(fsError(fun, p, e)));
      // A dangling symlink: change the link itself, as Salt does with lchown.
      const target = await stat(p).catch(() => undefined);
      await (target ? chown(p, uid, gid) : st.isSymbolicLink() ? lchown(p, uid, gid) : chown(p, uid, gid)).catch((e: unknown) => Promise.reject(fsError(fun, p, e)));
      return null;
    },
  }),
];

export const fileFunctions: readonly ModuleFunction[] = [...basicFunctions, ...fileStatFunctions, fileReplaceFunction, fileGrepFunction];
