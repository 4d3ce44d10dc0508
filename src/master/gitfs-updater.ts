// Keeps the master's gitfs remotes fresh: a first fetch at start, then a fetch of each remote
// whose gitfs_update_interval has passed, on one timer through the master's clock, never two at
// once and never blocking file serving. After each round the remotes' health is written to
// <cachedir>/gitfs/status.json, which `brine doctor master` reads (as it reads the pillar cache).

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Clock, TimerHandle } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { GitfsBackend, RemoteStatus, RemoteUpdate } from '../fileserver/git/index.js';

export const GITFS_STATUS_FILE = path.join('gitfs', 'status.json');

export interface GitfsStatusFile {
  /** When the master wrote it (ms since the epoch). */
  at: number;
  remotes: RemoteStatus[];
}

/** The status the master last wrote, or undefined when it has none (no gitfs, or not yet). */
export function readGitfsStatus(cachedir: string): GitfsStatusFile | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(cachedir, GITFS_STATUS_FILE), 'utf8')) as GitfsStatusFile;
  } catch {
    return undefined;
  }
}

export class GitfsUpdater {
  private timer: TimerHandle | undefined;
  private closed = false;

  constructor(
    private readonly backend: GitfsBackend,
    private readonly cachedir: string,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** The first round now, then one every tick until close(). */
  start(): void {
    void this.round(false);
  }

  /** `brine fileserver update`: every remote now (joining a round already running). */
  updateNow(): Promise<RemoteUpdate[]> {
    return this.backend.update(false).finally(() => this.writeStatus());
  }

  private async round(onlyDue: boolean): Promise<void> {
    try {
      await this.backend.update(onlyDue);
      if (this.closed) return;
    } catch (err) {
      this.logger.error({ err }, 'the gitfs update failed unexpectedly; it is tried again on the next interval');
    }
    this.writeStatus();
    if (!this.closed) this.timer = this.clock.setTimeout(() => void this.round(true), this.backend.tickMs);
  }

  private writeStatus(): void {
    const file = path.join(this.cachedir, GITFS_STATUS_FILE);
    const body: GitfsStatusFile = { at: this.clock.now(), remotes: this.backend.status() };
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      fs.writeFileSync(`${file}.tmp`, JSON.stringify(body));
      fs.renameSync(`${file}.tmp`, file);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, `could not write ${file}; brine doctor master will not see the gitfs remotes' health`);
    }
  }

  close(): void {
    this.closed = true;
    this.timer?.cancel();
    this.backend.close();
  }
}
