// The master's git_pillar remotes (every `git` ext_pillar entry's) kept fetched as one target of
// GitRemotesUpdater, on git_pillar_update_interval (Salt's master maintenance loop), and fetched
// at once for `brine git-pillar update` (Salt's `salt-run git_pillar.update branch= repo=`).

import type { Clock } from '../util/clock.js';
import { BrineError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import type { GitRemotes, RemoteIdentity, RemoteStatus, RemoteUpdate } from '../fileserver/git/index.js';
import { GIT_PILLAR_STATUS_FILE, GitRemotesUpdater, type GitRemotesTarget } from './gitfs-updater.js';

class GitPillarTarget implements GitRemotesTarget {
  readonly role = 'git_pillar';

  constructor(private readonly pools: readonly GitRemotes[]) {}

  get tickMs(): number {
    return Math.min(...this.pools.map((p) => p.tickMs));
  }

  async update(onlyDue: boolean, only?: (c: RemoteIdentity) => boolean): Promise<RemoteUpdate[]> {
    const out: RemoteUpdate[] = [];
    for (const p of this.pools) out.push(...(await p.update(onlyDue, only)));
    return out;
  }

  status(): RemoteStatus[] {
    return this.pools.flatMap((p) => p.status());
  }

  close(): void {
    for (const p of this.pools) p.close();
  }
}

export class GitPillarUpdates {
  private readonly target: GitPillarTarget;
  private readonly updater: GitRemotesUpdater;

  constructor(pools: readonly GitRemotes[], cachedir: string, clock: Clock, logger: Logger) {
    this.target = new GitPillarTarget(pools);
    this.updater = new GitRemotesUpdater(this.target, GIT_PILLAR_STATUS_FILE, cachedir, clock, logger);
    if (pools.length > 0) this.updater.start();
  }

  /** Fetches the remotes now (those matching `branch` and `repo` when given); BAD_ARGUMENTS when none match. */
  update(branch?: string, repo?: string): Promise<RemoteUpdate[]> {
    const pools = this.target.status().length;
    if (pools === 0) return Promise.reject(new BrineError('BAD_ARGUMENTS', 'No git_pillar remotes are configured; add a `git` entry to ext_pillar (docs/pillar.md, "git_pillar")'));
    if (branch === undefined && repo === undefined) return this.updater.updateNow();
    const only = (c: RemoteIdentity) => (branch === undefined || c.branch === branch) && (repo === undefined || c.url === repo || c.name === repo);
    return this.updater.after(
      this.target.update(false, only).then((r) => {
        if (r.length === 0) throw new BrineError('BAD_ARGUMENTS', 'Specified git branch/repo not found in ext_pillar config; `brine doctor master` lists the git_pillar remotes');
        return r;
      }),
    );
  }

  close(): void {
    this.updater.close();
  }
}
