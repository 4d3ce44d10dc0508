// Where pillar SLS files come from: pillar_roots, per environment an ordered list of directories
// (the first that has a file wins), read with the file server's path checks so that a symlink
// cannot lead out of a root. The master reads its own pillar_roots; a masterless minion its own.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { BrineError } from '../util/errors.js';
import { FileRoots, slsNameOf } from '../fileserver/index.js';

/** What the pillar compiler reads. Synchronous: a Jinja import cannot await. */
export interface PillarSource {
  /** The pillar environments (pillar_roots keys), sorted. */
  envs(): string[];
  /** A file's text relative to the environment's root, or undefined when no root has it. */
  read(relPath: string, env: string): { text: string; file: string } | undefined;
  /** Every SLS name of the environment (for globs in the top file and in include). */
  slsNames(env: string): string[];
}

export interface PillarRootsConfig {
  root_dir?: unknown;
  pillar_roots?: unknown;
}

export const DEFAULT_PILLAR_ROOTS = { base: ['/srv/pillar'] };

/** pillar_roots on disk. Throws CONFIG_VALUE for a pillar_roots that is not a mapping of lists. */
export class PillarRoots implements PillarSource {
  readonly roots: FileRoots;

  constructor(config: PillarRootsConfig) {
    const raw = config.pillar_roots ?? DEFAULT_PILLAR_ROOTS;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw new BrineError('CONFIG_VALUE', 'pillar_roots must be a mapping of environment to a list of directories, e.g. {base: [/srv/pillar]}');
    }
    this.roots = new FileRoots({ root_dir: config.root_dir, file_roots: raw });
  }

  envs(): string[] {
    return this.roots.envs();
  }

  read(relPath: string, env: string): { text: string; file: string } | undefined {
    const found = this.roots.find(env, relPath);
    return found ? { text: fs.readFileSync(found.realPath, 'utf8'), file: found.realPath } : undefined;
  }

  slsNames(env: string): string[] {
    const out = new Set<string>();
    for (const f of this.roots.list(env, '', 'files')) {
      const n = slsNameOf(f);
      if (n !== undefined && n !== 'top') out.add(n);
    }
    return [...out].sort();
  }

  /**
   * A stamp of every file under every root (path, size, mtime, ctime, inode): it changes when any pillar file
   * is added, removed or edited, which is when cached pillar must be rendered again.
   */
  stamp(): string {
    const parts: string[] = [];
    for (const [env, dirs] of this.roots.roots) {
      for (const dir of dirs) walkStamp(dir, `${env}:${dir}`, parts, 0);
    }
    return parts.join('\n');
  }
}

/** The stamp of every file under some directories (file_tree's roots, gpg_keydir's secret keys). */
export function treeStamp(dirs: readonly string[]): string {
  const parts: string[] = [];
  for (const dir of dirs) walkStamp(dir, dir, parts, 0);
  return parts.join('\n');
}

function walkStamp(dir: string, label: string, out: string[], depth: number): void {
  if (depth > 64) return;
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    out.push(`${label}:absent`);
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const p = path.join(dir, e.name);
    let st: fs.Stats;
    try {
      st = fs.statSync(p);
    } catch {
      continue;
    }
    if (st.isDirectory()) walkStamp(p, `${label}/${e.name}`, out, depth + 1);
    // ctime and inode too: a deploy that keeps mtimes (rsync -t, cp -p) or renames a same-size
    // file into place still changes them
    else out.push(`${label}/${e.name}:${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}`);
  }
}

/** An in-memory tree (`{ base: { 'top.sls': '...' } }`), for unit tests and the benchmark's baseline. */
export function memoryPillarSource(tree: Readonly<Record<string, Readonly<Record<string, string>>>>): PillarSource {
  return {
    envs: () => Object.keys(tree).sort(),
    read: (relPath, env) => {
      const files = Object.hasOwn(tree, env) ? tree[env] : undefined;
      return files && Object.hasOwn(files, relPath) ? { text: files[relPath]!, file: `${env}/${relPath}` } : undefined;
    },
    slsNames: (env) => {
      const files = Object.hasOwn(tree, env) ? tree[env]! : {};
      return [
        ...new Set(
          Object.keys(files)
            .map(slsNameOf)
            .filter((n): n is string => n !== undefined && n !== 'top'),
        ),
      ].sort();
    },
  };
}
