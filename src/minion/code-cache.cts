// The job worker's V8 code cache file: the SHA-256 of the source it was made from, then V8's
// data. V8 itself checks a cache only against the source's length, so a cache from another build
// of the bundle could otherwise be accepted and run stale bytecode.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

const HASH_BYTES = 32;

export function sourceDigest(source: string | Buffer): Buffer {
  return createHash('sha256').update(source).digest();
}

/** The file's contents as written: digest, then V8's cached data. */
export function frameCodeCache(digest: Buffer, data: Buffer): Buffer {
  return Buffer.concat([digest, data]);
}

/** V8's cached data from `file` if it was made from the source with this digest, else undefined. */
export function readCodeCache(file: string, digest: Buffer): Buffer | undefined {
  try {
    const data = readFileSync(file);
    return data.length > HASH_BYTES && data.subarray(0, HASH_BYTES).equals(digest) ? data.subarray(HASH_BYTES) : undefined;
  } catch {
    return undefined; // no cache: the bundle compiles as usual
  }
}
