// Stage "render", its input side: where SLS files and top.sls come from. The state system reads
// them through this small interface, so the pure stages run in tests on an in-memory tree and in
// the minion on the salt:// file client (master or local file_roots).

import { readFile } from 'node:fs/promises';
import type { FileClient } from '../modules/index.js';

export interface SlsFiles {
  /** The text of a file relative to the environment's root, or undefined when no root has it. */
  read(path: string, saltenv: string): Promise<string | undefined>;
  /** The environments (file_roots keys). */
  listEnvs(): Promise<string[]>;
}

/** SLS files through the salt:// file client: fetched into the minion's cache, then read. */
export function fileClientFiles(files: FileClient): SlsFiles {
  return {
    read: async (path, saltenv) => {
      const stat = await files.stat(path, saltenv);
      if (!stat) return undefined;
      const { localPath } = await files.cacheFile(path, saltenv);
      return readFile(localPath, 'utf8');
    },
    listEnvs: () => files.listEnvs(),
  };
}

/** An in-memory tree (`{ base: { 'web/init.sls': '...' } }`), for tests and state.single. */
export function memoryFiles(tree: Readonly<Record<string, Readonly<Record<string, string>>>>): SlsFiles {
  return {
    read: async (path, saltenv) => {
      const env = Object.hasOwn(tree, saltenv) ? tree[saltenv] : undefined;
      return env && Object.hasOwn(env, path) ? env[path] : undefined;
    },
    listEnvs: async () => Object.keys(tree).sort(),
  };
}

/** `a.b` -> `a/b.sls`, else `a/b/init.sls` (Salt's lookup order). */
export async function findSls(files: SlsFiles, sls: string, saltenv: string): Promise<{ path: string; text: string } | undefined> {
  const base = sls.replace(/\./g, '/');
  for (const path of [`${base}.sls`, `${base}/init.sls`]) {
    const text = await files.read(path, saltenv);
    if (text !== undefined) return { path, text };
  }
  return undefined;
}
