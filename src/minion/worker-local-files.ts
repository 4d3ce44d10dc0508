// salt:// served inside a job worker when the files are this machine's own file_roots
// (file_client: local, brine call --local): the same CachingFileClient(LocalFileSource) as the
// host thread, over the same cache directory, so a state run reads its files without a host
// round trip per file. Concurrent writers of one cached file are safe: each writes its own
// temporary file and renames it into place after checking its hash.

import * as fs from 'node:fs';
import { CachingFileClient } from '../fileserver/caching-client.js';
import { LocalFileSource } from '../fileserver/file-source.js';
import { FileRoots, type FileRootsConfig } from '../fileserver/roots.js';
import { BrineError } from '../util/errors.js';
import type { ExecResult, SyncHost } from '../modules/index.js';

let cached: { key: string; client: CachingFileClient } | undefined;

/** The settings the client is built from; a worker kept for the next call rebuilds only when they change. */
function keyOf(config: Readonly<Record<string, unknown>>): string {
  return JSON.stringify([config.file_roots, config.root_dir, config.file_ignore_regex, config.file_ignore_glob, config.cachedir, config.file_buffer_size]);
}

/** The worker's client for a call's config (kept while the config stays the same: its hash cache carries over). */
export function localFileClient(config: Readonly<Record<string, unknown>>): CachingFileClient {
  const key = keyOf(config);
  if (cached?.key !== key) {
    const client = new CachingFileClient(new LocalFileSource(new FileRoots(config as FileRootsConfig)), {
      cachedir: String(config.cachedir),
      chunkSize: typeof config.file_buffer_size === 'number' ? config.file_buffer_size : 262144,
    });
    cached = { key, client };
  }
  return cached.client;
}

/** syncHost with readFile answered on this thread; blocking calls still go to the host (`call`). */
export function localSyncHost(client: CachingFileClient, call: SyncHost['call']): SyncHost {
  return {
    call: (fun, arg, kwarg): ExecResult => call(fun, arg, kwarg),
    readFile: (url, saltenv) => {
      try {
        return fs.readFileSync(client.cacheFileSync(url, saltenv).localPath, 'utf8');
      } catch (err) {
        if (err instanceof BrineError && err.code === 'FILE_NOT_FOUND') return undefined;
        throw err;
      }
    },
  };
}
