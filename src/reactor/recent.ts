// The last reactions, newest first, for the web view's reactions list (GET /reactions): a fixed
// ring, so a busy reactor costs no more memory than `size` entries.

export type ReactionOutcome = 'published' | 'done' | 'failed' | 'render_error' | 'limited' | 'dropped';

export interface ReactionRecord {
  /** Milliseconds since the epoch when the event reached the reactor. */
  at: number;
  tag: string;
  sls: string;
  /** The reaction's SLS ID and function, when the file rendered to one. */
  id?: string;
  fun?: string;
  outcome: ReactionOutcome;
  /** The job a local reaction published. */
  jid?: string;
  /** The coded error of a failed, limited or dropped reaction. */
  error?: { code: string; message: string };
}

export class RecentReactions {
  private readonly ring: ReactionRecord[] = [];
  private next = 0;
  /** Records ever added, by outcome. */
  readonly counts: Record<ReactionOutcome, number> = { published: 0, done: 0, failed: 0, render_error: 0, limited: 0, dropped: 0 };

  constructor(private readonly size = 200) {}

  add(r: ReactionRecord): void {
    this.counts[r.outcome]++;
    if (this.ring.length < this.size) this.ring.push(r);
    else this.ring[this.next] = r;
    this.next = (this.next + 1) % this.size;
  }

  /** Newest first, at most `limit`. */
  list(limit = this.size): ReactionRecord[] {
    const ordered = this.ring.length < this.size ? [...this.ring] : [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)];
    return ordered.reverse().slice(0, limit);
  }
}
