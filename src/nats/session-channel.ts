// One minion as a master sees it over NATS (transport: nats): the Channel its MinionSession talks
// through, made by NatsMasterHub (master-hub.ts) when a minion is first heard from.

import type { Clock } from '../util/clock.js';
import { TokenBucket } from '../util/token-bucket.js';
import type { BrineError } from '../util/errors.js';
import type { Channel, ChannelClose, CloseReason, MasterMessage, MinionMessage } from '../protocol/index.js';

/** What a channel needs of the hub that made it: sending to its minion, and being forgotten. */
export interface SessionChannelHost {
  sendTo(id: string, message: MasterMessage): boolean;
  forget(channel: NatsSessionChannel): void;
}

/**
 * One minion as a master sees it over NATS: the Channel its MinionSession talks through. It has
 * no socket: messages arrive by subject, and closing it (a heartbeat timeout, a deleted key)
 * forgets the minion until it is heard from again.
 */
export class NatsSessionChannel implements Channel<MinionMessage, MasterMessage> {
  private closedValue = false;
  private fastBucket: TokenBucket | undefined;
  private readonly messageFns: Array<(m: MinionMessage) => void> = [];
  private readonly closeFns: Array<(info: ChannelClose) => void> = [];
  readonly remoteAddress: string;
  readonly peerFingerprint: string;
  readonly peerPublicKeyPem: string;

  constructor(
    private readonly hub: SessionChannelHost,
    readonly id: string,
    key: { pem: string; fingerprint: string },
  ) {
    this.remoteAddress = `nats:${id}`;
    this.peerFingerprint = key.fingerprint;
    this.peerPublicKeyPem = key.pem;
  }

  get closed(): boolean {
    return this.closedValue;
  }

  /** A fast copy of a return may be taken now (the minion is within its message rate). */
  takeFast(rate: { ratePerSecond: number; burst: number } | undefined, clock: Clock): boolean {
    if (rate === undefined || rate.ratePerSecond <= 0) return true;
    this.fastBucket ??= new TokenBucket(clock, rate.ratePerSecond, Math.max(1, rate.burst));
    return this.fastBucket.take();
  }

  deliver(message: MinionMessage): void {
    if (this.closedValue) return;
    for (const fn of this.messageFns) fn(message);
    if (message.t === 'bye') this.end({ reason: message.reason === 'shutdown' ? 'shutdown' : 'peer_closed', local: false });
  }

  send(message: MasterMessage): boolean {
    if (this.closedValue) return false;
    return this.hub.sendTo(this.id, message);
  }

  close(reason: CloseReason, error?: BrineError | Error): void {
    this.end({ reason, local: true, ...(error === undefined ? {} : { error }) });
  }

  private end(info: ChannelClose): void {
    if (this.closedValue) return;
    this.closedValue = true;
    this.hub.forget(this);
    for (const fn of this.closeFns) fn(info);
  }

  onMessage(fn: (message: MinionMessage) => void): void {
    this.messageFns.push(fn);
  }

  onClose(fn: (info: ChannelClose) => void): void {
    this.closeFns.push(fn);
  }

  setMaxFrame(): void {
    // the hub checks the size of every message against max_frame_size
  }
}
