// The pillar tree git_pillar renders for one environment: directories in order (the remote's
// own checkout first, then with git_pillar_includes the other remotes of that environment),
// each at its mountpoint, read with the file server's path rules (FileRoots: a symlink leading
// out of its tree is refused). The first directory that has a file wins, as in pillar_roots.

import * as fs from 'node:fs';
import { FileRoots, slsNameOf } from '../fileserver/index.js';
import { underMountpoint } from '../fileserver/git/index.js';
import type { PillarSource } from './source.js';

export interface MountedDir {
  readonly dir: string;
  /** '' = at the top of the environment. */
  readonly mountpoint: string;
}

export class MountedPillarSource implements PillarSource {
  private readonly trees: { mountpoint: string; roots: FileRoots }[];

  constructor(
    private readonly env: string,
    dirs: readonly MountedDir[],
    rootsOf: (dir: string) => FileRoots,
  ) {
    this.trees = dirs.map((d) => ({ mountpoint: d.mountpoint, roots: rootsOf(d.dir) }));
  }

  envs(): string[] {
    return [this.env];
  }

  read(relPath: string, env: string): { text: string; file: string } | undefined {
    if (env !== this.env) return undefined;
    for (const t of this.trees) {
      const inner = underMountpoint(relPath, t.mountpoint);
      if (inner === undefined || inner === '') continue;
      const found = t.roots.find('base', inner);
      if (found) return { text: fs.readFileSync(found.realPath, 'utf8'), file: found.realPath };
    }
    return undefined;
  }

  slsNames(env: string): string[] {
    if (env !== this.env) return [];
    const out = new Set<string>();
    for (const t of this.trees) {
      for (const f of t.roots.list('base', '', 'files')) {
        const n = slsNameOf(t.mountpoint === '' ? f : `${t.mountpoint}/${f}`);
        if (n !== undefined && n !== 'top') out.add(n);
      }
    }
    return [...out].sort();
  }
}

/** One FileRoots per checkout directory (its hashes and listings are reused across renders). */
export function rootsCache(): (dir: string) => FileRoots {
  const cache = new Map<string, FileRoots>();
  return (dir) => {
    let roots = cache.get(dir);
    if (roots === undefined) {
      roots = new FileRoots({ file_roots: { base: [dir] } });
      // a commit's tree never changes; old ones are pruned, so the map is bounded by the remotes
      if (cache.size > 256) cache.clear();
      cache.set(dir, roots);
    }
    return roots;
  };
}
