// SHA-256 of served files, remembered by path, mtime, ctime and size, so stat-ing a big file
// again (every cache_file checks first) does not read it again unless it changed.

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';

const MAX_ENTRIES = 10_000;
const READ_CHUNK = 1 << 20;

interface Entry {
  mtimeNs: bigint;
  ctimeNs: bigint;
  size: number;
  sha256: string;
}

/** SHA-256 of a whole file, read in bounded chunks. */
export function sha256File(file: string): string {
  const hash = createHash('sha256');
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(READ_CHUNK);
    for (;;) {
      const n = fs.readSync(fd, buf, 0, READ_CHUNK, null);
      if (n === 0) break;
      hash.update(buf.subarray(0, n));
    }
  } finally {
    fs.closeSync(fd);
  }
  return hash.digest('hex');
}

export class HashCache {
  private readonly entries = new Map<string, Entry>();
  /** Files actually read to hash them (tests check that a repeated stat reads nothing). */
  computed = 0;

  hash(file: string): string {
    return this.hashOf(file, fs.statSync(file, { bigint: true }));
  }

  /** The same, given the file's stat just taken by the caller (one stat less per request). */
  hashOf(file: string, s: fs.BigIntStats): string {
    const size = Number(s.size);
    const hit = this.entries.get(file);
    if (hit && hit.mtimeNs === s.mtimeNs && hit.ctimeNs === s.ctimeNs && hit.size === size) return hit.sha256;
    const sha256 = sha256File(file);
    this.computed++;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(file, { mtimeNs: s.mtimeNs, ctimeNs: s.ctimeNs, size, sha256 });
    return sha256;
  }
}
