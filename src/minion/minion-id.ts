// Where the minion's ID comes from: config `id`, else the cached `minion_id` file, else the
// host's names with Salt's localhost filter. (Salt's full candidate algorithm is issue 4;
// this keeps its order for the sources used here and reports which one won.)

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isLocalhostLike } from '../util/minion-id.js';

export type IdSource = 'config' | 'cache' | 'fqdn' | 'hostname' | 'etc_hostname' | 'fallback';

export interface ResolvedId {
  id: string;
  source: IdSource;
  /** Set when the cache file was written by this resolution. */
  cachedTo?: string;
}

export interface IdSources {
  hostname(): string;
  readFile(file: string): string | undefined;
}

export const systemIdSources: IdSources = {
  hostname: () => os.hostname(),
  readFile: (file) => {
    try {
      return fs.readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
  },
};

export interface ResolveIdOptions {
  configuredId: string;
  /** The minion_id cache file (Salt: <config dir>/minion_id). */
  cacheFile: string;
  caching: boolean;
  lowercase: boolean;
  sources?: IdSources;
}

export function resolveMinionId(opts: ResolveIdOptions): ResolvedId {
  const src = opts.sources ?? systemIdSources;
  if (opts.configuredId) return { id: opts.configuredId, source: 'config' };
  if (opts.caching) {
    const cached = src.readFile(opts.cacheFile)?.split('\n')[0]?.replace(/^\uFEFF/, '').trim();
    if (cached && cached !== 'localhost') return { id: cached, source: 'cache' };
  }
  const candidates: Array<[string, IdSource]> = [];
  const host = src.hostname().trim();
  if (host) candidates.push([host, host.includes('.') ? 'fqdn' : 'hostname']);
  const etc = src.readFile('/etc/hostname')?.trim();
  if (etc) candidates.push([etc, 'etc_hostname']);
  const found = candidates.find(([name]) => name && !isLocalhostLike(name));
  let result: ResolvedId = found ? { id: found[0], source: found[1] } : { id: 'localhost', source: 'fallback' };
  if (opts.lowercase) result = { ...result, id: result.id.toLowerCase() };
  if (opts.caching) {
    try {
      fs.mkdirSync(path.dirname(opts.cacheFile), { recursive: true });
      fs.writeFileSync(opts.cacheFile, `${result.id}\n`, { mode: 0o644 });
      result.cachedTo = opts.cacheFile;
    } catch {
      // Salt logs and carries on; the caller logs the missing cache
    }
  }
  return result;
}
