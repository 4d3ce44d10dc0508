// The gitfs backend: the remotes of gitfs_remotes, each a GitMirror under
// <cachedir>/gitfs/<name or URL hash>/, mapped to saltenvs (env-map.ts) and served from the
// materialised tree of each commit with file_roots' rules (FileRoots: path checks, ignores,
// symlinks leading out of the tree refused, SHA-256 per file). Updates run in the background
// and swap in a new view only when complete; reads never wait for git. A remote that fails to
// fetch keeps its last good refs (RemoteHealth).

import * as path from 'node:path';
import type { Logger } from '../../util/logger.js';
import { checkPrefix, checkRelativePath, checkSaltenv } from '../path-check.js';
import { FileRoots, type FoundFile } from '../roots.js';
import type { FileBackend } from '../backend.js';
import { GitMirror, type GitRefs } from './git-mirror.js';
import { envSources, type EnvSource } from './env-map.js';
import { readGitfsRemotes, type GitfsOptions, type GitfsRemote } from './remote-config.js';
import { RemoteHealth, type RemoteStatus } from './remote-health.js';

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

export interface RemoteUpdate {
  remote: string;
  ok: boolean;
  changed: boolean;
  error?: string;
}

interface RemoteState {
  config: GitfsRemote;
  mirror: GitMirror;
  health: RemoteHealth;
  refs?: GitRefs;
  /** Commit IDs named by a sha-type ref that the clone has. */
  commits: Set<string>;
  /** Commits whose trees the current view serves. */
  serving: Set<string>;
  nextDueMs: number;
}

export class GitfsBackend implements FileBackend {
  readonly name = 'gitfs';
  private readonly remotes: RemoteState[];
  /** saltenv -> trees in remote order; replaced whole after an update. */
  private view = new Map<string, EnvTree[]>();
  /** FileRoots per tree directory, kept across updates so unchanged trees keep their hashes. */
  private rootsByDir = new Map<string, FileRoots>();
  private running: Promise<RemoteUpdate[]> | undefined;
  private queued: Promise<RemoteUpdate[]> | undefined;
  private warmed = false;
  private readonly stop = new AbortController();

  constructor(
    private readonly opts: GitfsBackendOptions,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {
    const base = path.join(opts.cachedir, 'gitfs');
    this.remotes = readGitfsRemotes(opts).map((config) => ({
      config,
      mirror: new GitMirror(path.join(base, config.cacheName), config.url, config.auth, base, this.stop.signal),
      health: new RemoteHealth(config.shown),
      commits: new Set(),
      serving: new Set(),
      nextDueMs: 0,
    }));
  }

  /** The smallest update interval of the remotes (ms), for the updater's timer. */
  get tickMs(): number {
    return Math.min(...this.remotes.map((r) => r.config.updateIntervalS * 1000), 3_600_000);
  }

  /** Kills the git commands of an update in progress; the current view keeps being served. */
  close(): void {
    this.stop.abort();
  }

  status(): RemoteStatus[] {
    return this.remotes.map((r) => ({ ...r.health.status(), serving: r.refs !== undefined && r.refs.branches.size + r.refs.tags.size > 0 }));
  }

  /**
   * Fetches the remotes (all, or only those whose update_interval has passed) and swaps in the
   * new view. Single-flight: an interval update while one runs gets that run's result; an asked-for
   * update (brine fileserver update) waits for it and then fetches again, so its answer is about
   * the remotes as they are after the request (one queued run serves every caller waiting).
   */
  update(onlyDue = false): Promise<RemoteUpdate[]> {
    if (this.running && onlyDue) return this.running;
    if (this.running) {
      this.queued ??= this.running.then(
        () => this.start(false),
        () => this.start(false),
      );
      return this.queued;
    }
    return this.start(onlyDue);
  }

  private start(onlyDue: boolean): Promise<RemoteUpdate[]> {
    this.queued = undefined;
    this.running = this.runUpdate(onlyDue).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async runUpdate(onlyDue: boolean): Promise<RemoteUpdate[]> {
    if (!this.warmed) {
      // after a restart, serve the clones already on disk while the first fetch runs
      this.warmed = true;
      for (const r of this.remotes) if (r.refs === undefined && r.mirror.cloned()) r.refs = await r.mirror.refs().catch(() => undefined);
      await this.rebuild();
    }
    const results: RemoteUpdate[] = [];
    for (const r of this.remotes) {
      if (onlyDue && this.now() < r.nextDueMs) continue;
      r.nextDueMs = this.now() + r.config.updateIntervalS * 1000;
      results.push(await this.fetchOne(r));
    }
    await this.rebuild();
    return results;
  }

  private async fetchOne(r: RemoteState): Promise<RemoteUpdate> {
    try {
      const got = await r.mirror.fetch();
      r.refs = got.refs;
      r.commits = await this.shaRefs(r);
      const recovered = r.health.succeeded(this.now());
      if (recovered) this.logger.info({ remote: r.config.shown }, `gitfs remote ${r.config.shown} is reachable again; serving its current refs`);
      return { remote: r.config.shown, ok: true, changed: got.changed };
    } catch (err) {
      const message = (err as Error).message;
      if (r.refs === undefined) r.refs = await r.mirror.refs().catch(() => undefined);
      const first = r.health.failed(this.now(), message);
      if (first) {
        const serving = r.refs === undefined ? 'nothing is served from it until a fetch succeeds' : 'the last good checkout is still served';
        this.logger.warn(
          { remote: r.config.shown, code: 'GITFS_REMOTE_UNREACHABLE' },
          `GITFS_REMOTE_UNREACHABLE: gitfs remote ${r.config.shown} could not be fetched: ${message}; ${serving}. Check its URL and credentials, then run 'brine fileserver update'`,
        );
      }
      return { remote: r.config.shown, ok: false, changed: false, error: message };
    }
  }

  /** The commit IDs used as refs (gitfs_base, saltenv ref, fallback) that the clone holds. */
  private async shaRefs(r: RemoteState): Promise<Set<string>> {
    const c = r.config;
    const named = [c.base, c.fallback, c.allSaltenvs, ...[...c.saltenv.values()].map((s) => s.ref ?? '')].filter((x) => /^[0-9a-f]{40}$/.test(x));
    const out = new Set<string>();
    for (const sha of named) if (await r.mirror.hasCommit(sha)) out.add(sha);
    return out;
  }

  private async rebuild(): Promise<void> {
    const perRemote: Map<string, EnvSource>[] = this.remotes.map((r) => (r.refs ? envSources(r.config, r.refs, r.commits) : new Map()));
    const all = new Set(perRemote.flatMap((m) => [...m.keys()]));
    const view = new Map<string, EnvTree[]>();
    const rootsByDir = new Map<string, FileRoots>();
    for (const [i, r] of this.remotes.entries()) {
      if (!r.refs) continue;
      // fallback serves the environments the other gitfs remotes have and this one lacks
      const sources = r.config.fallback === '' ? perRemote[i]! : envSources(r.config, r.refs, r.commits, all);
      const used = new Set<string>();
      for (const [env, src] of sources) {
        let dir: string;
        try {
          dir = await r.mirror.tree(src.commit);
        } catch (err) {
          this.logger.error({ remote: r.config.shown, env, err: (err as Error).message }, `gitfs could not check out ${src.ref} of ${r.config.shown}; saltenv ${env} is not served from it`);
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
      const keep = new Set([...used, ...r.serving]);
      r.serving = used;
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
function underMountpoint(rel: string, mountpoint: string): string | undefined {
  if (mountpoint === '') return rel;
  if (rel === mountpoint) return '';
  return rel.startsWith(`${mountpoint}/`) ? rel.slice(mountpoint.length + 1) : undefined;
}
