// Events this minion fires on its master's bus, over the session: event.send / fire_master wait for
// the master's event_reply (a refusal comes back with its code); a beacon's events go out unasked,
// as Salt's minion sends them (sync=False). Data over the protocol's bound is refused here, before
// it is sent, so an oversized event never costs the session.

import type { Clock } from '../../util/clock.js';
import { BrineError, isErrorCode } from '../../util/errors.js';
import { type MinionEventReply, MAX_EVENT_JSON, MAX_EVENT_TAG, type MinionEvent, stateProgressMessage } from '../../protocol/index.js';
import type { StateProgressReport } from '../../modules/index.js';
import { MasterRequests, type RequestLink } from '../master-requests.js';

/** How long event.send waits for the master to say it fired the event. */
export const EVENT_REQUEST_TIMEOUT_MS = 30_000;

function unavailable(why: string): BrineError {
  return new BrineError('EVENT_UNAVAILABLE', `${why}; the event was not fired. Check the connection with brine doctor`);
}

/** Throws EVENT_TOO_LARGE for a tag or data the master would not take. */
export function checkEventSize(tag: string, data: Record<string, unknown>): void {
  if (tag.length > MAX_EVENT_TAG) throw new BrineError('EVENT_TOO_LARGE', `the tag is ${tag.length} characters long; at most ${MAX_EVENT_TAG} are allowed`);
  const size = JSON.stringify(data).length;
  if (size > MAX_EVENT_JSON)
    throw new BrineError(
      'EVENT_TOO_LARGE',
      `the data of ${JSON.stringify(tag.slice(0, 100))} is ${size} characters of JSON; at most ${MAX_EVENT_JSON} are allowed (name the grains or pillar keys you need with with_grains=[...])`,
    );
}

export class MasterEvents {
  private readonly requests: MasterRequests<MinionEventReply>;

  constructor(
    private readonly links: () => readonly RequestLink[],
    clock: Clock,
    timeoutMs = EVENT_REQUEST_TIMEOUT_MS,
  ) {
    this.requests = new MasterRequests(clock, timeoutMs, unavailable);
  }

  onReply(reply: MinionEventReply): void {
    this.requests.onReply(reply);
  }

  onLinkDown(link: RequestLink): void {
    this.requests.onLinkDown(link, 'minion event');
  }

  /** event.send / fire_master: resolves once the master fired it; rejects with its refusal's code. */
  async fire(tag: string, data: Record<string, unknown>): Promise<void> {
    checkEventSize(tag, data);
    const link = this.links().find((l) => l.ready);
    if (!link) throw unavailable('no master is connected');
    const reply = await this.requests.send(link, 'minion event', (rid): MinionEvent => ({ t: 'minion_event', rid, kind: 'fire_master', tag, data }));
    if (reply.ok) return;
    const code = reply.error && isErrorCode(reply.error.code) ? reply.error.code : 'EVENT_REFUSED';
    throw new BrineError(code, reply.error?.message ?? `the master refused the event ${JSON.stringify(tag)}`);
  }

  /** One finished state of job `jid` (state_events), to every connected master as Salt's fire_master; not answered. */
  stateProgress(jid: string, progress: StateProgressReport): void {
    const message = stateProgressMessage(jid, progress);
    if (message === undefined) return;
    for (const link of this.links()) if (link.ready) link.send(message);
  }

  /** A beacon's event, not answered; false when no master is connected or it is too large (the caller logs it). */
  fireBeacon(tag: string, data: Record<string, unknown>): boolean {
    checkEventSize(tag, data);
    const link = this.links().find((l) => l.ready);
    return link?.send({ t: 'minion_event', kind: 'beacon', tag, data }) === true;
  }
}
