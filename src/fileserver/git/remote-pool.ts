// The remotes of one git consumer (gitfs, or one git ext_pillar entry) kept fresh on this
// machine: each a GitMirror under <cacheRoot>/<name or id hash>/ with its RemoteHealth and last
// fetched refs. Updates are serialised (never two git fetches of a pool at once); an interval
// round joins one already scheduled, an asked-for update waits for it and fetches again so its
// answer is about the remotes as they are after the request. A remote that fails to fetch keeps
// its last good refs, and the failure is logged once per streak with the consumer's code.

import * as path from 'node:path';
import type { Logger } from '../../util/logger.js';
import type { GitAuth } from './credentials.js';
import { GitMirror, type GitRefs } from './git-mirror.js';
import { RemoteHealth, type RemoteStatus } from './remote-health.js';
import { errorMessage } from '../../util/errors.js';

/** What the pool needs of a remote's configuration. */
export interface PoolRemoteConfig {
  url: string;
  shown: string;
  cacheName: string;
  updateIntervalS: number;
  auth: GitAuth;
}

/** What `brine git-pillar update --branch/--repo` can match a remote by. */
export interface RemoteIdentity {
  url: string;
  name?: string;
  branch?: string;
}

/** A pool as its owner's updater sees it (GitRemotesUpdater, the git_pillar update command). */
export interface GitRemotes {
  readonly tickMs: number;
  update(onlyDue: boolean, only?: (c: RemoteIdentity) => boolean): Promise<RemoteUpdate[]>;
  status(): RemoteStatus[];
  close(): void;
}

export interface PoolMember<C extends PoolRemoteConfig> {
  readonly config: C;
  readonly mirror: GitMirror;
  readonly health: RemoteHealth;
  /** The refs last fetched (or found on disk after a restart); undefined = nothing to serve. */
  refs?: GitRefs;
  nextDueMs: number;
}

export interface RemoteUpdate {
  remote: string;
  ok: boolean;
  changed: boolean;
  error?: string;
}

export interface RemotePoolOptions<C extends PoolRemoteConfig> {
  /** `gitfs` or `git_pillar`: how log lines name the remotes. */
  readonly role: string;
  /** GITFS_REMOTE_UNREACHABLE or GIT_PILLAR_REMOTE_UNREACHABLE. */
  readonly code: string;
  /** The command that fetches at once, for the log's advice. */
  readonly updateCommand: string;
  readonly cacheRoot: string;
  readonly logger: Logger;
  readonly now: () => number;
  /** After a successful fetch of one remote (gitfs resolves its commit-ID refs here). */
  readonly onFetched?: (m: PoolMember<C>) => Promise<void>;
  /** After each round, with every remote's refs as they now are. */
  readonly onRound: () => Promise<void>;
}

export class GitRemotePool<C extends PoolRemoteConfig> implements GitRemotes {
  readonly members: readonly PoolMember<C>[];
  private last: Promise<unknown> = Promise.resolve();
  private pending = 0;
  private current: Promise<RemoteUpdate[]> | undefined;
  private queuedAll: Promise<RemoteUpdate[]> | undefined;
  private warmed = false;
  private readonly stop = new AbortController();

  constructor(
    configs: readonly C[],
    private readonly opts: RemotePoolOptions<C>,
  ) {
    this.members = configs.map((config) => ({
      config,
      mirror: new GitMirror(path.join(opts.cacheRoot, config.cacheName), config.url, config.auth, opts.cacheRoot, this.stop.signal),
      health: new RemoteHealth(config.shown),
      nextDueMs: 0,
    }));
  }

  /** The smallest update interval of the remotes (ms), for the updater's timer. */
  get tickMs(): number {
    return Math.min(...this.members.map((r) => r.config.updateIntervalS * 1000), 3_600_000);
  }

  /** Kills the git commands of an update in progress; the current refs stay. */
  close(): void {
    this.stop.abort();
  }

  status(): RemoteStatus[] {
    return this.members.map((r) => ({ ...r.health.status(), serving: r.refs !== undefined && r.refs.branches.size + r.refs.tags.size > 0 }));
  }

  /**
   * Fetches the remotes (all, only those whose update interval has passed, or those `only`
   * picks) and then runs onRound. See the file comment for how concurrent calls combine.
   */
  update(onlyDue = false, only?: (c: C) => boolean): Promise<RemoteUpdate[]> {
    if (onlyDue && this.pending > 0 && this.current) return this.current;
    if (only === undefined && this.queuedAll) return this.queuedAll;
    const busy = this.pending > 0;
    this.pending++;
    const run: Promise<RemoteUpdate[]> = this.last
      .then(() => {
        // from now on a new request must wait for a further run: this one may have started its fetch
        if (this.queuedAll === run) this.queuedAll = undefined;
        return this.runUpdate(onlyDue, only);
      })
      .finally(() => {
        this.pending--;
      });
    this.last = run.catch(() => undefined);
    this.current = run;
    if (only === undefined && busy) this.queuedAll = run;
    return run;
  }

  private async runUpdate(onlyDue: boolean, only: ((c: C) => boolean) | undefined): Promise<RemoteUpdate[]> {
    if (!this.warmed) {
      // after a restart, serve the clones already on disk while the first fetch runs
      this.warmed = true;
      for (const r of this.members) if (r.refs === undefined && r.mirror.cloned()) r.refs = await r.mirror.refs().catch(() => undefined);
      await this.opts.onRound();
    }
    const results: RemoteUpdate[] = [];
    for (const r of this.members) {
      if (only !== undefined && !only(r.config)) continue;
      if (onlyDue && this.opts.now() < r.nextDueMs) continue;
      r.nextDueMs = this.opts.now() + r.config.updateIntervalS * 1000;
      results.push(await this.fetchOne(r));
    }
    await this.opts.onRound();
    return results;
  }

  private async fetchOne(r: PoolMember<C>): Promise<RemoteUpdate> {
    const { role, code, logger } = this.opts;
    try {
      const got = await r.mirror.fetch();
      r.refs = got.refs;
      await this.opts.onFetched?.(r);
      const recovered = r.health.succeeded(this.opts.now());
      if (recovered) logger.info({ remote: r.config.shown }, `${role} remote ${r.config.shown} is reachable again; serving its current refs`);
      return { remote: r.config.shown, ok: true, changed: got.changed };
    } catch (err) {
      const message = errorMessage(err);
      if (r.refs === undefined) r.refs = await r.mirror.refs().catch(() => undefined);
      const first = r.health.failed(this.opts.now(), message);
      if (first) {
        const serving = r.refs === undefined ? 'nothing is served from it until a fetch succeeds' : 'the last good checkout is still served';
        logger.warn(
          { remote: r.config.shown, code },
          `${code}: ${role} remote ${r.config.shown} could not be fetched: ${message}; ${serving}. Check its URL and credentials, then run '${this.opts.updateCommand}'`,
        );
      }
      return { remote: r.config.shown, ok: false, changed: false, error: message };
    }
  }
}
