// The acks the master owes one minion that said `carryAcks` in its hello (issue 27): held until
// the next frame to that minion and written with it (one write, one TLS record), or sent alone at
// a deadline. A test.ping round then costs the master one write per minion instead of two.
// Held acks only delay when the minion forgets a return: the return stays in its on-disk queue,
// is resent on the next sign-in if the session ends first, and the master stores it once.

import type { Clock, TimerHandle } from '../util/clock.js';
import { MAX_CARRIED_ACKS, prepareCarried, prepareMessage, type Acks } from '../protocol/index.js';

/**
 * The longest an ack waits for a frame to ride on, by default (ack_carry_delay). The minion pings
 * only after a heartbeat interval of its own silence, so a minion busy sending returns may get no
 * frame for long. Five seconds is longer than a test.ping round of 10,000 minions (1-2 s), so a
 * round's acks never compete with its returns for the master's CPU even when no next job comes,
 * and shorter than the default heartbeat_interval (10 s); a return stays that much longer in the
 * minion's on-disk queue, and it is resent and stored once if the session ends first.
 */
export const ACK_CARRY_MAX_DELAY_MS = 5000;

export interface CarriedAcksHost {
  /** The deadline passed with acks still held: send them now (take() gives the message). */
  flushAcks(): void;
}

/** The last one-jid acks message and the last carrying stand-in, shared by every session. */
let lastAcks: Readonly<Acks> | undefined;
let lastCarry: { acks: Readonly<Acks>; message: object; standIn: object } | undefined;

export class CarriedAcks {
  private jids: string[] = [];
  private deadline: TimerHandle | undefined;

  constructor(
    private readonly host: CarriedAcksHost,
    private readonly timers: Pick<Clock, 'setTimeout'>,
    private readonly maxDelayMs = ACK_CARRY_MAX_DELAY_MS,
  ) {}

  get size(): number {
    return this.jids.length;
  }

  /** Holds an ack; true when the frame is full and the caller should send take() now. */
  add(jid: string): boolean {
    this.jids.push(jid);
    this.deadline ??= this.timers.setTimeout(() => this.host.flushAcks(), this.maxDelayMs);
    return this.jids.length >= MAX_CARRIED_ACKS;
  }

  /** The held acks as one message (emptied; the deadline is cancelled), or undefined when none. */
  take(): Readonly<Acks> | undefined {
    if (this.jids.length === 0) return undefined;
    const jids = this.jids;
    this.jids = [];
    this.deadline?.cancel();
    this.deadline = undefined;
    if (jids.length !== 1) return { t: 'acks', jids };
    // a round's acks are all for one jid: one encoded frame for the whole fleet
    if (lastAcks?.jids[0] !== jids[0]) lastAcks = prepareMessage<Acks>({ t: 'acks', jids });
    return lastAcks;
  }

  /** `message`, or a stand-in writing the held acks just before it in the same write. */
  carry<M extends object>(message: M): M {
    const acks = this.take();
    if (acks === undefined) return message;
    // a job sent to the whole fleet, carrying the same one-jid ack to each: concatenated once
    if (lastCarry?.acks === acks && lastCarry.message === message) return lastCarry.standIn as M;
    const standIn = prepareCarried(acks, message);
    if (acks === lastAcks && Object.isFrozen(message)) lastCarry = { acks, message, standIn };
    return standIn as M;
  }

  /** The session ended: held acks are dropped (the minion resends those returns on its next sign-in). */
  dispose(): void {
    this.jids = [];
    this.deadline?.cancel();
    this.deadline = undefined;
  }
}
