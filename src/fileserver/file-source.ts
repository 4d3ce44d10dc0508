// Where a file client gets salt:// files from: the master over the session (src/minion) or the
// minion's own file_roots (LocalFileSource, masterless). Paths reaching a source are already
// checked (path-check.ts); a source checks them again where it touches the disk.

import { BrineError } from '../util/errors.js';
import type { FileStat } from '../modules/index.js';
import { readFileChunk, type FileRoots } from './roots.js';
import type { FileBackend } from './backend.js';

export interface FileChunk {
  data: Buffer;
  /** The chunk ends the file. */
  eof: boolean;
}

export interface FileSource {
  listEnvs(): Promise<string[]>;
  list(saltenv: string, prefix: string, kind: 'files' | 'dirs'): Promise<string[]>;
  /** undefined when no root of the environment has the file. */
  stat(saltenv: string, path: string): Promise<FileStat | undefined>;
  /** Up to `length` bytes at `offset` (a source may send less; never more). */
  read(saltenv: string, path: string, offset: number, length: number): Promise<FileChunk>;
}

/**
 * A source that can also answer without waiting (it reads this machine's disk): a job worker's
 * blocking syncHost.readFile then fetches on its own thread (CachingFileClient.cacheFileSync).
 */
export interface SyncFileSource {
  statSync(saltenv: string, path: string): FileStat | undefined;
  readSync(saltenv: string, path: string, offset: number, length: number): FileChunk;
}

/** The minion's own file_roots (file_client: local). */
export class LocalFileSource implements FileSource, SyncFileSource {
  constructor(readonly roots: FileRoots) {}

  async listEnvs(): Promise<string[]> {
    return this.roots.envs();
  }

  async list(saltenv: string, prefix: string, kind: 'files' | 'dirs'): Promise<string[]> {
    return this.roots.list(saltenv, prefix, kind);
  }

  async stat(saltenv: string, path: string): Promise<FileStat | undefined> {
    return this.statSync(saltenv, path);
  }

  async read(saltenv: string, path: string, offset: number, length: number): Promise<FileChunk> {
    return this.readSync(saltenv, path, offset, length);
  }

  statSync(saltenv: string, path: string): FileStat | undefined {
    return this.roots.find(saltenv, path)?.stat;
  }

  readSync(saltenv: string, path: string, offset: number, length: number): FileChunk {
    return readFromRoots(this.roots, saltenv, path, offset, length);
  }
}

/** One chunk read from a backend: the master's file_read and the local source share it. */
export function readFromRoots(roots: FileBackend, saltenv: string, path: string, offset: number, length: number): FileChunk {
  const found = roots.find(saltenv, path);
  if (!found) throw notFound(path, saltenv);
  const data = readFileChunk(found, offset, length);
  return { data, eof: offset + data.length >= found.stat.size };
}

export function notFound(path: string, saltenv: string): BrineError {
  return new BrineError('FILE_NOT_FOUND', `salt://${path} is in no file root of saltenv ${saltenv}; check it with cp.list_master saltenv=${saltenv}`);
}
