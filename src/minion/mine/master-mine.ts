// The master's mine as a minion reaches it over its session: each request gets an id, goes out
// on the first ready link and is matched to its mine_reply. No ready link, a link going down or
// a master that does not answer in time is MINE_UNAVAILABLE; the master's coded errors come back
// as they are.

import type { Clock } from '../../util/clock.js';
import { BrineError, isErrorCode } from '../../util/errors.js';
import type { MineGet, MineReply, MineRequest, MineSend } from '../../protocol/index.js';
import { MasterRequests, type RequestLink } from '../master-requests.js';

/** How long one mine request may wait for its reply. */
export const MINE_REQUEST_TIMEOUT_MS = 30_000;

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
  private readonly requests: MasterRequests<MineReply>;

  constructor(
    private readonly links: () => readonly RequestLink[],
    clock: Clock,
    timeoutMs = MINE_REQUEST_TIMEOUT_MS,
  ) {
    this.requests = new MasterRequests(clock, timeoutMs, unavailable);
  }

  /** Some master session is up. */
  get connected(): boolean {
    return this.links().some((l) => l.ready);
  }

  onReply(reply: MineReply): void {
    this.requests.onReply(reply);
  }

  onLinkDown(link: RequestLink): void {
    this.requests.onLinkDown(link, 'mine request');
  }

  /** Sends one request and waits for its reply; the reply's `data` on success. */
  async request(body: MineBody): Promise<unknown> {
    const link = this.links().find((l) => l.ready);
    if (!link) throw unavailable('no master is connected');
    const reply = await this.requests.send(link, body.t, (rid) => ({ ...body, rid }) as MineRequest);
    if (reply.ok) return reply.data;
    const code = reply.error && isErrorCode(reply.error.code) ? reply.error.code : 'MINE_UNAVAILABLE';
    throw new BrineError(code, reply.error?.message ?? `the master refused the ${body.t}`);
  }
}
