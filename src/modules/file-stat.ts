// The `file` module's inspection functions: file.stats (and its short name file.stat) and
// file.get_hash, with Salt's return shapes.

import { createHash } from 'node:crypto';
import { createReadStream, type Stats } from 'node:fs';
import { lstat, realpath, stat } from 'node:fs/promises';
import { BrineError, errnoCode } from '../util/errors.js';
import { absPath, formatMode, fsError } from './file-common.js';
import type { ModuleFunction } from './types.js';
import { defineFunction, defineParams } from './define-function.js';
import { readGroups, readPasswd } from './user-db.js';

// Salt accepts hashlib's names; Node's OpenSSL spells some differently. A Map, so that a
// caller-given name never reaches an object prototype.
const HASHES = new Map<string, string>([
  ['md5', 'md5'],
  ['sha1', 'sha1'],
  ['sha224', 'sha224'],
  ['sha256', 'sha256'],
  ['sha384', 'sha384'],
  ['sha512', 'sha512'],
  ['sha3_224', 'sha3-224'],
  ['sha3_256', 'sha3-256'],
  ['sha3_384', 'sha3-384'],
  ['sha3_512', 'sha3-512'],
  ['blake2b', 'blake2b512'],
  ['blake2s', 'blake2s256'],
]);

export async function hashFile(fun: string, p: string, form: string): Promise<string> {
  const algo = HASHES.get(form.toLowerCase());
  if (!algo) throw new BrineError('BAD_ARGUMENTS', `${fun}: invalid hash type '${form}'; use one of ${[...HASHES.keys()].join(', ')}`);
  const st = await stat(p).catch((e: unknown) => Promise.reject(fsError(fun, p, e)));
  if (st.isDirectory()) throw new BrineError('EXEC_FAILED', `${fun}: '${p}' is a directory; give a file`);
  const h = createHash(algo);
  await new Promise<void>((resolve, reject) => {
    createReadStream(p)
      .on('data', (b) => h.update(b))
      .on('end', resolve)
      .on('error', (e) => reject(fsError(fun, p, e)));
  });
  return h.digest('hex');
}

function typeOf(st: Stats): string {
  if (st.isSymbolicLink()) return 'link';
  if (st.isDirectory()) return 'dir';
  if (st.isCharacterDevice()) return 'char';
  if (st.isBlockDevice()) return 'block';
  if (st.isFIFO()) return 'pipe';
  if (st.isSocket()) return 'socket';
  return 'file';
}

const STATS_PARAMS = defineParams([
  { name: 'path', type: 'string', required: true, doc: 'absolute path' },
  { name: 'hash_type', type: 'string', doc: "also return the file's hash as `sum` (md5, sha1, sha256, sha512...)" },
  { name: 'follow_symlinks', type: 'bool', default: true, doc: 'describe the target of a symlink rather than the link' },
]);

async function stats(fun: string, rawPath: string, hashType: string | undefined, follow: boolean): Promise<Record<string, unknown>> {
  const p = absPath(fun, rawPath);
  let st: Stats;
  try {
    st = follow ? await stat(p) : await lstat(p);
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') throw new BrineError('EXEC_FAILED', `${fun}: path not found: ${p}`, { details: { path: p } });
    throw fsError(fun, p, e);
  }
  const [users, groups] = await Promise.all([readPasswd(fun), readGroups(fun)]);
  const ret: Record<string, unknown> = {
    inode: st.ino,
    uid: st.uid,
    gid: st.gid,
    // Salt prints '' for an id without a name.
    user: users.find((u) => u.uid === st.uid)?.name ?? '',
    group: groups.find((g) => g.gid === st.gid)?.name ?? '',
    atime: st.atimeMs / 1000,
    mtime: st.mtimeMs / 1000,
    ctime: st.ctimeMs / 1000,
    size: st.size,
    mode: formatMode(st.mode),
    type: typeOf(st),
    target: await realpath(p).catch(() => p),
  };
  if (hashType) ret.sum = await hashFile(fun, p, hashType);
  return ret;
}

function statsFunction(name: string, doc: string): ModuleFunction {
  return defineFunction({
    name,
    doc,
    params: STATS_PARAMS,
    run: (_ctx, a) => stats(name, a.named.path, a.named.hash_type, a.named.follow_symlinks),
  });
}

/** file.get_user / file.get_group: one field of file.stats, as Salt's get_user returns stats()['user']. */
function ownerFunction(name: string, field: 'user' | 'group', doc: string): ModuleFunction {
  return defineFunction({
    name,
    doc,
    params: [STATS_PARAMS[0], STATS_PARAMS[2]],
    run: async (_ctx, a) => (await stats(name, a.named.path, undefined, a.named.follow_symlinks))[field],
  });
}

export const fileStatFunctions: readonly ModuleFunction[] = [
  ownerFunction('file.get_user', 'user', "The name of the user owning the path ('' when the uid has no name)."),
  ownerFunction('file.get_group', 'group', "The name of the group owning the path ('' when the gid has no name)."),
  statsFunction('file.stats', 'Return {inode, uid, gid, user, group, atime, mtime, ctime, size, mode, type, target} of a path.'),
  statsFunction('file.stat', 'Same as file.stats: inode, owner, times, size, mode, type and target of a path.'),
  defineFunction({
    name: 'file.get_hash',
    doc: 'Return the hex digest of a file (sha256 by default; md5, sha1, sha224, sha384, sha512, sha3_*, blake2b/s).',
    params: [
      { name: 'path', type: 'string', required: true, doc: 'absolute path of a file' },
      { name: 'form', type: 'string', default: 'sha256', doc: 'hash algorithm' },
      { name: 'chunk_size', type: 'int', default: 65536, doc: 'accepted for compatibility; the file is streamed' },
    ],
    run: (_ctx, a) => hashFile('file.get_hash', absPath('file.get_hash', a.named.path), a.named.form),
  }),
  defineFunction({
    name: 'file.check_hash',
    doc: "True when the file's digest is file_hash ('<type>=<hex>', '<type>:<hex>', or a bare hex digest whose length names md5/sha1/sha224/sha256/sha384/sha512).",
    params: [
      { name: 'path', type: 'string', required: true, doc: 'absolute path of a file' },
      { name: 'file_hash', type: 'string', required: true, doc: 'e.g. sha256=<hex> or a bare digest' },
    ],
    run: async (_ctx, a) => {
      const fun = 'file.check_hash';
      const { type, hex } = splitHash(fun, a.named.file_hash);
      return (await hashFile(fun, absPath(fun, a.named.path), type)) === hex;
    },
  }),
];

// Salt's HASHES_REVMAP: the hash type a bare digest's length names
const BY_LENGTH = new Map([
  [32, 'md5'],
  [40, 'sha1'],
  [56, 'sha224'],
  [64, 'sha256'],
  [96, 'sha384'],
  [128, 'sha512'],
]);

/** salt/modules/file.py check_hash: split at the first ':' or '=', else the type from the length. */
function splitHash(fun: string, fileHash: string): { type: string; hex: string } {
  const sep = [':', '='].find((c) => fileHash.includes(c));
  if (sep) {
    const i = fileHash.indexOf(sep);
    return { type: fileHash.slice(0, i), hex: fileHash.slice(i + 1) };
  }
  const type = BY_LENGTH.get(fileHash.length);
  if (!type) throw new BrineError('BAD_ARGUMENTS', `${fun}: Hash ${fileHash} (length: ${fileHash.length}) could not be matched to a supported hash type; write it as <type>=<hex>`);
  return { type, hex: fileHash };
}
