// The master's mine as a minion reaches it over its session: each request gets an id, goes out
// on the first ready link and is matched to its mine_reply. No ready link, a link going down or
// a master that does not answer in time is MINE_UNAVAILABLE; the master's coded errors come back
// as they are.

import type { Clock, TimerHandle } from '../../util/clock.js';
import { BrineError, isErrorCode } from '../../util/errors.js';
import type { MineGet, MineReply, MineRequest, MineSend } from '../../protocol/index.js';
import type { FileLink } from '../master-files.js';

/** How long one mine request may wait for its reply. */
export const MINE_REQUEST_TIMEOUT_MS = 30_000;

interface Pending {
  link: FileLink;
  resolve: (r: MineReply) => void;
  reject: (e: Error) => void;
  timer: TimerHandle;
}

/** A mine request without its rid. */
export type MineBody = Omit<MineSend, 'rid'> | Omit<MineGet, 'rid'> | { t: 'mine_delete'; fun: string } | { t: 'mine_flush' };

/** Where the mine is kept: the master over the session, or this minion's cachedir when masterless (local-mine.ts). */
export interface MineBackend {
  readonly connected: boolean;
  /** The reply's data on success; a coded error otherwise. */
  request(body: MineBody): Promise<unknown>;
}

function unavailable(why: string): BrineError {
  return new BrineError('MINE_UNAVAILABLE', `${why}; the mine is kept by the master. Check the connection with brine doctor`);
}

export class MasterMine implements MineBackend {
  private nextRid = 0;
  private readonly pending = new Map<number, Pending>();

  constructor(
    private readonly links: () => readonly FileLink[],
    private readonly clock: Clock,
    private readonly timeoutMs = MINE_REQUEST_TIMEOUT_MS,
  ) {}

  /** Some master session is up. */
  get connected(): boolean {
    return this.links().some((l) => l.ready);
  }

  onReply(reply: MineReply): void {
    const p = this.pending.get(reply.rid);
    if (!p) return;
    this.pending.delete(reply.rid);
    p.timer.cancel();
    p.resolve(reply);
  }

  onLinkDown(link: FileLink): void {
    for (const [rid, p] of this.pending) {
      if (p.link !== link) continue;
      this.pending.delete(rid);
      p.timer.cancel();
      p.reject(unavailable('the connection to the master closed while a mine request was outstanding'));
    }
  }

  /** Sends one request and waits for its reply; the reply's `data` on success. */
  async request(body: MineBody): Promise<unknown> {
    const link = this.links().find((l) => l.ready);
    if (!link) throw unavailable('no master is connected');
    this.nextRid = (this.nextRid + 1) % 2 ** 31;
    const rid = this.nextRid;
    const reply = await new Promise<MineReply>((resolve, reject) => {
      const timer = this.clock.setTimeout(() => {
        this.pending.delete(rid);
        reject(unavailable(`the master did not answer a ${body.t} within ${this.timeoutMs / 1000} s`));
      }, this.timeoutMs);
      this.pending.set(rid, { link, resolve, reject, timer });
      if (!link.send({ ...body, rid } as MineRequest)) {
        this.pending.delete(rid);
        timer.cancel();
        reject(unavailable(`sending the ${body.t} to the master failed`));
      }
    });
    if (reply.ok) return reply.data;
    const code = reply.error && isErrorCode(reply.error.code) ? reply.error.code : 'MINE_UNAVAILABLE';
    throw new BrineError(code, reply.error?.message ?? `the master refused the ${body.t}`);
  }
}
