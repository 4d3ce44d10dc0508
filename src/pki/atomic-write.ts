// Crash-safe small-file writes: a temporary file in the same directory, fsync, then rename, so a
// reader sees either the old content or the new one, never a torn key file.

import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Writes `data` to `path` atomically with exactly `mode` (the umask is not applied).
 * The temporary name starts with a dot so that key-store listings never show it.
 * Throws the raw fs error; callers turn it into a coded error naming their context.
 */
export function writeFileAtomicSync(path: string, data: string, mode: number): void {
  const dir = dirname(path);
  // Only a prefix of the name: a 255-character minion ID plus a suffix would exceed NAME_MAX.
  const tmp = join(dir, `.${basename(path).slice(0, 32)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(tmp, 'wx', mode);
    fchmodSync(fd, mode); // the umask narrowed the mode given to open (0644 would become 0600)
    writeFileSync(fd, data);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, path);
  } catch (err) {
    if (fd !== undefined) closeQuietly(fd);
    try {
      unlinkSync(tmp);
    } catch {
      // already renamed or never created
    }
    throw err;
  }
  fsyncDirectory(dir);
}

/** Makes a rename or unlink in `dir` durable. Best effort: some filesystems refuse it. */
export function fsyncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // not fatal: the rename itself has happened
  } finally {
    if (fd !== undefined) closeQuietly(fd);
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // nothing useful to do
  }
}
