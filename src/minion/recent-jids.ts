// The jids a minion ran recently (Salt's minion_jid_queue): with hot/hot masters the same job can
// arrive through two connections, and a replayed publish must not run again; each jid runs once.

export class RecentJids {
  private readonly seen = new Set<string>();

  constructor(private readonly max: number) {}

  /** True the first time a jid is seen; false for a repeat while it is remembered. */
  add(jid: string): boolean {
    if (this.seen.has(jid)) return false;
    this.seen.add(jid);
    if (this.seen.size > this.max) this.seen.delete(this.seen.values().next().value as string);
    return true;
  }

  /** The first jid from `next` that was not seen, now remembered (jids the minion makes itself). */
  claimNew(next: () => string): string {
    let jid = next();
    while (!this.add(jid)) jid = next();
    return jid;
  }

  get size(): number {
    return this.seen.size;
  }
}
