// One attempt at a connection from a minion to one master, as an explicit state machine:
// resolving -> connecting -> handshaking -> authenticating -> (pending | ready) -> closed.
// Closed is terminal; a reconnect makes a new object. Every step that can throw ends in
// closed with a reason, so the owner always gets exactly one outcome and can back off.

import type { Clock, TimerHandle } from '../util/clock.js';
import { BrineError, toBrineError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import {
  PROTOCOL_VERSIONS,
  type Auth,
  type Channel,
  type CloseReason,
  type MasterMessage,
  type MinionMessage,
  type Job,
  type Ack,
  type Acks,
  type FindJob,
  type FileReply,
  type PillarReply,
  type MineReply,
  type MinionEventReply,
} from '../protocol/index.js';
import { HeartbeatMonitor } from './heartbeat.js';

export const CONNECTION_STATES = ['resolving', 'connecting', 'handshaking', 'authenticating', 'pending', 'ready', 'closed'] as const;
export type ConnectionState = (typeof CONNECTION_STATES)[number];

/** The abort reason of an attempt that ended (see finish()). */
const ABANDONED = 'attempt ended';

const TRANSITIONS: Readonly<Record<ConnectionState, readonly ConnectionState[]>> = {
  resolving: ['connecting', 'closed'],
  connecting: ['handshaking', 'closed'],
  handshaking: ['authenticating', 'closed'],
  authenticating: ['pending', 'ready', 'closed'],
  pending: ['closed'],
  ready: ['closed'],
  closed: [],
};

export function canTransition(from: ConnectionState, to: ConnectionState): boolean {
  return TRANSITIONS[from].includes(to);
}

export interface MasterEndpoint {
  host: string;
  port: number;
}

/** Everything with side effects is injected: sockets, DNS, the key pin, time. */
export interface ConnectionDeps {
  clock: Clock;
  logger: Logger;
  resolve(host: string): Promise<string>;
  /** `signal` aborts when the attempt is abandoned (deadline or close), so a late dial stops. */
  /** `who` is this minion's ID: the dialer keeps a TLS session per minion and master to resume. */
  dial(address: string, port: number, onTcpConnected: () => void, signal?: AbortSignal, who?: string): Promise<Channel<MasterMessage, MinionMessage>>;
  /**
   * Throws MASTER_KEY_CHANGED / MASTER_FINGER_MISMATCH to refuse the master's key. `unpinned`
   * means first contact: the key is used for this attempt but not yet trusted, so a refusal from
   * that master cannot end the minion. Nothing returned counts as `pinned`.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: a host that does not pin returns nothing
  trustMaster(master: { fingerprint: string; publicKeyPem: string }, endpoint: MasterEndpoint): 'pinned' | 'unpinned' | void;
  /** The master accepted this minion: trust on first use pins its key now. */
  pinMaster?(master: { fingerprint: string; publicKeyPem: string }, endpoint: MasterEndpoint): void;
}

export interface ConnectionOptions {
  id: string;
  agent: string;
  /** Deadline for DNS plus dial, and again for the master's auth answer after the hello. */
  authTimeoutMs: number;
  heartbeatIntervalMs: number;
  heartbeatTimeoutMs: number;
  /** Frame limit after authentication. */
  maxFrame: number;
  /** Returns queued on the minion, reported with each ping (the master's metrics); omitted = not sent. */
  returnsQueued?: () => number;
  /**
   * Say `carryAcks` in the hello: this side handles `acks` messages, so the master may hold its
   * acks for its next frame (issue 27). An older master ignores the field and acks at once.
   */
  carryAcks?: boolean;
}

export interface ConnectionOutcome {
  reason: CloseReason;
  error?: Error;
  /** The master's auth answer, when one arrived. */
  auth?: Auth;
  wasReady: boolean;
  lastState: ConnectionState;
  /** The address the name resolved to on this attempt. */
  address?: string;
  /** How long the connection was ready, ms (0 if never). */
  readyForMs: number;
  /** The master's key matched its pin or master_finger (false before TLS and on first contact). */
  masterTrusted: boolean;
  /** The master said when to come back (a busy answer at the door or in `auth`), ms. */
  retryAfterMs?: number;
}

export interface ConnectionEvents {
  onStateChange?(from: ConnectionState, to: ConnectionState): void;
  onReady?(conn: MasterConnection): void;
  onMessage?(message: Job | Ack | Acks | FindJob | FileReply | PillarReply | MineReply | MinionEventReply): void;
  onClosed(outcome: ConnectionOutcome): void;
}

export class MasterConnection {
  private stateValue: ConnectionState = 'resolving';
  private channel: Channel<MasterMessage, MinionMessage> | undefined;
  private heartbeat: HeartbeatMonitor | undefined;
  private connectTimer: TimerHandle | undefined;
  private readonly abandon = new AbortController();
  private authTimer: TimerHandle | undefined;
  private auth: Auth | undefined;
  private address: string | undefined;
  private readyAt = 0;
  private started = false;
  private trusted = false;

  constructor(
    readonly endpoint: MasterEndpoint,
    private readonly deps: ConnectionDeps,
    private readonly opts: ConnectionOptions,
    private readonly events: ConnectionEvents,
  ) {}

  get state(): ConnectionState {
    return this.stateValue;
  }

  get rttMs(): number | undefined {
    return this.heartbeat?.rttMs;
  }

  get masterFingerprint(): string | undefined {
    return this.channel?.peerFingerprint;
  }

  get resolvedAddress(): string | undefined {
    return this.address;
  }

  /** Starts the attempt; the outcome arrives through events.onClosed exactly once. */
  open(): void {
    if (this.started) throw new BrineError('INTERNAL', 'MasterConnection.open called twice; make a new connection instead');
    this.started = true;
    // closed before it began: the outcome was already delivered, so dial nothing
    if (this.isClosed()) return;
    // DNS or a dialer that never answers must not wedge the attempt (and the link behind it)
    this.connectTimer = this.deps.clock.setTimeout(() => {
      const where = `${this.endpoint.host}:${this.endpoint.port}`;
      if (this.stateValue === 'handshaking') {
        this.fail(new BrineError('HANDSHAKE_TIMEOUT', `TLS handshake with master ${where} did not finish within ${this.opts.authTimeoutMs} ms`), 'handshake_timeout');
      } else {
        this.fail(new BrineError('CONNECT_FAILED', `could not ${this.stateValue === 'resolving' ? 'resolve' : 'connect to'} master ${where} within ${this.opts.authTimeoutMs} ms`), 'connect_failed');
      }
    }, this.opts.authTimeoutMs);
    this.run().catch((err: unknown) => this.fail(err));
  }

  /** Sends an application message when ready; false otherwise (the caller keeps it). */
  send(message: MinionMessage): boolean {
    if (this.stateValue !== 'ready' || !this.channel) return false;
    const ok = this.channel.send(message);
    if (ok) this.heartbeat?.noteSent();
    return ok;
  }

  close(reason: CloseReason, error?: Error): void {
    if (this.stateValue === 'closed') return;
    if ((reason === 'shutdown' || reason === 'failback') && this.stateValue === 'ready') this.channel?.send({ t: 'bye', reason });
    this.finish(reason, error);
  }

  /** Re-reads the state after an await or a callback (which may have closed us). */
  private isClosed(): boolean {
    return this.stateValue === 'closed';
  }

  private async run(): Promise<void> {
    let address: string;
    try {
      address = await this.deps.resolve(this.endpoint.host);
    } catch (err) {
      // whatever the resolver throws, this attempt failed to connect (and is retried as such)
      throw toBrineError(err, 'CONNECT_FAILED');
    }
    if (this.isClosed()) return;
    this.address = address;
    this.move('connecting');
    let channel: Channel<MasterMessage, MinionMessage>;
    try {
      channel = await this.deps.dial(
        address,
        this.endpoint.port,
        () => {
          if (this.stateValue === 'connecting') this.move('handshaking');
        },
        this.abandon.signal,
        this.opts.id,
      );
    } catch (err) {
      throw toBrineError(err, 'CONNECT_FAILED');
    }
    if (this.isClosed()) {
      channel.close('shutdown');
      return;
    }
    this.connectTimer?.cancel();
    this.connectTimer = undefined;
    if (this.stateValue === 'connecting') this.move('handshaking');
    this.channel = channel;
    channel.onClose((info) => this.finish(info.reason, info.error));
    channel.onMessage((m) => this.guard(() => this.onMessage(m)));
    this.trusted = this.deps.trustMaster({ fingerprint: channel.peerFingerprint, publicKeyPem: channel.peerPublicKeyPem }, this.endpoint) !== 'unpinned';
    this.move('authenticating');
    this.authTimer = this.deps.clock.setTimeout(() => {
      this.fail(new BrineError('HANDSHAKE_TIMEOUT', `master ${this.endpoint.host}:${this.endpoint.port} sent no authentication answer within ${this.opts.authTimeoutMs} ms`), 'handshake_timeout');
    }, this.opts.authTimeoutMs);
    channel.send({ t: 'hello', versions: [...PROTOCOL_VERSIONS], id: this.opts.id, agent: this.opts.agent, ...(this.opts.carryAcks === true ? { carryAcks: true } : {}) });
  }

  private onMessage(message: MasterMessage): void {
    if (this.stateValue === 'closed') return;
    this.heartbeat?.noteReceived();
    switch (message.t) {
      case 'auth':
        this.onAuth(message);
        return;
      case 'ping':
        this.channel?.send({ t: 'pong', seq: message.seq });
        this.heartbeat?.noteSent();
        return;
      case 'pong':
        this.heartbeat?.handlePong(message.seq);
        return;
      case 'job':
      case 'ack':
      case 'acks':
      case 'find_job':
      case 'file_reply':
      case 'pillar_reply':
      case 'mine_reply':
      case 'event_reply':
        if (this.stateValue !== 'ready') {
          this.fail(new BrineError('MESSAGE_UNEXPECTED', `master sent "${message.t}" before authentication finished`), 'protocol_error');
          return;
        }
        this.events.onMessage?.(message);
        return;
      case 'error':
        this.fail(new BrineError('MESSAGE_INVALID', `master reported ${message.code}: ${message.message}`), 'protocol_error');
        return;
      case 'bye':
        this.finish(message.reason === 'shutdown' ? 'shutdown' : 'peer_closed');
        return;
    }
  }

  private onAuth(auth: Auth): void {
    if (this.stateValue !== 'authenticating') {
      this.fail(new BrineError('MESSAGE_UNEXPECTED', `unexpected auth message in state ${this.stateValue}`), 'protocol_error');
      return;
    }
    this.authTimer?.cancel();
    this.auth = auth;
    switch (auth.status) {
      case 'accepted': {
        if (this.channel) this.deps.pinMaster?.({ fingerprint: this.channel.peerFingerprint, publicKeyPem: this.channel.peerPublicKeyPem }, this.endpoint);
        this.move('ready');
        this.readyAt = this.deps.clock.monotonic();
        this.channel?.setMaxFrame(this.opts.maxFrame);
        this.heartbeat = new HeartbeatMonitor(
          {
            sendPing: (seq, rtt) => {
              const queued = this.opts.returnsQueued?.();
              this.channel?.send({ t: 'ping', seq, ...(rtt === undefined ? {} : { rtt }), ...(queued === undefined ? {} : { returnsQueued: queued }) });
            },
            onTimeout: (silent) => {
              this.fail(new BrineError('CONNECT_FAILED', `no traffic from master ${this.endpoint.host} for ${Math.round(silent / 1000)} s (heartbeat_timeout)`), 'heartbeat_timeout');
            },
          },
          this.deps.clock,
          { intervalMs: this.opts.heartbeatIntervalMs, timeoutMs: this.opts.heartbeatTimeoutMs, sendPings: true },
        );
        this.heartbeat.start();
        this.events.onReady?.(this);
        return;
      }
      case 'pending':
        this.move('pending');
        this.finish('auth_pending');
        return;
      case 'rejected':
        // the master's code says why when it is more than the key store's rejected state
        this.finish('auth_rejected', authError(auth.code === 'KEY_TYPE_UNSUPPORTED' ? 'KEY_TYPE_UNSUPPORTED' : 'AUTH_REJECTED', auth));
        return;
      case 'denied':
        this.finish('auth_denied', authError('AUTH_DENIED', auth));
        return;
      case 'invalid_id':
        this.finish('invalid_id', authError('INVALID_ID', auth));
        return;
      case 'full':
        this.finish('auth_rejected', authError(auth.code === 'AUTH_PENDING_LIMIT' ? 'AUTH_PENDING_LIMIT' : 'AUTH_FULL', auth));
        return;
      case 'busy':
        this.finish('auth_busy');
        return;
      case 'error':
        this.finish('protocol_error', authError('PROTOCOL_VERSION', auth));
        return;
    }
  }

  private move(to: ConnectionState): void {
    const from = this.stateValue;
    if (!canTransition(from, to)) throw new BrineError('INTERNAL', `illegal connection transition ${from} -> ${to}`);
    this.stateValue = to;
    this.notify(() => this.events.onStateChange?.(from, to));
  }

  /**
   * Runs an observer callback. The state has already changed, so a throw cannot undo it; it is
   * logged and must never escape into the transport, a timer, or cost the owner its onClosed.
   */
  private notify(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.deps.logger.error({ err, master: `${this.endpoint.host}:${this.endpoint.port}` }, 'a connection event handler threw; carrying on');
    }
  }

  /** Runs a callback so that anything it throws closes the connection instead of escaping. */
  private guard(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.fail(err);
    }
  }

  private fail(err: unknown, reason?: CloseReason): void {
    const e = toBrineError(err);
    this.finish(reason ?? reasonFor(e), e);
  }

  private finish(reason: CloseReason, error?: Error): void {
    if (this.stateValue === 'closed') return;
    const lastState = this.stateValue;
    this.stateValue = 'closed';
    this.connectTimer?.cancel();
    this.authTimer?.cancel();
    // a reason of our own: without one, abort() builds a DOMException with a stack trace, for
    // every attempt that ends, and nobody reads it
    this.abandon.abort(ABANDONED);
    this.heartbeat?.stop();
    this.channel?.close(reason, error);
    this.notify(() => this.events.onStateChange?.(lastState, 'closed'));
    const outcome: ConnectionOutcome = {
      reason,
      wasReady: lastState === 'ready',
      lastState,
      readyForMs: lastState === 'ready' ? this.deps.clock.monotonic() - this.readyAt : 0,
      masterTrusted: this.trusted,
    };
    if (error) outcome.error = error;
    if (this.auth) outcome.auth = this.auth;
    const doorWait = error instanceof BrineError ? error.details.retryAfterMs : undefined;
    if (typeof doorWait === 'number') outcome.retryAfterMs = doorWait;
    else if (this.auth?.retryAfter !== undefined) outcome.retryAfterMs = this.auth.retryAfter * 1000;
    if (this.address) outcome.address = this.address;
    this.notify(() => this.events.onClosed(outcome));
  }
}

function authError(code: 'AUTH_REJECTED' | 'KEY_TYPE_UNSUPPORTED' | 'AUTH_DENIED' | 'INVALID_ID' | 'AUTH_FULL' | 'AUTH_PENDING_LIMIT' | 'PROTOCOL_VERSION', auth: Auth): BrineError {
  return new BrineError(code, auth.message, { details: { masterFingerprint: auth.masterFingerprint } });
}

function reasonFor(e: BrineError): CloseReason {
  switch (e.code) {
    case 'CONNECT_FAILED':
      return 'connect_failed';
    case 'TLS_ERROR':
      return 'tls_error';
    case 'HANDSHAKE_TIMEOUT':
      return 'handshake_timeout';
    case 'MASTER_BUSY':
      // turned away at the door: the same as a busy auth answer, without the handshake
      return 'auth_busy';
    case 'MASTER_KEY_CHANGED':
    case 'MASTER_FINGER_MISMATCH':
      return 'master_key_changed';
    case 'FRAME_TOO_LARGE':
      return 'frame_too_large';
    case 'FRAME_MALFORMED':
    case 'MESSAGE_INVALID':
    case 'MESSAGE_UNEXPECTED':
      return 'protocol_error';
    default:
      return 'internal_error';
  }
}
