// Whether a git remote's fetches succeed, kept per remote: the failure streak (so the master
// logs GITFS_REMOTE_UNREACHABLE once per streak, not once per interval) and what `brine doctor
// master` and `brine fileserver update` report. Pure: the caller passes the time.

export interface RemoteStatus {
  /** The URL without credentials. */
  remote: string;
  ok: boolean;
  /** ms since the epoch of the last successful fetch, if any. */
  lastSuccess?: number;
  /** When the current failure streak began. */
  failingSince?: number;
  failures: number;
  lastError?: string;
  /** Whether a checkout of it is served (a fetch succeeded once, now or before a restart). */
  serving?: boolean;
}

export class RemoteHealth {
  private lastSuccess: number | undefined;
  private failingSince: number | undefined;
  private failures = 0;
  private lastError: string | undefined;

  constructor(readonly remote: string) {}

  /** Records a failed fetch; true when it starts a streak (log it), false while one lasts. */
  failed(now: number, error: string): boolean {
    this.lastError = error;
    this.failures++;
    if (this.failingSince !== undefined) return false;
    this.failingSince = now;
    return true;
  }

  /** Records a successful fetch; true when it ends a failure streak. */
  succeeded(now: number): boolean {
    const recovered = this.failingSince !== undefined;
    this.lastSuccess = now;
    this.failingSince = undefined;
    this.failures = 0;
    this.lastError = undefined;
    return recovered;
  }

  status(): RemoteStatus {
    const s: RemoteStatus = { remote: this.remote, ok: this.failingSince === undefined, failures: this.failures };
    if (this.lastSuccess !== undefined) s.lastSuccess = this.lastSuccess;
    if (this.failingSince !== undefined) s.failingSince = this.failingSince;
    if (this.lastError !== undefined) s.lastError = this.lastError;
    return s;
  }
}
