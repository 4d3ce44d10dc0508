// Crash-safe small-file writes, the one copy every layer uses (key files, the master pin, the
// minion's return queue): a temporary file in the same directory, fsync, then rename, so a
// reader sees either the old content or the new one, never a torn file.

import { randomBytes } from 'node:crypto';
import * as nodeFs from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** The fs calls made, so a caller's tests can inject ENOSPC/EACCES without a full disk. */
export type AtomicWriteFs = Pick<typeof nodeFs, 'openSync' | 'fchmodSync' | 'writeSync' | 'fsyncSync' | 'closeSync' | 'renameSync' | 'unlinkSync'>;

export interface AtomicWriteOptions {
  /** The file's exact mode (the umask is not applied). */
  mode: number;
  /** fsync the file and its directory (default true); off only for tests and benchmarks. */
  fsync?: boolean;
  fs?: AtomicWriteFs;
}

/** Temporary files start with a dot and end with this, so listings and loaders can skip them. */
export const ATOMIC_TMP_SUFFIX = '.tmp';

/**
 * Writes `data` to `path` atomically with exactly the given mode. The temporary name starts
 * with a dot so that key-store listings never show it. Throws the raw fs error; callers turn
 * it into a coded error naming their context.
 */
export function writeFileAtomicSync(path: string, data: string, modeOrOptions: number | AtomicWriteOptions): void {
  const opts = typeof modeOrOptions === 'number' ? { mode: modeOrOptions } : modeOrOptions;
  const fs = opts.fs ?? nodeFs;
  const sync = opts.fsync ?? true;
  const dir = dirname(path);
  // Only a prefix of the name: a 255-character minion ID plus a suffix would exceed NAME_MAX.
  const tmp = join(dir, `.${basename(path).slice(0, 32)}.${process.pid}.${randomBytes(6).toString('hex')}${ATOMIC_TMP_SUFFIX}`);
  let fd: number | undefined;
  try {
    fd = fs.openSync(tmp, 'wx', opts.mode);
    fs.fchmodSync(fd, opts.mode); // the umask narrowed the mode given to open (0644 would become 0600)
    const buf = Buffer.from(data);
    // writeSync may write less than asked; loop until it is all out
    for (let off = 0; off < buf.length; ) off += fs.writeSync(fd, buf, off, buf.length - off);
    if (sync) fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    fs.renameSync(tmp, path);
  } catch (err) {
    if (fd !== undefined) closeQuietly(fs, fd);
    try {
      fs.unlinkSync(tmp);
    } catch {
      // already renamed or never created
    }
    throw err;
  }
  if (sync) fsyncDirectory(dir, fs);
}

/** Makes a rename or unlink in `dir` durable. Best effort: some filesystems refuse it. */
export function fsyncDirectory(dir: string, fs: Pick<AtomicWriteFs, 'openSync' | 'fsyncSync' | 'closeSync'> = nodeFs): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // not fatal: the rename itself has happened
  } finally {
    if (fd !== undefined) closeQuietly(fs, fd);
  }
}

function closeQuietly(fs: Pick<AtomicWriteFs, 'closeSync'>, fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // nothing useful to do
  }
}
