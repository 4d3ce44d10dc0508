// Which master to try next. One pool per MasterLink: a single master, or Salt's failover list
// (`master_type: failover`) in order or shuffled (`random_master`, with the first entry kept
// first when `master_failback` is on). Attempts and failures are recorded per master.

import type { MasterEndpoint } from './master-connection.js';

export interface PoolOptions {
  failover: boolean;
  randomMaster: boolean;
  failback: boolean;
}

export interface EndpointRecord {
  endpoint: MasterEndpoint;
  attempts: number;
  failures: number;
  lastReason?: string;
}

export class MasterPool {
  private readonly order: EndpointRecord[];
  private index = 0;
  /** Masters tried since the last success; a full pass means every master failed. */
  private triedInPass = 0;

  constructor(
    endpoints: readonly MasterEndpoint[],
    readonly opts: PoolOptions,
    random: () => number = Math.random,
  ) {
    if (endpoints.length === 0) throw new Error('a master pool needs at least one master');
    const list = endpoints.map((endpoint) => ({ endpoint, attempts: 0, failures: 0 }));
    if (opts.randomMaster && list.length > 1) {
      // with failback the first master stays first: it is the one to come back to
      const fixed = opts.failback ? 1 : 0;
      for (let i = list.length - 1; i > fixed; i--) {
        const j = fixed + Math.floor(random() * (i - fixed + 1));
        [list[i], list[j]] = [list[j]!, list[i]!];
      }
    }
    this.order = list;
  }

  static single(endpoint: MasterEndpoint): MasterPool {
    return new MasterPool([endpoint], { failover: false, randomMaster: false, failback: false });
  }

  get size(): number {
    return this.order.length;
  }

  current(): MasterEndpoint {
    return this.order[this.index]!.endpoint;
  }

  primary(): MasterEndpoint {
    return this.order[0]!.endpoint;
  }

  onPrimary(): boolean {
    return this.index === 0;
  }

  records(): readonly EndpointRecord[] {
    return this.order;
  }

  noteAttempt(): void {
    this.order[this.index]!.attempts++;
  }

  noteReady(): void {
    this.triedInPass = 0;
  }

  /**
   * Records a failure of the current master and moves on (failover). Returns true when every
   * master has now failed since the last success: the caller should back off before the next.
   */
  noteFailure(reason: string): boolean {
    const rec = this.order[this.index]!;
    rec.failures++;
    rec.lastReason = reason;
    if (!this.opts.failover || this.order.length === 1) return true;
    this.triedInPass++;
    this.index = (this.index + 1) % this.order.length;
    if (this.triedInPass >= this.order.length) {
      this.triedInPass = 0;
      return true;
    }
    return false;
  }

  /** Back to the first master (failback). */
  reset(): void {
    this.index = 0;
    this.triedInPass = 0;
  }
}
