// The FileClient a minion uses, over any FileSource: salt:// URLs parsed and checked, files
// cached under `<cachedir>/files/<saltenv>/<path>` and transferred only when the cached copy's
// SHA-256 differs from the source's. Chunks are pipelined (a few in flight) and the whole file
// is verified against the hash before it atomically replaces the cached copy.

import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BrineError } from '../util/errors.js';
import type { FileClient, FileStat } from '../modules/index.js';
import type { FileChunk, FileSource, SyncFileSource } from './file-source.js';
import { notFound } from './file-source.js';
import { HashCache } from './hash-cache.js';
import { checkPrefix, checkRelativePath, checkSaltenv, parseSaltUrl } from './path-check.js';

export interface CachingClientOptions {
  cachedir: string;
  /** Bytes asked for per chunk (file_buffer_size). */
  chunkSize: number;
  /** Chunks in flight at once. */
  window?: number;
}

/** A file that changes while it is copied is fetched again, this many times at most. */
const MAX_ATTEMPTS = 3;

export class CachingFileClient implements FileClient {
  private readonly hashes = new HashCache();
  /** One transfer per cached file at a time; a second caller waits for the first. */
  private readonly inFlight = new Map<string, Promise<{ localPath: string; stat: FileStat }>>();
  /** Whole-file transfers made (a cached hit makes none). */
  transfers = 0;

  constructor(
    readonly source: FileSource,
    private readonly opts: CachingClientOptions,
  ) {}

  listEnvs(): Promise<string[]> {
    return this.source.listEnvs();
  }

  async listFiles(saltenv: string, prefix = ''): Promise<string[]> {
    return this.source.list(checkSaltenv(saltenv), checkPrefix(stripScheme(prefix)), 'files');
  }

  async listDirs(saltenv: string, prefix = ''): Promise<string[]> {
    return this.source.list(checkSaltenv(saltenv), checkPrefix(stripScheme(prefix)), 'dirs');
  }

  async stat(url: string, saltenv: string): Promise<FileStat | undefined> {
    const p = parseSaltUrl(url, saltenv);
    return this.source.stat(p.saltenv, p.path);
  }

  /**
   * This client for one job (FileClient.forRun): a file's stat, or its absence, is remembered
   * for the job's life, so cacheFile of a file the job has seen asks the source nothing while
   * the cached copy's hash is the remembered one, and only for its bytes when it is not.
   */
  forRun(): FileClient {
    const memo = new Map<string, FileStat | undefined>();
    const keyOf = (url: string, saltenv: string) => {
      const p = parseSaltUrl(url, saltenv);
      return { p, key: `${p.saltenv}\0${p.path}` };
    };
    return {
      listEnvs: () => this.listEnvs(),
      listFiles: (saltenv, prefix) => this.listFiles(saltenv, prefix),
      listDirs: (saltenv, prefix) => this.listDirs(saltenv, prefix),
      stat: async (url, saltenv) => {
        const { p, key } = keyOf(url, saltenv);
        if (memo.has(key)) return memo.get(key);
        const stat = await this.source.stat(p.saltenv, p.path);
        memo.set(key, stat);
        return stat;
      },
      cacheFile: async (url, saltenv) => {
        const { p, key } = keyOf(url, saltenv);
        const known = memo.get(key);
        if (memo.has(key) && !known) throw notFound(p.path, p.saltenv);
        try {
          const got = await this.cacheChecked(p.saltenv, p.path, known);
          memo.set(key, got.stat);
          return got;
        } catch (err) {
          if (err instanceof BrineError && err.code === 'FILE_NOT_FOUND') memo.set(key, undefined);
          throw err;
        }
      },
    };
  }

  /** Where a file of the environment is (or would be) cached. */
  cachePath(saltenv: string, rel: string): string {
    return path.join(this.opts.cachedir, 'files', checkSaltenv(saltenv), checkRelativePath(rel));
  }

  /** The cached copy's path if one exists (cp.is_cached); no source is asked. */
  cachedCopy(url: string, saltenv: string): string | undefined {
    const p = parseSaltUrl(url, saltenv);
    const local = this.cachePath(p.saltenv, p.path);
    return fs.existsSync(local) ? local : undefined;
  }

  // async, so a refused path is a rejected promise like every other failure
  async cacheFile(url: string, saltenv: string): Promise<{ localPath: string; stat: FileStat }> {
    const p = parseSaltUrl(url, saltenv);
    return this.cacheChecked(p.saltenv, p.path);
  }

  /** cacheFile of a checked path; `known`: a stat already asked for, used for the first attempt. */
  private cacheChecked(saltenv: string, rel: string, known?: FileStat): Promise<{ localPath: string; stat: FileStat }> {
    const key = `${saltenv}\0${rel}`;
    const running = this.inFlight.get(key);
    if (running) return running;
    const job = this.fetch(saltenv, rel, known).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, job);
    return job;
  }

  /**
   * cacheFile without waiting, for a source that reads this machine's disk (LocalFileSource):
   * the same checks, cache path and verified atomic replace, on the calling thread.
   */
  cacheFileSync(url: string, saltenv: string): { localPath: string; stat: FileStat } {
    const source = this.source as Partial<SyncFileSource>;
    if (typeof source.statSync !== 'function' || typeof source.readSync !== 'function') {
      throw new BrineError('INTERNAL', 'cacheFileSync needs a source on this machine (file_client: local)');
    }
    const sync = source as SyncFileSource;
    const p = parseSaltUrl(url, saltenv);
    const localPath = this.cachePath(p.saltenv, p.path);
    for (let attempt = 1; ; attempt++) {
      const stat = sync.statSync(p.saltenv, p.path);
      if (!stat) throw notFound(p.path, p.saltenv);
      if (this.cachedHash(localPath) === stat.sha256) return { localPath, stat };
      if (this.transferSync(sync, p.saltenv, p.path, stat, localPath)) return { localPath, stat };
      if (attempt >= MAX_ATTEMPTS) throw changedEachTime(p.path, p.saltenv);
    }
  }

  private async fetch(saltenv: string, rel: string, known?: FileStat): Promise<{ localPath: string; stat: FileStat }> {
    const localPath = this.cachePath(saltenv, rel);
    for (let attempt = 1; ; attempt++) {
      // a changed file fails the transfer's hash check: the next attempt asks the source again
      const stat = attempt === 1 && known ? known : await this.source.stat(saltenv, rel);
      if (!stat) throw notFound(rel, saltenv);
      if (this.cachedHash(localPath) === stat.sha256) return { localPath, stat };
      const got = await this.transfer(saltenv, rel, stat, localPath);
      if (got) return { localPath, stat };
      if (attempt >= MAX_ATTEMPTS) throw changedEachTime(rel, saltenv);
    }
  }

  private cachedHash(localPath: string): string | undefined {
    try {
      return fs.statSync(localPath).isFile() ? this.hashes.hash(localPath) : undefined;
    } catch {
      return undefined;
    }
  }

  /** Copies the file into a temporary file beside the cached one; false when the hash did not match (it changed meanwhile). */
  private async transfer(saltenv: string, rel: string, stat: FileStat, localPath: string): Promise<boolean> {
    const { tmp, fd } = openTemp(localPath);
    const hash = createHash('sha256');
    let ok = false;
    try {
      let offset = 0;
      const first = await this.source.read(saltenv, rel, 0, this.opts.chunkSize);
      // the source may cap the chunk size; later chunks use what it actually sends
      const chunk = first.data.length > 0 ? first.data.length : this.opts.chunkSize;
      const pending = new Map<number, Promise<{ data: Buffer; eof: boolean }>>();
      let next = first.data.length;
      const window = Math.max(1, this.opts.window ?? 4);
      let current: { data: Buffer; eof: boolean } = first;
      for (;;) {
        fs.writeSync(fd, current.data, 0, current.data.length, offset);
        hash.update(current.data);
        offset += current.data.length;
        if (current.eof || current.data.length === 0) break;
        // keep `window` chunks requested ahead of the one being written
        while (pending.size < window && next < stat.size) {
          pending.set(next, this.source.read(saltenv, rel, next, chunk));
          next += chunk;
        }
        const waiting = pending.get(offset);
        if (!waiting) break; // the file grew or shrank; the hash check below decides
        pending.delete(offset);
        current = await waiting;
      }
      // settle reads still in flight so none rejects unobserved
      await Promise.allSettled(pending.values());
      ok = this.complete(fd, tmp, hash.digest('hex'), stat, localPath);
      return ok;
    } finally {
      if (!ok) discard(fd, tmp);
    }
  }

  /** transfer() for a synchronous source: one chunk after another. */
  private transferSync(source: SyncFileSource, saltenv: string, rel: string, stat: FileStat, localPath: string): boolean {
    const { tmp, fd } = openTemp(localPath);
    const hash = createHash('sha256');
    let ok = false;
    try {
      let offset = 0;
      for (;;) {
        const current: FileChunk = source.readSync(saltenv, rel, offset, this.opts.chunkSize);
        fs.writeSync(fd, current.data, 0, current.data.length, offset);
        hash.update(current.data);
        offset += current.data.length;
        if (current.eof || current.data.length === 0) break;
      }
      ok = this.complete(fd, tmp, hash.digest('hex'), stat, localPath);
      return ok;
    } finally {
      if (!ok) discard(fd, tmp);
    }
  }

  /** Closes the written temporary file and puts it in place if its hash is the source's; false when it is not (it changed meanwhile). */
  private complete(fd: number, tmp: string, sha256: string, stat: FileStat, localPath: string): boolean {
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    if (sha256 !== stat.sha256) return false;
    // keep the execute bits (cmd.script runs cached files); the owner can always read and write
    fs.chmodSync(tmp, (stat.mode & 0o777) | 0o600);
    fs.renameSync(tmp, localPath);
    this.transfers++;
    return true;
  }
}

/** A new temporary file beside the cached one (the same directory, so the rename is atomic). */
function openTemp(localPath: string): { tmp: string; fd: number } {
  fs.mkdirSync(path.dirname(localPath), { recursive: true, mode: 0o700 });
  const tmp = path.join(path.dirname(localPath), `.${path.basename(localPath).slice(0, 32)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  return { tmp, fd: fs.openSync(tmp, 'wx', 0o600) };
}

/** Removes an unfinished temporary file (its descriptor may already be closed). */
function discard(fd: number, tmp: string): void {
  try {
    fs.closeSync(fd);
  } catch {
    // already closed
  }
  fs.rmSync(tmp, { force: true });
}

function changedEachTime(rel: string, saltenv: string): BrineError {
  return new BrineError('FILESERVER_UNAVAILABLE', `salt://${rel} (saltenv ${saltenv}) changed on the file server during each of ${MAX_ATTEMPTS} transfers; try again once it stops changing`);
}

function stripScheme(p: string): string {
  return p.startsWith('salt://') ? p.slice('salt://'.length) : p;
}
