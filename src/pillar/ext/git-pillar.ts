// The `git` ext_pillar (Salt's git_pillar): each remote's checkout is a pillar tree with its own
// top file for its environment, rendered for the minion as Salt's ext_pillar in
// salt/pillar/git_pillar.py does (one nested pillar render per remote, merged in order with
// pillar_source_merging_strategy). The master keeps the remotes fetched (GitRemotePool, on
// git_pillar_update_interval); a render never fetches, it reads the last good refs. A remote never
// fetched, or whose branch is gone, fails the render with EXT_PILLAR_FAILED naming it.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { GitRemotePool, type PoolMember } from '../../fileserver/git/index.js';
import { BrineError } from '../../util/errors.js';
import type { PillarData } from '../../util/dict-merge.js';
import { MountedPillarSource, rootsCache, type MountedDir } from '../mounted-source.js';
import { type GitPillarOptions, type GitPillarRemote, includesOf, readGitPillarRemotes } from './git-pillar-config.js';
import { checkoutCommit, checkoutTarget, envOf, envsOffered } from './git-pillar-env.js';
import type { ExtPillarContext, ExtPillarKind, ExtPillarSetup, ExtPillarSource } from './types.js';

/** One checkout of the render (Salt's pillar_dirs entry). */
interface PillarDir extends MountedDir {
  readonly env: string;
}

class GitPillarSource implements ExtPillarSource {
  readonly remotes: GitRemotePool<GitPillarRemote>;
  private readonly includes: boolean;
  private readonly gitPillarBase: string;
  private readonly rootsOf = rootsCache();
  /** Commits whose trees a render may be reading (kept one more round when refs move). */
  private kept = new Set<string>();

  constructor(
    readonly label: string,
    remotes: readonly GitPillarRemote[],
    opts: GitPillarOptions,
    setup: ExtPillarSetup,
  ) {
    this.includes = includesOf(opts);
    this.gitPillarBase = typeof opts.git_pillar_base === 'string' && opts.git_pillar_base !== '' ? opts.git_pillar_base : 'master';
    if (setup.cachedir === undefined || setup.logger === undefined) throw new BrineError('INTERNAL', `${label}: git_pillar needs the master's cachedir and logger`);
    // one directory per entry: two entries may list the same remote with other parameters
    const entryDir = createHash('sha256').update(label).digest('hex').slice(0, 16);
    this.remotes = new GitRemotePool(remotes, {
      role: 'git_pillar',
      code: 'GIT_PILLAR_REMOTE_UNREACHABLE',
      updateCommand: 'brine git-pillar update',
      cacheRoot: path.join(setup.cachedir, 'git_pillar', entryDir),
      logger: setup.logger,
      now: Date.now,
      onRound: async () => this.prune(),
    });
  }

  stamp(): string {
    // a commit's tree never changes: the refs say everything about the data
    const h = createHash('sha256');
    for (const m of this.remotes.members) {
      h.update(`${m.config.cacheName}\n`);
      for (const [k, v] of [...(m.refs?.branches ?? []), ...(m.refs?.tags ?? [])]) h.update(`${k} ${v}\n`);
    }
    return h.digest('hex');
  }

  envs(): string[] {
    return [...new Set(this.remotes.members.flatMap((m) => envsOffered(m.config, m.refs)))];
  }

  async run(ctx: ExtPillarContext): Promise<PillarData> {
    const trees = ctx.trees;
    if (trees === undefined) throw new BrineError('INTERNAL', `${this.label}: rendered without the pillar compiler`);
    const pillarenv = trees.pillarenv;
    const dirs: PillarDir[] = [];
    for (const m of this.remotes.members) {
      const d = await this.checkout(m, pillarenv);
      if (d !== undefined) dirs.push(d);
    }
    let ret: PillarData = {};
    for (const d of dirs) {
      // salt/pillar/git_pillar.py: `env: __env__` maps to the pillarenv, else git_pillar_base
      const env = d.env === '__env__' ? (pillarenv ?? this.gitPillarBase) : d.env;
      if (pillarenv !== undefined && env !== pillarenv) continue;
      // a remote with a mountpoint serves the others' includes only
      if (d.mountpoint !== '') continue;
      const roots: MountedDir[] = [d, ...(this.includes ? dirs.filter((o) => o !== d && o.env === env) : [])];
      const r = await trees.render(new MountedPillarSource(env, roots, this.rootsOf), pillarenv);
      if (r.errors.length > 0) throw new BrineError('EXT_PILLAR_FAILED', `${this.label}: ${r.errors.join('; ')}`);
      ret = trees.merge(ret, r.pillar);
    }
    return ret;
  }

  /** The checkout directory of one remote for this render, or undefined when `__env__` has no such branch. */
  private async checkout(m: PoolMember<GitPillarRemote>, pillarenv: string | undefined): Promise<PillarDir | undefined> {
    const c = m.config;
    const st = m.health.status();
    // a failed first fetch leaves an empty clone: nothing was ever fetched from this remote
    if (m.refs === undefined || (st.lastSuccess === undefined && m.refs.branches.size + m.refs.tags.size === 0)) {
      const why = st.lastError;
      throw new BrineError(
        'EXT_PILLAR_FAILED',
        `${this.label}: remote ${c.shown} has not been fetched${why ? ` (${why})` : ' yet'}; check its URL and credentials, then run 'brine git-pillar update'`,
      );
    }
    const target = checkoutTarget(c, pillarenv);
    const commit = checkoutCommit(c, m.refs, target);
    if (commit === undefined) {
      // Salt logs "Failed to checkout" and leaves the remote out; with __env__ that is a
      // pillarenv this remote has no branch for, but a fixed branch that is gone is an error
      if (c.branch === '__env__') return undefined;
      throw new BrineError('EXT_PILLAR_FAILED', `${this.label}: remote ${c.shown} has no branch or tag ${JSON.stringify(target)}; push it, or fix the branch in the ext_pillar entry`);
    }
    this.kept.add(commit);
    const tree = await m.mirror.tree(commit);
    const dir = c.root === '' ? tree : path.join(tree, c.root);
    if (!fs.existsSync(dir)) throw new BrineError('EXT_PILLAR_FAILED', `${this.label}: remote ${c.shown} has no directory ${c.root} (its root) on ${target}; fix root or push the directory`);
    return { dir, mountpoint: c.mountpoint, env: envOf(c, pillarenv) };
  }

  /** Removes trees of commits no ref names any more, keeping those served since the last round. */
  private prune(): void {
    const now = new Set<string>();
    for (const m of this.remotes.members) for (const c of [...(m.refs?.branches.values() ?? []), ...(m.refs?.tags.values() ?? [])]) now.add(c);
    const keep = new Set([...now, ...this.kept]);
    this.kept = new Set();
    for (const m of this.remotes.members) m.mirror.pruneTrees(keep);
  }
}

export const GIT: ExtPillarKind = {
  name: 'git',
  parse(value: unknown, setup: ExtPillarSetup): ExtPillarSource {
    const opts = (setup.options ?? {}) as GitPillarOptions;
    return new GitPillarSource(setup.label, readGitPillarRemotes(value, opts, setup.label), opts, setup);
  },
};
