// Keeps the master's git remotes fresh (gitfs, and the git ext_pillar's): a first fetch at
// start, then a fetch of each remote whose update interval has passed, on one timer through the
// master's clock, never two at once and never blocking file serving or pillar renders. After each
// round the remotes' health is written to <cachedir>/gitfs/status.json (git_pillar/status.json),
// which `brine doctor master` reads (as it reads the pillar cache).

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Clock, TimerHandle } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { RemoteStatus, RemoteUpdate } from '../fileserver/git/index.js';
import { errorMessage } from '../util/errors.js';

export const GITFS_STATUS_FILE = path.join('gitfs', 'status.json');
export const GIT_PILLAR_STATUS_FILE = path.join('git_pillar', 'status.json');

/** What the updater keeps fresh: the gitfs backend, or the git_pillar remotes. */
export interface GitRemotesTarget {
  /** `gitfs` or `git_pillar`, for the log. */
  readonly role: string;
  update(onlyDue: boolean): Promise<RemoteUpdate[]>;
  readonly tickMs: number;
  status(): RemoteStatus[];
  close(): void;
}

export interface GitfsStatusFile {
  /** When the master wrote it (ms since the epoch). */
  at: number;
  remotes: RemoteStatus[];
}

/** The status the master last wrote, or undefined when it has none (no gitfs, or not yet). */
export function readGitfsStatus(cachedir: string, file = GITFS_STATUS_FILE): GitfsStatusFile | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(cachedir, file), 'utf8')) as GitfsStatusFile;
  } catch {
    return undefined;
  }
}

export class GitRemotesUpdater {
  private timer: TimerHandle | undefined;
  private closed = false;

  constructor(
    private readonly backend: GitRemotesTarget,
    /** GITFS_STATUS_FILE or GIT_PILLAR_STATUS_FILE. */
    private readonly statusFile: string,
    private readonly cachedir: string,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** The first round now, then one every tick until close(). */
  start(): void {
    void this.round(false);
  }

  /** `brine fileserver update` / `brine git-pillar update`: every remote now (after a round already running). */
  updateNow(): Promise<RemoteUpdate[]> {
    return this.backend.update(false).finally(() => this.writeStatus());
  }

  /** An update asked for with a filter (brine git-pillar update --repo): it runs, then the status is written. */
  after<T>(run: Promise<T>): Promise<T> {
    return run.finally(() => this.writeStatus());
  }

  private async round(onlyDue: boolean): Promise<void> {
    try {
      await this.backend.update(onlyDue);
      if (this.closed) return;
    } catch (err) {
      this.logger.error({ err }, `the ${this.backend.role} update failed unexpectedly; it is tried again on the next interval`);
    }
    this.writeStatus();
    if (!this.closed) this.timer = this.clock.setTimeout(() => void this.round(true), this.backend.tickMs);
  }

  private writeStatus(): void {
    const file = path.join(this.cachedir, this.statusFile);
    const body: GitfsStatusFile = { at: this.clock.now(), remotes: this.backend.status() };
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      fs.writeFileSync(`${file}.tmp`, JSON.stringify(body));
      fs.renameSync(`${file}.tmp`, file);
    } catch (err) {
      this.logger.warn({ err: errorMessage(err) }, `could not write ${file}; brine doctor master will not see the ${this.backend.role} remotes' health`);
    }
  }

  close(): void {
    this.closed = true;
    this.timer?.cancel();
    this.backend.close();
  }
}
