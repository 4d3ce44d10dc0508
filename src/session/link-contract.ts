// The minion's link contract: what a way to the masters is, whichever transport carries it
// (a TLS `MasterLink` per master, or one `NatsMinionLink` to a NATS cluster). One set of states,
// one transition table, one guarded move() both implementations go through, and the small surface
// a daemon may read and call. The minion's job, return and request code sees only this.

import { BrineError } from '../util/errors.js';
import type { Ack, Acks, FileReply, FindJob, Job, MineReply, MinionEventReply, MinionMessage, PillarReply } from '../protocol/index.js';
import type { ConnectionOutcome, ConnectionState, MasterEndpoint } from './master-connection.js';

export const LINK_STATES = ['idle', 'connecting', 'ready', 'probing', 'reconnecting', 'waiting', 'stopped'] as const;
/**
 * idle (not started) -> connecting (one attempt) -> ready (signed in) -> waiting (backoff) ->
 * connecting ...; `probing` is ready on the current master while a failback probe to the first
 * master runs beside it (TLS). `reconnecting` is the transport's own client moving to another
 * server inside one session (NATS). stopped is terminal.
 */
export type LinkState = (typeof LINK_STATES)[number];

const TRANSITIONS: Readonly<Record<LinkState, readonly LinkState[]>> = {
  idle: ['connecting', 'stopped'],
  connecting: ['ready', 'waiting', 'stopped'],
  // ready -> reconnecting is NATS's: nats.js lost its server and redials the cluster by itself,
  // within the session the link opened. MasterLink never asks for it: a lost TLS connection ends
  // the attempt (ready -> waiting), and the link's own loop dials again.
  ready: ['probing', 'reconnecting', 'waiting', 'stopped'],
  // the probe failed (back to ready) or took over (ready on the first master)
  probing: ['ready', 'waiting', 'stopped'],
  // back on a server (ready), or the client gave up and closed the session (waiting)
  reconnecting: ['ready', 'waiting', 'stopped'],
  waiting: ['connecting', 'stopped'],
  stopped: [],
};

export function canLinkTransition(from: LinkState, to: LinkState): boolean {
  return TRANSITIONS[from].includes(to);
}

/** The link's state, changed only through move(), which refuses what the table does not allow. */
export class LinkStateMachine {
  private value: LinkState = 'idle';

  /** `onMove` observes each change after it happened (it cannot veto one). */
  constructor(private readonly onMove?: (from: LinkState, to: LinkState) => void) {}

  get state(): LinkState {
    return this.value;
  }

  get stopped(): boolean {
    return this.value === 'stopped';
  }

  /** Throws INTERNAL on a move the table forbids: a bug in the link, never an input's fault. */
  move(to: LinkState): void {
    const from = this.value;
    if (!canLinkTransition(from, to)) throw new BrineError('INTERNAL', `illegal link transition ${from} -> ${to}`);
    this.value = to;
    this.onMove?.(from, to);
  }
}

/** Where a link signed in: the master's address and key (on NATS, the server in use). */
export interface LinkPeer {
  readonly resolvedAddress?: string | undefined;
  readonly masterFingerprint?: string | undefined;
}

/** What `brine doctor` shows of a link's current connection (a master's, or the NATS server's). */
export interface LinkConnectionView extends LinkPeer {
  readonly state: ConnectionState;
  readonly rttMs?: number | undefined;
}

export interface LinkEvents {
  /** Signed in: `conn` tells where (the master's address and key; on NATS, the server). */
  onReady?(conn: LinkPeer): void;
  /** The live connection ended after it was ready (or an attempt failed, on TLS): real figures, per transport. */
  onDown?(outcome: ConnectionOutcome): void;
  onMessage?(message: Job | Ack | Acks | FindJob | FileReply | PillarReply | MineReply | MinionEventReply): void;
  /** State changes of the live connection (the one jobs arrive on), including after a failback. */
  onConnectionState?(from: ConnectionState, to: ConnectionState): void;
  /** Every move of the link's own state, after the guard allowed it (logs, tests). */
  onLinkState?(from: LinkState, to: LinkState): void;
  /** A refusal that retrying cannot fix (rejected key without rejected_retry, changed master key). */
  onFatal?(error: BrineError): void;
  /** A master was refused because it is not trusted (changed key, refusal before first sign-in). */
  onUntrustedMaster?(endpoint: MasterEndpoint, error: BrineError): void;
  /** Each scheduled retry, for logs and tests. */
  onRetryScheduled?(delayMs: number, outcome: ConnectionOutcome): void;
}

/** A way to the masters, as the minion daemon uses it: a MasterLink (TLS) or a NatsMinionLink. */
export interface MinionLink {
  /** The master in use or being tried (on NATS, the first server: the link has no single master). */
  readonly endpoint: MasterEndpoint;
  readonly state: LinkState;
  /** Signed in: messages sent now go out (ready, or probing beside a ready connection). */
  readonly ready: boolean;
  /** Attempts made since start (each dial or sign-in). */
  readonly attempts: number;
  readonly connection: LinkConnectionView | undefined;
  /** idle -> connecting; a no-op in any other state (a stopped link is never revived). */
  start(): void;
  /** -> stopped, idempotent; a deliberate stop is not reported as a down. */
  stop(): void;
  /** Sends while ready; false otherwise (the caller keeps the message). */
  send(message: MinionMessage): boolean;
}
