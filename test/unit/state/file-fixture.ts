// Test fixtures for the file and archive states: a temp dir per test file, a StateContext built
// by createStateContext with a real execution registry, and a small FileClient over a temp
// "file root" (the real master-side file server is tested on its own).

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FileClient, FileStat } from '../../../src/modules/index.js';
import { createStateContext, type StateContext, type StateFunction, type StateResult } from '../../../src/state/index.js';
import { bindArguments } from '../../../src/modules/index.js';
import { BrineError } from '../../../src/util/errors.js';

/** A new temp dir the test file removes itself (in its after hook). */
export { newTempDir as tempDir } from '../../helpers/paths.js';

/** A FileClient reading one environment (`base`) from a directory, caching into another. */
export class DirFileClient implements FileClient {
  fetched = 0;
  constructor(
    readonly root: string,
    readonly cache: string,
  ) {}

  private rel(url: string): string {
    const rel = url.replace(/^salt:\/\//, '').replace(/\?.*$/, '');
    if (rel.split('/').includes('..') || path.isAbsolute(rel)) throw new BrineError('PATH_REFUSED', `refused ${url}`);
    return rel;
  }

  private walk(dir: string, files: boolean): string[] {
    const out: string[] = [];
    const go = (d: string) => {
      for (const e of fs.readdirSync(path.join(this.root, d), { withFileTypes: true })) {
        const r = d === '' ? e.name : `${d}/${e.name}`;
        if (e.isDirectory()) {
          if (!files) out.push(r);
          go(r);
        } else if (files) out.push(r);
      }
    };
    if (fs.existsSync(path.join(this.root, dir))) go(dir);
    return out.sort();
  }

  async listEnvs(): Promise<string[]> {
    return ['base'];
  }
  async listFiles(saltenv: string, prefix = ''): Promise<string[]> {
    if (saltenv !== 'base') return [];
    return this.walk('', true).filter((f) => prefix === '' || f.startsWith(prefix.replace(/\/?$/, '/')));
  }
  async listDirs(saltenv: string, prefix = ''): Promise<string[]> {
    if (saltenv !== 'base') return [];
    return this.walk('', false).filter((f) => prefix === '' || f.startsWith(prefix.replace(/\/?$/, '/')) || f === prefix);
  }
  async stat(url: string, saltenv: string): Promise<FileStat | undefined> {
    const rel = this.rel(url);
    const p = path.join(this.root, rel);
    if (saltenv !== 'base' || !fs.existsSync(p) || !fs.statSync(p).isFile()) return undefined;
    const data = fs.readFileSync(p);
    return { path: rel, sha256: createHash('sha256').update(data).digest('hex'), size: data.length, mode: fs.statSync(p).mode & 0o7777 };
  }
  async cacheFile(url: string, saltenv: string): Promise<{ localPath: string; stat: FileStat }> {
    const st = await this.stat(url, saltenv);
    if (!st) throw new BrineError('FILE_NOT_FOUND', `${url} not found`);
    const localPath = path.join(this.cache, 'files', saltenv, st.path);
    fs.mkdirSync(path.dirname(localPath), { recursive: true });
    fs.copyFileSync(path.join(this.root, st.path), localPath);
    this.fetched++;
    return { localPath, stat: st };
  }
}

export interface RunOptions {
  test?: boolean;
  files?: FileClient;
  pillar?: Record<string, unknown>;
  cachedir?: string;
  /** Extra minion config options (module settings such as `hosts.file`). */
  config?: Record<string, unknown>;
}

/** Runs a state function the way the runtime does: bind the arguments, build the context, run. */
export async function runState(fn: StateFunction, kwarg: Record<string, unknown>, opts: RunOptions = {}): Promise<StateResult> {
  const ctx: StateContext = createStateContext({
    test: opts.test ?? false,
    exec: {
      grains: () => ({ id: 'web1', os: 'Debian' }),
      minionId: 'web1',
      config: { cachedir: opts.cachedir ?? path.join(os.tmpdir(), 'brine-unused-cache'), ...opts.config },
      signal: new AbortController().signal,
      jid: '20240101000000000000',
      files: opts.files,
      pillar: () => opts.pillar ?? {},
    },
    low: { __id__: String(kwarg.name), __sls__: 'test', state: fn.name.split('.')[0]!, fun: fn.name.split('.')[1]!, name: String(kwarg.name) },
  });
  const args = bindArguments({ name: fn.name, doc: fn.doc, params: fn.params, kwargs: fn.kwargs, run: () => undefined }, [], kwarg);
  return fn.run(ctx, args as never);
}

/** Every path under dir with its type, size, mode and content hash: equal snapshots mean nothing changed. */
export function snapshot(dir: string): string[] {
  const out: string[] = [];
  const go = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(d, e.name);
      const st = fs.lstatSync(p);
      let extra = '';
      if (e.isFile()) extra = createHash('sha256').update(fs.readFileSync(p)).digest('hex');
      else if (e.isSymbolicLink()) extra = fs.readlinkSync(p);
      out.push(`${path.relative(dir, p)} ${st.mode.toString(8)} ${st.uid}:${st.gid} ${st.mtimeMs} ${extra}`);
      if (e.isDirectory()) go(p);
    }
  };
  go(dir);
  return out;
}
