// Returns: every job's return kept on disk until a master acknowledges it. A published job's
// return goes back through the link its job came on; a return of the minion's own (scheduled, or
// brine call's) through any connected master. Each sign-in sends what that link owes, and the
// returns restored from disk after a restart.

import type { Return } from '../../protocol/index.js';
import type { ReturnQueue } from '../return-queue.js';
import type { MinionLink } from '../minion-link.js';
import type { LinkAccess, LinkMessage, MinionFeature } from './feature.js';

export class ReturnsFeature implements MinionFeature {
  readonly name = 'returns';
  /** Which master link each unacknowledged return belongs to (its job came through it). */
  private readonly origin = new Map<string, MinionLink>();
  private stopped = false;

  constructor(
    /** Opened at start, before the features (its size goes out with each heartbeat). */
    readonly queue: ReturnQueue,
    private readonly links: LinkAccess,
  ) {}

  onReady(link: MinionLink): void {
    // returns whose job came through this link, and those restored from disk
    for (const ret of this.queue.pending()) {
      const origin = this.origin.get(ret.jid);
      if (origin === undefined || origin === link) link.send(ret);
    }
  }

  onMessage(m: LinkMessage): boolean {
    if (m.t === 'ack') this.forget(m.jid);
    else if (m.t === 'acks') for (const jid of m.jids) this.forget(jid);
    else return false;
    return true;
  }

  private forget(jid: string): void {
    this.queue.ack(jid);
    this.origin.delete(jid);
  }

  /** Nothing is queued once the daemon stops (a job aborted by the stop has no return to keep). */
  stop(): void {
    this.stopped = true;
  }

  /** The return of a job a master published, through the link it came on. */
  fromMaster(ret: Return, link: MinionLink): void {
    if (this.stopped) return;
    this.queue.add(ret);
    this.origin.set(ret.jid, link);
    link.send(ret);
  }

  /**
   * The return of a run this minion started itself (scheduled, or brine call's): queued (on disk)
   * like any other, sent now through one connected master; with none connected it goes out from
   * the queue when a master signs in.
   */
  own(ret: Return): void {
    if (this.stopped) return;
    this.queue.add(ret);
    this.links
      .all()
      .find((l) => l.ready)
      ?.send(ret);
  }
}
