// Requests a minion sends its master over the session and whose replies come back by request
// id (file server, mine, pillar): one id counter, one table of outstanding requests, a deadline
// per request, and every request on a link that goes down failed at once. The caller says how
// a failure reads (each service has its own code and advice).

import type { Clock, TimerHandle } from '../util/clock.js';
import type { MinionMessage } from '../protocol/index.js';

/** A link a request can go out on: the minion's MasterLinks. */
export interface RequestLink {
  readonly ready: boolean;
  send(message: MinionMessage): boolean;
}

interface Pending<R> {
  link: RequestLink;
  resolve: (reply: R) => void;
  reject: (err: Error) => void;
  timer: TimerHandle;
}

export class MasterRequests<R extends { rid: number }> {
  private nextRid = 0;
  private readonly pending = new Map<number, Pending<R>>();

  /** `fail(why)` makes the error for a request that got no reply; `why` says what happened. */
  constructor(
    private readonly clock: Clock,
    private readonly timeoutMs: number,
    private readonly fail: (why: string) => Error,
  ) {}

  /** A reply from a master; one whose request is no longer outstanding is ignored. */
  onReply(reply: R): void {
    const p = this.pending.get(reply.rid);
    if (!p) return;
    this.pending.delete(reply.rid);
    p.timer.cancel();
    p.resolve(reply);
  }

  /** A link went down: its outstanding requests will never be answered. */
  onLinkDown(link: RequestLink, what: string): void {
    for (const [rid, p] of this.pending) {
      if (p.link !== link) continue;
      this.pending.delete(rid);
      p.timer.cancel();
      p.reject(this.fail(`the connection to the master closed while a ${what} was outstanding`));
    }
  }

  /** Sends `build(rid)` on `link` and resolves with its reply; `what` names it in errors. */
  send(link: RequestLink, what: string, build: (rid: number) => MinionMessage): Promise<R> {
    // ids wrap well below the schema's bound; an id is reused only long after its request ended
    this.nextRid = (this.nextRid + 1) % 2 ** 31;
    const rid = this.nextRid;
    return new Promise<R>((resolve, reject) => {
      const timer = this.clock.setTimeout(() => {
        this.pending.delete(rid);
        reject(this.fail(`the master did not answer a ${what} within ${this.timeoutMs / 1000} s`));
      }, this.timeoutMs);
      this.pending.set(rid, { link, resolve, reject, timer });
      if (!link.send(build(rid))) {
        this.pending.delete(rid);
        timer.cancel();
        reject(this.fail(`sending the ${what} to the master failed`));
      }
    });
  }
}
