// The gitfs backend: the remotes of gitfs_remotes, each a GitMirror under
// <cachedir>/gitfs/<name or URL hash>/, mapped to saltenvs (env-map.ts) and served from the
// materialised tree of each commit with file_roots' rules (FileRoots: path checks, ignores,
// symlinks leading out of the tree refused, SHA-256 per file). Updates run in the background
// and swap in a new view only when complete; reads never wait for git. A remote that fails to
// fetch keeps its last good refs (GitRemotePool).

import * as path from 'node:path';
import type { Logger } from '../../util/logger.js';
import { checkPrefix, checkRelativePath, checkSaltenv } from '../path-check.js';
import { FileRoots, type FoundFile } from '../roots.js';
import type { FileBackend } from '../backend.js';
import { envSources, type EnvSource } from './env-map.js';
import { readGitfsRemotes, type GitfsOptions, type GitfsRemote } from './remote-config.js';
import type { RemoteStatus } from './remote-health.js';
import { GitRemotePool, type PoolMember, type RemoteUpdate } from './remote-pool.js';
import { errorMessage } from '../../util/errors.js';

export interface GitfsBackendOptions extends GitfsOptions {
  cachedir: string;
  file_ignore_regex?: unknown;
  file_ignore_glob?: unknown;
}

/** One environment of one remote: where its files are and under which mountpoint. */
interface EnvTree {
  mountpoint: string;
  roots: FileRoots;
}

interface RemoteState {
  /** Commit IDs named by a sha-type ref that the clone has. */
  commits: Set<string>;
  /** Commits whose trees the current view serves. */
  serving: Set<string>;
}

export class GitfsBackend implements FileBackend {
  readonly name = 'gitfs';
  readonly role = 'gitfs';
  private readonly pool: GitRemotePool<GitfsRemote>;
  private readonly state = new Map<PoolMember<GitfsRemote>, RemoteState>();
  /** saltenv -> trees in remote order; replaced whole after an update. */
  private view = new Map<string, EnvTree[]>();
  /** FileRoots per tree directory, kept across updates so unchanged trees keep their hashes. */
  private rootsByDir = new Map<string, FileRoots>();

  constructor(
    private readonly opts: GitfsBackendOptions,
    private readonly logger: Logger,
    now: () => number = Date.now,
  ) {
    this.pool = new GitRemotePool(readGitfsRemotes(opts), {
      role: 'gitfs',
      code: 'GITFS_REMOTE_UNREACHABLE',
      updateCommand: 'brine fileserver update',
      cacheRoot: path.join(opts.cachedir, 'gitfs'),
      logger,
      now,
      onFetched: async (m) => {
        this.stateOf(m).commits = await this.shaRefs(m);
      },
      onRound: () => this.rebuild(),
    });
  }

  private stateOf(m: PoolMember<GitfsRemote>): RemoteState {
    let st = this.state.get(m);
    if (st === undefined) {
      st = { commits: new Set(), serving: new Set() };
      this.state.set(m, st);
    }
    return st;
  }

  /** The smallest update interval of the remotes (ms), for the updater's timer. */
  get tickMs(): number {
    return this.pool.tickMs;
  }

  /** Kills the git commands of an update in progress; the current view keeps being served. */
  close(): void {
    this.pool.close();
  }

  status(): RemoteStatus[] {
    return this.pool.status();
  }

  /**
   * Fetches the remotes (all, or only those whose update_interval has passed) and swaps in the
   * new view (GitRemotePool: an interval update joins a running one; an asked-for update, brine
   * fileserver update, waits for it and fetches again).
   */
  update(onlyDue = false): Promise<RemoteUpdate[]> {
    return this.pool.update(onlyDue);
  }

  /** The commit IDs used as refs (gitfs_base, saltenv ref, fallback) that the clone holds. */
  private async shaRefs(r: PoolMember<GitfsRemote>): Promise<Set<string>> {
    const c = r.config;
    const named = [c.base, c.fallback, c.allSaltenvs, ...[...c.saltenv.values()].map((s) => s.ref ?? '')].filter((x) => /^[0-9a-f]{40}$/.test(x));
    const out = new Set<string>();
    for (const sha of named) if (await r.mirror.hasCommit(sha)) out.add(sha);
    return out;
  }

  private async rebuild(): Promise<void> {
    const members = this.pool.members;
    const perRemote: Map<string, EnvSource>[] = members.map((r) => (r.refs ? envSources(r.config, r.refs, this.stateOf(r).commits) : new Map()));
    const all = new Set(perRemote.flatMap((m) => [...m.keys()]));
    const view = new Map<string, EnvTree[]>();
    const rootsByDir = new Map<string, FileRoots>();
    for (const [i, r] of members.entries()) {
      if (!r.refs) continue;
      const st = this.stateOf(r);
      // fallback serves the environments the other gitfs remotes have and this one lacks
      const sources = r.config.fallback === '' ? perRemote[i]! : envSources(r.config, r.refs, st.commits, all);
      const used = new Set<string>();
      for (const [env, src] of sources) {
        let dir: string;
        try {
          dir = await r.mirror.tree(src.commit);
        } catch (err) {
          this.logger.error({ remote: r.config.shown, env, err: errorMessage(err) }, `gitfs could not check out ${src.ref} of ${r.config.shown}; saltenv ${env} is not served from it`);
          continue;
        }
        used.add(src.commit);
        const root = src.root === '' ? dir : path.join(dir, src.root);
        const roots =
          this.rootsByDir.get(root) ??
          rootsByDir.get(root) ??
          new FileRoots({ file_roots: { base: [root] }, file_ignore_regex: this.opts.file_ignore_regex, file_ignore_glob: this.opts.file_ignore_glob });
        rootsByDir.set(root, roots);
        view.set(env, [...(view.get(env) ?? []), { mountpoint: src.mountpoint, roots }]);
      }
      // trees of the previous view stay one more update: a minion may be reading them now
      const keep = new Set([...used, ...st.serving]);
      st.serving = used;
      r.mirror.pruneTrees(keep);
    }
    this.view = view;
    this.rootsByDir = rootsByDir;
  }

  envs(): string[] {
    return [...this.view.keys()].sort();
  }

  find(saltenv: string, relPath: string): FoundFile | undefined {
    const rel = checkRelativePath(relPath);
    for (const t of this.view.get(checkSaltenv(saltenv)) ?? []) {
      const inner = underMountpoint(rel, t.mountpoint);
      if (inner === undefined || inner === '') continue;
      const found = t.roots.find('base', inner);
      if (found) return { realPath: found.realPath, stat: { ...found.stat, path: rel } };
    }
    return undefined;
  }

  list(saltenv: string, prefix: string, kind: 'files' | 'dirs'): string[] {
    const start = checkPrefix(prefix);
    const out = new Set<string>();
    for (const t of this.view.get(checkSaltenv(saltenv)) ?? []) {
      const mp = t.mountpoint;
      const inner = underMountpoint(start, mp);
      // a prefix inside the mountpoint narrows the walk; one above it lists the whole tree
      const names = t.roots.list('base', inner ?? '', kind).map((n) => (mp === '' ? n : `${mp}/${n}`));
      if (kind === 'dirs' && mp !== '') {
        const parts = mp.split('/');
        for (let i = 1; i <= parts.length; i++) names.push(parts.slice(0, i).join('/'));
      }
      for (const n of names) if (n.startsWith(start)) out.add(n);
    }
    return [...out].sort();
  }
}

/** `rel` relative to the mountpoint, or undefined when it is not under it. */
export function underMountpoint(rel: string, mountpoint: string): string | undefined {
  if (mountpoint === '') return rel;
  if (rel === mountpoint) return '';
  return rel.startsWith(`${mountpoint}/`) ? rel.slice(mountpoint.length + 1) : undefined;
}
