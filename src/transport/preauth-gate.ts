// Admission of new network connections before they authenticate: at most `maxTotal` at once,
// `maxPerSource` from one address, and never so many sockets that fewer than `fdReserve`
// descriptors would be left (threats.md #24). Pure counting; the listener owns the sockets.

export interface PreauthLimits {
  /** Unauthenticated connections (TCP accepted, TLS or hello pending) at once; 0 = no cap. */
  maxTotal: number;
  /** The same, from one source address; 0 = no cap. */
  maxPerSource: number;
  /** RLIMIT_NOFILE; undefined turns the descriptor reserve off (no /proc). */
  fdLimit: number | undefined;
  /** Descriptors kept free for the control socket, the job cache and accepted minions. */
  fdReserve: number;
  /** Descriptors the process held before the listener accepted anything. */
  baselineFds: number;
}

export type PreauthRefusal = 'per_source' | 'total' | 'fd_reserve';

export interface PreauthSlot {
  /** The connection authenticated (or closed): it no longer counts as unauthenticated. Idempotent. */
  release(): void;
}

export class PreauthGate {
  private total = 0;
  private readonly perSource = new Map<string, number>();

  constructor(private readonly limits: PreauthLimits) {}

  get unauthenticated(): number {
    return this.total;
  }

  unauthenticatedFrom(source: string): number {
    return this.perSource.get(source) ?? 0;
  }

  /**
   * Admits a new connection from `source`, or says which limit refuses it. `openSockets` counts
   * every socket the listener holds, authenticated or not, the new one included.
   */
  admit(source: string, openSockets: number): PreauthSlot | PreauthRefusal {
    const { fdLimit, fdReserve, baselineFds, maxTotal, maxPerSource } = this.limits;
    if (fdLimit !== undefined && baselineFds + openSockets + fdReserve > fdLimit) return 'fd_reserve';
    if (maxTotal > 0 && this.total >= maxTotal) return 'total';
    const fromSource = this.perSource.get(source) ?? 0;
    if (maxPerSource > 0 && fromSource >= maxPerSource) return 'per_source';
    this.total++;
    this.perSource.set(source, fromSource + 1);
    let held = true;
    return {
      release: () => {
        if (!held) return;
        held = false;
        this.total--;
        const n = (this.perSource.get(source) ?? 1) - 1;
        if (n <= 0) this.perSource.delete(source);
        else this.perSource.set(source, n);
      },
    };
  }
}

/** What each refusal means, for the log line and the operator's next step. */
export function describePreauthRefusal(refusal: PreauthRefusal, limits: PreauthLimits): string {
  switch (refusal) {
    case 'per_source':
      return `${limits.maxPerSource} unauthenticated connections from this address are already open (preauth_max_connections_per_source)`;
    case 'total':
      return `${limits.maxTotal} unauthenticated connections are already open (preauth_max_connections)`;
    case 'fd_reserve':
      return `fewer than ${limits.fdReserve} of ${limits.fdLimit ?? '?'} file descriptors would remain free (preauth_fd_reserve; raise the master's open-files limit, e.g. LimitNOFILE= in its systemd unit)`;
  }
}
