// The master's side of one minion connection: wait for the hello (with a deadline), negotiate
// the protocol version, authorise the key, then serve heartbeats and returns. The minion's
// identity is fixed at authentication and never read from a later message.

import type { Clock, TimerHandle } from '../util/clock.js';
import { BrineError, toBrineError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import {
  prepareMessage,
  type Ack,
  MIN_PROTOCOL_VERSION,
  PROTOCOL_VERSIONS,
  type Auth,
  type AuthStatus,
  type Channel,
  type ChannelClose,
  type CloseReason,
  type Hello,
  type Job,
  type MasterMessage,
  type MinionMessage,
  type Return,
  type JobStatus,
  type FileReply,
  type FileRequest,
  type PillarReply,
  type PillarRequest,
  type MineReply,
  type MineRequest,
  type MinionEvent,
  type MinionEventReply,
  type StateProgress,
  type Ping,
} from '../protocol/index.js';
import { HeartbeatMonitor, type HeartbeatHost } from '../session/index.js';
import type { LiveSession } from './session-table.js';
import { MessageRateLimiter, type MessageRateSettings } from './message-rate.js';
import { ACK_CARRY_MAX_DELAY_MS, CarriedAcks, type CarriedAcksHost } from './carried-acks.js';

export interface AuthVerdict {
  status: Exclude<AuthStatus, 'error'>;
  /** Shown to the minion: why, and what to run to fix it. */
  message: string;
  /** For busy: seconds the minion should wait before it tries again. */
  retryAfter?: number;
  /** Catalogue code when the status alone does not say why (key type, pending-key limits). */
  code?: string;
}

export interface MinionSessionSettings {
  handshakeTimeoutMs: number;
  heartbeatIntervalMs: number;
  heartbeatTimeoutMs: number;
  maxFrame: number;
  masterFingerprint: string;
  /** Per-session message rate limit after authentication (minion_msg_*); omitted = none. */
  messageRate?: MessageRateSettings;
  /** Longest an ack is held for the next frame to a minion that carries acks; 0 = never held (ack_carry_delay). */
  ackCarryDelayMs?: number;
  /** Schedules the silence checks and the carried acks' deadline (the master shares one TimerWheel); omitted = the clock. */
  heartbeatTimers?: Pick<Clock, 'setTimeout'>;
}

/** The ack sent last, by any session (prepared: one frame for a whole job's returns). */
let lastAck: Readonly<Ack> | undefined;

/** A session logs its own throttling at most this often. */
const THROTTLE_LOG_INTERVAL_MS = 10_000;

export interface MinionSessionHooks {
  authorize(hello: Hello, channel: Channel<MinionMessage, MasterMessage>): AuthVerdict;
  /** A `brine doctor` probe: the verdict computed read-only; the session ends after it. */
  probe(hello: Hello, channel: Channel<MinionMessage, MasterMessage>): AuthVerdict;
  onAuthenticated(session: MinionSession): void;
  onReturn(session: MinionSession, ret: Return): void;
  /** The minion's answer to find_job. */
  onJobStatus?(session: MinionSession, status: JobStatus): void;
  /** The minion's grains, for the minion data cache (sent after sign-in and on refresh). */
  onGrains?(session: MinionSession, grains: Record<string, unknown>): void;
  /** A file server request (file_list, file_stat, file_read); answered with sendFileReply. */
  onFileRequest?(session: MinionSession, request: FileRequest): void;
  /** The minion asks for its pillar; answered with sendPillarReply (identity from the session). */
  onPillarRequest?(session: MinionSession, request: PillarRequest): void;
  /** A mine request (mine_send, mine_get, mine_delete, mine_flush); answered with sendMineReply. */
  onMineRequest?(session: MinionSession, request: MineRequest): void;
  /** An event the minion fires on the master's bus (event.send, a beacon); answered with sendEventReply when it has a rid. */
  onMinionEvent?(session: MinionSession, event: MinionEvent): void;
  /** A state of a running state job finished (state_events). */
  onStateProgress?(session: MinionSession, progress: StateProgress): void;
  onClosed(session: MinionSession, info: ChannelClose, authenticated: boolean): void;
  /** A heartbeat from the minion, after its fields are recorded (metrics: RTT, queued returns). */
  onHeartbeat?(session: MinionSession, ping: Ping): void;
}

type State = 'awaiting_hello' | 'ready' | 'closed';

export class MinionSession implements LiveSession, CarriedAcksHost {
  private state: State = 'awaiting_hello';
  private helloTimer: TimerHandle | undefined;
  private heartbeat: HeartbeatMonitor | undefined;
  private idValue = '';
  private agentValue = '';
  private version = 0;
  private lastSeenValue: number;
  private connectedAtValue = 0;
  private probedValue = false;
  private limiter: MessageRateLimiter | undefined;
  private throttleLoggedAt = -Infinity;
  private returnsQueuedValue: number | undefined;
  private closeInfoValue: ChannelClose | undefined;
  /** ack_carry_delay for a minion whose hello said carryAcks (issue 27); 0: each ack goes at once. */
  private carryMs = 0;
  /** Acks held for the next frame; made at the first ack (an idle fleet's sessions hold none). */
  private carried: CarriedAcks | undefined;

  constructor(
    private readonly channel: Channel<MinionMessage, MasterMessage>,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly settings: MinionSessionSettings,
    private readonly hooks: MinionSessionHooks,
  ) {
    this.lastSeenValue = clock.now();
    channel.onMessage((m) => this.guard(() => this.onMessage(m)));
    channel.onClose((info) => this.onChannelClosed(info));
    this.helloTimer = clock.setTimeout(() => {
      this.close('handshake_timeout', new BrineError('HANDSHAKE_TIMEOUT', `no hello from ${channel.remoteAddress} within ${settings.handshakeTimeoutMs} ms`));
    }, settings.handshakeTimeoutMs);
  }

  get id(): string {
    return this.idValue;
  }
  get remoteAddress(): string {
    return this.channel.remoteAddress;
  }
  get fingerprint(): string {
    return this.channel.peerFingerprint;
  }
  get agent(): string {
    return this.agentValue;
  }
  get protocolVersion(): number {
    return this.version;
  }
  /** Why the session closed, with the error when there was one; undefined while it is open. */
  get closeInfo(): ChannelClose | undefined {
    return this.closeInfoValue;
  }
  get rttMs(): number | undefined {
    return this.heartbeat?.rttMs;
  }
  get lastSeen(): number {
    return this.lastSeenValue;
  }
  /** Wall-clock time the session was authenticated (0 before). */
  get connectedAt(): number {
    return this.connectedAtValue;
  }
  get ready(): boolean {
    return this.state === 'ready';
  }
  /** This connection was a `brine doctor` probe (answered and closed, never authenticated). */
  get probed(): boolean {
    return this.probedValue;
  }
  /** Returns queued on the minion, as its last heartbeat said (undefined until one says). */
  get returnsQueued(): number | undefined {
    return this.returnsQueuedValue;
  }
  /** Messages dropped by the rate limit (minion_msg_rate) since authentication. */
  get droppedMessages(): number {
    return this.limiter?.dropped ?? 0;
  }

  sendJob(job: Job): boolean {
    if (this.state !== 'ready') return false;
    return this.send(job);
  }

  /** Asks the minion whether it still runs the job (it answers with job_status). */
  sendFindJob(jid: string): boolean {
    if (this.state !== 'ready') return false;
    return this.send({ t: 'find_job', jid });
  }

  /** A file server reply; false when the session is gone or the send failed. */
  sendFileReply(reply: FileReply): boolean {
    if (this.state !== 'ready') return false;
    return this.send(reply);
  }

  /** The minion's own pillar, or a refusal; false when the session is gone or the send failed. */
  sendPillarReply(reply: PillarReply): boolean {
    if (this.state !== 'ready') return false;
    return this.send(reply);
  }

  /** The answer to a minion_event; false when the session is gone or the send failed. */
  sendEventReply(reply: MinionEventReply): boolean {
    if (this.state !== 'ready') return false;
    return this.send(reply);
  }

  /** A mine reply; false when the session is gone or the send failed. */
  sendMineReply(reply: MineReply): boolean {
    if (this.state !== 'ready') return false;
    return this.send(reply);
  }

  /**
   * Called once the return is stored (or dropped for good). A minion that carries acks gets it
   * with the next frame sent to it, or alone at the deadline; any other gets an ack frame now.
   */
  sendAck(jid: string): void {
    if (this.state !== 'ready') return;
    if (this.carryMs > 0) {
      this.carried ??= new CarriedAcks(this, this.settings.heartbeatTimers ?? this.clock, this.carryMs);
      if (this.carried.add(jid)) this.flushAcks();
      return;
    }
    // a job's returns all get the same ack: encoded once while the jid repeats
    if (lastAck?.jid !== jid) lastAck = prepareMessage<Ack>({ t: 'ack', jid });
    this.send(lastAck);
  }

  /** Sends the held acks alone (their deadline passed, or a frame's worth is held). */
  flushAcks(): void {
    const acks = this.carried?.take();
    if (acks !== undefined && this.state === 'ready') this.send(acks);
  }

  close(reason: CloseReason, error?: Error): void {
    if (this.state === 'closed') return;
    // the bye carries the held acks, so a master stopping cleanly leaves nothing to resend
    if (reason === 'shutdown' || reason === 'replaced' || reason === 'key_deleted' || reason === 'rate_limited') this.send({ t: 'bye', reason });
    this.channel.close(reason, error);
  }

  /** A protocol violation: tell the peer the code first (it may be another brine version), then hang up. */
  private refuse(error: BrineError): void {
    this.send({ t: 'error', code: error.code, message: error.message });
    this.close('protocol_error', error);
  }

  private send(message: MasterMessage): boolean {
    // held acks go first, in the same write as this frame
    const ok = this.channel.send(this.carried === undefined || this.carried.size === 0 ? message : this.carried.carry(message));
    if (ok) this.heartbeat?.noteSent();
    return ok;
  }

  private onMessage(message: MinionMessage): void {
    if (this.limiter && !this.admitMessage(this.limiter)) return;
    this.lastSeenValue = this.clock.now();
    this.heartbeat?.noteReceived();
    if (this.state === 'awaiting_hello') {
      if (message.t !== 'hello') {
        this.refuse(new BrineError('MESSAGE_UNEXPECTED', `"${message.t}" before hello from ${this.remoteAddress}`));
        return;
      }
      this.onHello(message);
      return;
    }
    switch (message.t) {
      case 'ping':
        if (message.rtt !== undefined) this.heartbeat?.recordPeerRtt(message.rtt);
        if (message.returnsQueued !== undefined) this.returnsQueuedValue = message.returnsQueued;
        this.send({ t: 'pong', seq: message.seq });
        this.hooks.onHeartbeat?.(this, message);
        return;
      case 'pong':
        return;
      case 'return':
        this.hooks.onReturn(this, message);
        return;
      case 'job_status':
        this.hooks.onJobStatus?.(this, message);
        return;
      case 'grains':
        this.hooks.onGrains?.(this, message.grains);
        return;
      case 'file_list':
      case 'file_stat':
      case 'file_read':
        if (this.hooks.onFileRequest) this.hooks.onFileRequest(this, message);
        else this.send({ t: 'file_reply', rid: message.rid, ok: false, error: { code: 'FILESERVER_UNAVAILABLE', message: 'this master serves no files' } });
        return;
      case 'pillar_request':
        if (this.hooks.onPillarRequest) this.hooks.onPillarRequest(this, message);
        else this.send({ t: 'pillar_reply', rid: message.rid, ok: false, error: { code: 'INTERNAL', message: 'this master serves no pillar' } });
        return;
      case 'mine_send':
      case 'mine_get':
      case 'mine_delete':
      case 'mine_flush':
        if (this.hooks.onMineRequest) this.hooks.onMineRequest(this, message);
        else this.send({ t: 'mine_reply', rid: message.rid, ok: false, error: { code: 'MINE_UNAVAILABLE', message: 'this master keeps no mine' } });
        return;
      case 'minion_event':
        if (this.hooks.onMinionEvent) this.hooks.onMinionEvent(this, message);
        else if (message.rid !== undefined) this.send({ t: 'event_reply', rid: message.rid, ok: false, error: { code: 'EVENT_REFUSED', message: 'this master takes no events from minions' } });
        return;
      case 'state_progress':
        // fire-and-forget: a master without the hook drops it
        this.hooks.onStateProgress?.(this, message);
        return;
      case 'bye':
        this.close(message.reason === 'shutdown' || message.reason === 'failback' ? message.reason : 'peer_closed');
        return;
      case 'hello':
        this.refuse(new BrineError('MESSAGE_UNEXPECTED', `second hello from ${this.id}`));
        return;
    }
  }

  /** Applies the rate limit; false when the message is dropped (or the session closed for it). */
  private admitMessage(limiter: MessageRateLimiter): boolean {
    const verdict = limiter.check();
    if (verdict === 'ok') return true;
    const { ratePerSecond, burst, graceSeconds } = limiter.settings;
    if (verdict === 'disconnect') {
      const msg = `minion ${this.id} at ${this.remoteAddress} sent more than minion_msg_rate (${ratePerSecond}/s, burst ${burst}) for ${graceSeconds} s in a row; ${limiter.dropped} messages were dropped`;
      this.close('rate_limited', new BrineError('RATE_LIMITED', msg));
      return false;
    }
    const now = this.clock.monotonic();
    if (now - this.throttleLoggedAt >= THROTTLE_LOG_INTERVAL_MS) {
      this.throttleLoggedAt = now;
      this.logger.warn(
        { id: this.id, remote: this.remoteAddress, dropped: limiter.dropped, rate: ratePerSecond, burst },
        `minion ${this.id} sends messages faster than minion_msg_rate (${ratePerSecond}/s, burst ${burst}); dropping the excess (${limiter.dropped} so far) and disconnecting it after ${graceSeconds} s over the limit. Check what that minion is doing`,
      );
    }
    return false;
  }

  private onHello(hello: Hello): void {
    this.helloTimer?.cancel();
    // not kept for the session's life: 10,000 sessions would each hold a spent timer
    this.helloTimer = undefined;
    const common = hello.versions.filter((v) => (PROTOCOL_VERSIONS as readonly number[]).includes(v) && v >= MIN_PROTOCOL_VERSION);
    if (common.length === 0) {
      const msg = `no common protocol version: minion speaks ${hello.versions.join(', ') || 'none'}, this master speaks ${PROTOCOL_VERSIONS.join(', ')} and accepts ${MIN_PROTOCOL_VERSION} or newer`;
      this.reply({ status: 'error', code: 'PROTOCOL_VERSION', message: msg });
      this.close('protocol_error', new BrineError('PROTOCOL_VERSION', msg));
      return;
    }
    this.version = Math.max(...common);
    this.agentValue = hello.agent;
    if (hello.probe === true) {
      // answered and closed: no session is attached, so a live minion with this key is untouched
      this.probedValue = true;
      const answer = this.hooks.probe(hello, this.channel);
      this.reply({ status: answer.status, message: answer.message, retryAfter: answer.retryAfter, ...(answer.code === undefined ? {} : { code: answer.code }) });
      this.close('shutdown');
      return;
    }
    const verdict = this.hooks.authorize(hello, this.channel);
    if (verdict.status !== 'accepted') {
      this.reply({ status: verdict.status, message: verdict.message, retryAfter: verdict.retryAfter, ...(verdict.code === undefined ? {} : { code: verdict.code }) });
      this.close(closeReasonFor(verdict.status));
      return;
    }
    this.idValue = hello.id;
    this.state = 'ready';
    const carryMs = this.settings.ackCarryDelayMs ?? ACK_CARRY_MAX_DELAY_MS;
    if (hello.carryAcks === true && carryMs > 0) this.carryMs = carryMs;
    if (this.settings.messageRate) this.limiter = new MessageRateLimiter(this.clock, this.settings.messageRate);
    this.connectedAtValue = this.clock.now();
    this.channel.setMaxFrame(this.settings.maxFrame);
    this.heartbeat = new HeartbeatMonitor(
      new SilenceHost(this),
      this.clock,
      { intervalMs: this.settings.heartbeatIntervalMs, timeoutMs: this.settings.heartbeatTimeoutMs, sendPings: false },
      this.settings.heartbeatTimers,
    );
    this.heartbeat.start();
    this.reply({ status: 'accepted', message: 'accepted', version: this.version });
    this.hooks.onAuthenticated(this);
  }

  private reply(fields: { status: Auth['status']; message: string; code?: string; version?: number | undefined; retryAfter?: number | undefined }): void {
    const auth: Auth = {
      t: 'auth',
      status: fields.status,
      minVersion: MIN_PROTOCOL_VERSION,
      message: fields.message,
      masterFingerprint: this.settings.masterFingerprint,
      heartbeatInterval: this.settings.heartbeatIntervalMs / 1000,
      heartbeatTimeout: this.settings.heartbeatTimeoutMs / 1000,
    };
    if (fields.code !== undefined) auth.code = fields.code;
    if (fields.version !== undefined) auth.version = fields.version;
    if (fields.retryAfter !== undefined) auth.retryAfter = fields.retryAfter;
    this.send(auth);
  }

  private guard(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      const e = toBrineError(err);
      this.logger.error({ err: e, remote: this.remoteAddress, id: this.idValue || undefined }, `closing a minion connection after an internal error: ${e.message}`);
      this.close('internal_error', e);
    }
  }

  private onChannelClosed(info: ChannelClose): void {
    const wasReady = this.state === 'ready';
    this.state = 'closed';
    this.closeInfoValue = info;
    this.helloTimer?.cancel();
    this.heartbeat?.stop();
    this.carried?.dispose();
    this.hooks.onClosed(this, info, wasReady);
  }
}

/** The master only watches a session's silence; this host closes it (one small object, no closures). */
class SilenceHost implements HeartbeatHost {
  constructor(private readonly session: MinionSession) {}

  sendPing(): void {
    // the minion pings; the master only answers
  }

  onTimeout(silentForMs: number): void {
    this.session.close('heartbeat_timeout', new BrineError('CONNECT_FAILED', `no traffic from minion ${this.session.id} for ${Math.round(silentForMs / 1000)} s`));
  }
}

function closeReasonFor(status: Exclude<AuthStatus, 'error' | 'accepted'>): CloseReason {
  switch (status) {
    case 'pending':
      return 'auth_pending';
    case 'busy':
      return 'auth_busy';
    case 'denied':
      return 'auth_denied';
    case 'invalid_id':
      return 'invalid_id';
    case 'rejected':
    case 'full':
      return 'auth_rejected';
  }
}
